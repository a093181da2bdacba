/// What a datagram on a media port is, told from its first two bytes: RTP and RTCP sharing one port
/// (rtcp-mux, RFC 5761 §4), and the other protocols that can share it (RFC 7983 §7). The coarser view of
/// ``MediaDatagramKind``, which also names ZRTP and TURN ChannelData.
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
        switch MediaDatagramKind(classifying: bytes) {
        case .rtp: self = .rtp
        case .rtcp: self = .rtcp
        case .stun: self = .stun
        case .dtls: self = .dtls
        case .zrtp, .turnChannelData, .unknown: self = .unknown
        }
    }
}
