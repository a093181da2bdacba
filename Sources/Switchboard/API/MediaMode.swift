/// Whether calls carry media (`CallProviderConfiguration.mediaMode`): a struct with static members, so more
/// modes can come.
public struct MediaMode: Sendable, Hashable, CustomStringConvertible {
    let code: String

    /// Each call opens its RTP/RTCP pair and sends and receives audio (the default).
    public static let rtp = MediaMode(code: "rtp")
    /// Calls negotiate SDP as usual, announcing the discard port 9, but open no socket and send no packet,
    /// as sipp's `-sn uac` and `-sn uas` do: the SIP core alone, for load tests. Audio settings, DTMF over
    /// RTP and the media timeout do nothing then (DTMF goes as SIP INFO).
    public static let signallingOnly = MediaMode(code: "signalling-only")

    public var description: String { code }
}
