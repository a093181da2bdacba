/// How a ``MediaSession`` behaves: fixed for its lifetime, whatever is negotiated.
public struct MediaSessionConfiguration: Sendable {
    /// Our RTCP CNAME (RFC 7022); `nil` for a random one per session.
    public var cname: String?
    /// No RTP for this long while media is expected reports ``MediaSessionEvent/mediaTimeout``; `nil` never.
    public var mediaTimeout: Duration?
    /// Longer datagrams are dropped and counted (``MediaSessionStatistics/oversized``).
    public var maximumDatagramSize: Int
    /// How long a latched address must be silent before another may take over (RFC 4961); `nil` never.
    public var relatchAfter: Duration?
    /// The jitter buffer's smallest, largest and initial playout delays.
    public var jitterDelays: (minimum: Duration, maximum: Duration, initial: Duration)
    /// The RTCP session bandwidth in bit/s, for the report interval (RFC 3550 §6.2).
    public var rtcpSessionBandwidth: Int
    /// The RTCP minimum report interval.
    public var rtcpMinimumInterval: RTCPInterval.Minimum
    /// The wall-clock time at ``MediaInstant/zero`` of the driver's monotonic clock: sender reports carry
    /// NTP time (RFC 3550 §6.4.1) and the session reads no clock.
    public var wallclockAtOrigin: NTPTimestamp
    /// The Opus encoder's settings before the peer's fmtp applies.
    public var opus: OpusConfiguration
    /// Milliseconds per sent digit and between digits (RFC 4733).
    public var toneDuration: Int
    /// Milliseconds of audio between two sent digits.
    public var toneGap: Int
    /// The most packet intervals one ``MediaSession/advance(to:audio:)`` catches up; older ones are skipped
    /// (their RTP time passes unsent), so a stalled driver does not burst.
    public var maximumCatchUp: Int
    /// The most transmissions and events held for the driver; beyond it the newest are dropped and counted.
    public var queueCapacity: Int

    /// - Parameters:
    ///   - cname: the CNAME, random by default.
    ///   - mediaTimeout: the media timeout, none by default.
    ///   - maximumDatagramSize: the largest datagram taken, 2048 bytes by default.
    ///   - relatchAfter: the silence before re-latching, 2 s by default.
    ///   - wallclockAtOrigin: the NTP time at the monotonic clock's origin.
    public init(
        cname: String? = nil, mediaTimeout: Duration? = nil, maximumDatagramSize: Int = 2048,
        relatchAfter: Duration? = .seconds(2), wallclockAtOrigin: NTPTimestamp = NTPTimestamp(rawValue: 0)
    ) {
        self.cname = cname
        self.mediaTimeout = mediaTimeout
        self.maximumDatagramSize = maximumDatagramSize
        self.relatchAfter = relatchAfter
        self.wallclockAtOrigin = wallclockAtOrigin
        jitterDelays = (.zero, .milliseconds(500), .milliseconds(60))
        rtcpSessionBandwidth = 64_000
        rtcpMinimumInterval = .standard
        opus = OpusConfiguration()
        toneDuration = 100
        toneGap = 100
        maximumCatchUp = 5
        queueCapacity = 64
    }
}
