/// What a datagram on a media port is, told from its first two bytes: RTP and RTCP sharing one port
/// (rtcp-mux, RFC 5761 §4), and the other protocols that can share it (RFC 7983 §7).
public enum MediaPacketKind: Hashable, Sendable {
    /// An RTP (or SRTP) packet.
    case rtp
    /// An RTCP (or SRTCP) compound packet.
    case rtcp
    /// A STUN message (first byte 0...3), e.g. an ICE connectivity check or keepalive.
    case stun
    /// A DTLS record (first byte 20...63).
    case dtls
    /// Anything else (ZRTP, TURN channel data, garbage): drop it.
    case unknown

    /// Classifies a datagram.
    ///
    /// A version-2 packet whose second byte (marker and payload type together) is 192...223 is RTCP: those
    /// values are SR, RR, SDES, BYE, APP and the feedback types, which is why muxed RTP must not use payload
    /// types 64-95 (RFC 5761 §4).
    /// - Parameter bytes: the datagram.
    public init(classifying bytes: some Collection<UInt8>) {
        var iterator = bytes.makeIterator()
        guard let first = iterator.next() else {
            self = .unknown
            return
        }
        switch first {
        case 0...3: self = .stun
        case 20...63: self = .dtls
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
