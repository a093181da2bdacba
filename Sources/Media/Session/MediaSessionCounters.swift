/// What a ``MediaSession`` counts itself, kept compact: it lives in every stream for the whole call, while
/// ``MediaSessionStatistics`` (machine words and the receive side's figures) is made when asked for.
/// Counters wrap instead of trapping: a flood of bad datagrams must not stop the process.
@usableFromInline
struct MediaSessionCounters {
    var bytesSent: UInt64 = 0
    var bytesReceived: UInt64 = 0
    var packetsSent: UInt32 = 0
    var lateDropped: UInt32 = 0
    var concealed: UInt32 = 0
    var srtpFailures: UInt32 = 0
    var dtmfSent: UInt32 = 0
    var dtmfReceived: UInt32 = 0
    var rtcpSent: UInt32 = 0
    var rtcpReceived: UInt32 = 0
    var oversized: UInt32 = 0
    var malformed: UInt32 = 0
    var unconfigured: UInt32 = 0
    var unexpectedPayloadType: UInt32 = 0
    var rejectedSource: UInt32 = 0
    var notReceiving: UInt32 = 0
    @usableFromInline var queueOverflows: UInt32 = 0
    var skippedTicks: UInt64 = 0
    var codec: String?
    var demultiplexed = MediaDemultiplexStatistics()

    /// The counters as public figures (the receive side's are the caller's to add).
    var figures: MediaSessionStatistics {
        var figures = MediaSessionStatistics()
        figures.packetsSent = Int(packetsSent)
        figures.bytesSent = Int(truncatingIfNeeded: bytesSent)
        figures.bytesReceived = Int(truncatingIfNeeded: bytesReceived)
        figures.lateDropped = Int(lateDropped)
        figures.concealed = Int(concealed)
        figures.srtpFailures = Int(srtpFailures)
        figures.codec = codec
        figures.dtmfSent = Int(dtmfSent)
        figures.dtmfReceived = Int(dtmfReceived)
        figures.rtcpSent = Int(rtcpSent)
        figures.rtcpReceived = Int(rtcpReceived)
        figures.demultiplexed = demultiplexed
        figures.oversized = Int(oversized)
        figures.malformed = Int(malformed)
        figures.unconfigured = Int(unconfigured)
        figures.unexpectedPayloadType = Int(unexpectedPayloadType)
        figures.rejectedSource = Int(rejectedSource)
        figures.notReceiving = Int(notReceiving)
        figures.queueOverflows = Int(queueOverflows)
        figures.skippedTicks = Int(truncatingIfNeeded: skippedTicks)
        return figures
    }
}
