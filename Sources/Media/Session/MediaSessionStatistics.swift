/// The figures of one ``MediaSession``: what the engine shows as call quality, and the drop counters that
/// explain a silent call.
public struct MediaSessionStatistics: Hashable, Sendable {
    /// RTP packets sent (audio and telephone-events).
    public var packetsSent = 0
    /// Their bytes, SRTP tags included.
    public var bytesSent = 0
    /// RTP packets of the current source counted by RFC 3550 A.1 (duplicates included, as in the RFC).
    public var packetsReceived = 0
    /// Bytes of the RTP datagrams received that decoded and authenticated.
    public var bytesReceived = 0
    /// Cumulative packets lost (RFC 3550 A.3): negative with duplicates.
    public var packetsLost = 0
    /// Packets expected from the current source (RFC 3550 A.3).
    public var expected = 0
    /// The interarrival jitter (RFC 3550 A.8) in milliseconds.
    public var jitterMilliseconds = 0.0
    /// The round-trip time from the latest report about us (RFC 3550 §6.4.1), in milliseconds.
    public var roundTripMilliseconds: Double?
    /// Packets that came after their playout time.
    public var lateDropped = 0
    /// Frames the decoder concealed.
    public var concealed = 0
    /// The current playout delay above the fastest packets' transit, in milliseconds.
    public var playoutDelayMilliseconds = 0.0
    /// SRTP and SRTCP packets that failed authentication or replay checks.
    public var srtpFailures = 0
    /// The sending codec's encoding name, once negotiated.
    public var codec: String?
    /// Digits queued for sending as telephone-events.
    public var dtmfSent = 0
    /// Digits received as telephone-events.
    public var dtmfReceived = 0
    /// RTCP compound packets sent and received.
    public var rtcpSent = 0
    /// RTCP compound packets received and decoded.
    public var rtcpReceived = 0
    /// Jumps of the peer's RTP clock the jitter buffer re-synchronised on.
    public var resynchronisations = 0

    /// Datagrams of each kind that arrived (RFC 7983).
    public var demultiplexed = MediaDemultiplexStatistics()
    /// Datagrams longer than the configured maximum, dropped.
    public var oversized = 0
    /// RTP or RTCP that did not decode (or RTP on the RTCP port), dropped.
    public var malformed = 0
    /// RTP or RTCP that arrived before any negotiation, dropped.
    public var unconfigured = 0
    /// RTP of a payload type not negotiated for receiving, dropped.
    public var unexpectedPayloadType = 0
    /// Authenticated packets from another address than the latched one (RFC 4961), dropped.
    public var rejectedSource = 0
    /// Audio received while not receiving (held, sendonly), dropped.
    public var notReceiving = 0
    /// Transmissions and events dropped because the driver left its queue full.
    public var queueOverflows = 0
    /// Packet intervals skipped because the driver advanced late by more than the catch-up allows.
    public var skippedTicks = 0

    /// Zero figures.
    public init() {}

    /// The share of expected packets lost, 0...1.
    public var lossFraction: Double { expected > 0 ? Double(max(0, packetsLost)) / Double(expected) : 0 }
}

/// The part of ``MediaSessionStatistics`` that tells a call's quality: what a driver that shows it after
/// every step reads, without the drop counters and the demultiplexer's tables the full figures copy.
public struct MediaSessionQuality: Hashable, Sendable {
    /// As ``MediaSessionStatistics/packetsSent``.
    public var packetsSent = 0
    /// As ``MediaSessionStatistics/packetsReceived``.
    public var packetsReceived = 0
    /// As ``MediaSessionStatistics/packetsLost``.
    public var packetsLost = 0
    /// As ``MediaSessionStatistics/expected``.
    public var expected = 0
    /// As ``MediaSessionStatistics/jitterMilliseconds``.
    public var jitterMilliseconds = 0.0
    /// As ``MediaSessionStatistics/playoutDelayMilliseconds``.
    public var playoutDelayMilliseconds = 0.0
    /// As ``MediaSessionStatistics/roundTripMilliseconds``.
    public var roundTripMilliseconds: Double?
    /// As ``MediaSessionStatistics/codec``.
    public var codec: String?

    /// Zero figures.
    public init() {}

    /// The quality part of `statistics`.
    public init(_ statistics: MediaSessionStatistics) {
        packetsSent = statistics.packetsSent
        packetsReceived = statistics.packetsReceived
        packetsLost = statistics.packetsLost
        expected = statistics.expected
        jitterMilliseconds = statistics.jitterMilliseconds
        playoutDelayMilliseconds = statistics.playoutDelayMilliseconds
        roundTripMilliseconds = statistics.roundTripMilliseconds
        codec = statistics.codec
    }
}

/// Counts per kind of what the RFC 7983 demultiplexer saw, and what it dropped for want of a handler.
public struct MediaDemultiplexStatistics: Hashable, Sendable {
    /// Datagrams that arrived, by kind.
    public private(set) var received: [MediaDatagramKind: Int] = [:]
    /// Datagrams dropped for want of a handler (STUN, DTLS, TURN ChannelData), or never handled (ZRTP,
    /// unknown first bytes), by kind.
    public private(set) var dropped: [MediaDatagramKind: Int] = [:]

    /// Zero counts.
    public init() {}

    mutating func count(_ kind: MediaDatagramKind, isDropped: Bool) {
        received[kind, default: 0] += 1
        if isDropped { dropped[kind, default: 0] += 1 }
    }
}
