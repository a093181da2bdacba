/// What a datagram on a media port is, told from its first byte as RFC 7983 §7 prescribes, and RTP from
/// RTCP by the second byte (RFC 5761 §4): the demultiplexer for every protocol that can share the port.
///
/// | first byte | protocol                                   |
/// |------------|--------------------------------------------|
/// | 0...3      | STUN (ICE checks, keepalives, RFC 8489)    |
/// | 16...19    | ZRTP (RFC 6189)                            |
/// | 20...63    | DTLS (DTLS-SRTP, RFC 5764)                 |
/// | 64...79    | TURN ChannelData (RFC 8656 §12.4)          |
/// | 128...191  | RTP or RTCP (version 2)                    |
/// | others     | nothing: drop                              |
public enum MediaDatagramKind: Hashable, Sendable, CaseIterable {
    /// A STUN message.
    case stun
    /// A ZRTP packet (this stack does not do ZRTP: dropped).
    case zrtp
    /// A DTLS record.
    case dtls
    /// A TURN ChannelData message.
    case turnChannelData
    /// An RTP (or SRTP) packet.
    case rtp
    /// An RTCP (or SRTCP) compound packet: a second byte (marker and payload type together) of 192...223,
    /// the RTCP packet types SR, RR, SDES, BYE, APP and feedback, which is why muxed RTP must not use payload
    /// types 64-95 (RFC 5761 §4).
    case rtcp
    /// An empty datagram, a lone RTP/RTCP byte, or a first byte no protocol claims.
    case unknown

    /// Classifies a datagram.
    /// - Parameter bytes: the datagram.
    public init(classifying bytes: some Collection<UInt8>) {
        var iterator = bytes.makeIterator()
        guard let first = iterator.next() else {
            self = .unknown
            return
        }
        switch first {
        case 0...3: self = .stun
        case 16...19: self = .zrtp
        case 20...63: self = .dtls
        case 64...79: self = .turnChannelData
        case 128...191:
            guard let second = iterator.next() else {
                self = .unknown
                return
            }
            self = (192...223).contains(second) ? .rtcp : .rtp
        default: self = .unknown
        }
    }
}
