/// Where the protocols that share the media port with RTP go (RFC 7983): ICE's STUN, DTLS-SRTP and TURN
/// ChannelData each get a handler when the component that speaks them exists. Without a handler their
/// datagrams are dropped and counted in ``MediaDemultiplexStatistics/dropped``; ZRTP and unknown first
/// bytes are always dropped.
public struct MediaDatagramSeams<Address: Hashable & Sendable> {
    /// Takes one datagram of its protocol and returns what to send in answer (e.g. a STUN binding response).
    /// - Parameters:
    ///   - datagram: the whole datagram.
    ///   - source: where it came from.
    ///   - port: which local port it came in on.
    ///   - now: when it arrived.
    public typealias Handler = (
        _ datagram: [UInt8], _ source: Address, _ port: MediaPort, _ now: MediaInstant
    ) -> [MediaTransmission<Address>]

    /// STUN messages (first byte 0...3).
    public var stun: Handler?
    /// DTLS records (first byte 20...63).
    public var dtls: Handler?
    /// TURN ChannelData (first byte 64...79).
    public var turnChannelData: Handler?

    /// - Parameters:
    ///   - stun: the STUN handler, none by default.
    ///   - dtls: the DTLS handler, none by default.
    ///   - turnChannelData: the TURN ChannelData handler, none by default.
    public init(stun: Handler? = nil, dtls: Handler? = nil, turnChannelData: Handler? = nil) {
        self.stun = stun
        self.dtls = dtls
        self.turnChannelData = turnChannelData
    }

    /// The handler for a kind, `nil` for RTP, RTCP and the kinds that are never handled.
    func handler(for kind: MediaDatagramKind) -> Handler? {
        switch kind {
        case .stun: stun
        case .dtls: dtls
        case .turnChannelData: turnChannelData
        case .zrtp, .rtp, .rtcp, .unknown: nil
        }
    }
}
