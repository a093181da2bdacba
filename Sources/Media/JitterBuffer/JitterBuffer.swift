/// An adaptive jitter buffer for one audio stream (sans-I/O): packets go in with their arrival time, and the
/// decoder pulls one frame per frame interval with the time of the pull.
///
/// - The playout delay follows the measured jitter: the target is a high quantile of recent transit times
///   above the fastest (see ``JitterBufferConfiguration/quantile``), within the configured minimum and
///   maximum. The buffer moves towards it one frame at a time: it drops a frame when the delay is a frame
///   or more above the target and stretches (``JitterBufferOutput/expand``) when it is more than half a
///   frame below (the band between is hysteresis); in DTX silences it adjusts for free.
/// - Reordered packets are sorted; duplicates are dropped; packets that come after their playout time are
///   dropped and counted as late.
/// - A frame missing at its playout time becomes ``JitterBufferOutput/missing(timestamp:sequenceNumber:next:)``
///   for the decoder's PLC, with the next packet when it is there for FEC.
/// - Clock drift: the transit base is a sliding-window minimum, so a sender clock slightly fast or slow
///   moves the target with it and the buffer neither grows nor starves.
/// - A new SSRC, or a jump of the timestamp against arrival time beyond 5 s, restarts the timeline; but a
///   source that jumps its RTP clock and keeps its sequence numbers running is re-synchronised instead (see
///   ``JitterBufferStatistics/resynchronisations``): the frames after the jump follow those before it.
public struct JitterBuffer: Sendable {
    struct Entry: Sendable {
        var timestamp: Int64
        var sequence: Int64
        var frame: JitterBufferFrame
    }

    enum State: Sendable {
        /// Waiting for the head packet to have waited long enough.
        case buffering
        /// Playing; `next` is the extended timestamp of the next frame to play.
        case playing
    }

    /// The configuration.
    public let configuration: JitterBufferConfiguration
    var statisticsStorage = JitterBufferStatistics()
    var entries: [Entry] = []
    var state = State.buffering
    /// The extended timestamp of the next frame to play; packets before it are late. `nil` before the first.
    var next: Int64?
    var lastPlayedSequence: Int64?
    var ssrc: UInt32?
    var timeline = TimestampTimeline()
    var sequences = SequenceWindow()
    var estimator: DelayEstimator
    var frameSamples: Int64
    var consecutiveLate = 0
    var lastArrival: (sequence: Int64, timestamp: Int64, time: MediaInstant)?
    /// Consecutive pulls that found the buffer empty.
    var emptyPulls = 0
    /// Empty pulls after which the sender is taken to have paused (DTX without packets, hold).
    static let pauseAfter = 5
    /// The transit base at the latest pull, for pulls after a silence longer than the estimator's window.
    var lastBase: Double?

    /// A timestamp that jumps against arrival time by more than this restarts the timeline (nanoseconds).
    static let discontinuity = 5e9
    /// The largest ``JitterBufferConfiguration/maximumDelay`` honoured.
    static let delayLimit = Duration.seconds(10)

    /// A duration of `nanoseconds`, clamped to ±10¹⁸ (NaN is zero), so no arithmetic on received
    /// timestamps can trap in the conversion.
    static func duration(nanoseconds: Double) -> Duration {
        guard !nanoseconds.isNaN else { return .zero }
        return .nanoseconds(Int64(min(max(nanoseconds, -1e18), 1e18)))
    }

    /// - Parameter configuration: the clock rate, frame size and delay bounds.
    public init(configuration: JitterBufferConfiguration) {
        var configuration = configuration
        configuration.clockRate = max(configuration.clockRate, 1)
        configuration.frameSamples = max(configuration.frameSamples, 1)
        configuration.capacity = max(configuration.capacity, 2)
        configuration.maximumDelay = min(max(configuration.maximumDelay, .zero), JitterBuffer.delayLimit)
        configuration.minimumDelay = min(max(configuration.minimumDelay, .zero), configuration.maximumDelay)
        configuration.initialDelay = min(max(configuration.initialDelay, .zero), configuration.maximumDelay)
        if !(configuration.quantile >= 0.5 && configuration.quantile <= 1) { configuration.quantile = 0.99 }
        configuration.memory = min(max(configuration.memory, 2), 1_000_000)
        self.configuration = configuration
        frameSamples = Int64(configuration.frameSamples)
        estimator = DelayEstimator(
            maximum: Double(configuration.maximumDelay.nanoseconds), memory: configuration.memory)
    }

    /// The counters, and the depth and delays now.
    public var statistics: JitterBufferStatistics {
        var statistics = statisticsStorage
        statistics.depth = entries.count
        if let next, let last = entries.last {
            statistics.bufferedDuration = JitterBuffer.duration(
                nanoseconds: nanoseconds(samples: last.timestamp + frameSamples - next))
        }
        statistics.targetDelay = JitterBuffer.duration(nanoseconds: targetDelay)
        return statistics
    }

    /// The duration of one frame as the traffic shows it: pull once per frame duration.
    public var frameDuration: Duration { JitterBuffer.duration(nanoseconds: nanoseconds(samples: frameSamples)) }

    /// Takes a received packet.
    /// - Parameters:
    ///   - packet: the packet (after SRTP unprotection and the receiver's checks).
    ///   - arrival: when it arrived.
    /// - Returns: whether it was buffered, or dropped as duplicate or late.
    @discardableResult
    public mutating func put(_ packet: RTPPacket, at arrival: MediaInstant) -> JitterBufferPutResult {
        if ssrc != packet.ssrc {
            if ssrc != nil { reset() }
            ssrc = packet.ssrc
        }
        statisticsStorage.received += 1
        let sequence = sequences.extend(packet.sequenceNumber)
        var timestamp = timeline.position(of: packet.timestamp, sequence: sequence)
        if let position = resynchronisation(of: timestamp, sequence: sequence, at: arrival, marker: packet.marker) {
            timeline.resynchronise(packet.timestamp, sequence: sequence, at: position)
            timestamp = position
            statisticsStorage.resynchronisations += 1
        }
        let transit = Double(arrival.nanoseconds) - mediaTime(timestamp)
        let isDiscontinuous = estimator.base(at: arrival.nanoseconds).map {
            (transit - $0).magnitude > JitterBuffer.discontinuity
        }
        switch sequences.insert(sequence) {
        case .new:
            break
        case .duplicate:
            statisticsStorage.duplicates += 1
            return .duplicate
        case .tooOld:
            guard isDiscontinuous == true || next.map({ timestamp >= $0 }) == true else {
                statisticsStorage.late += 1
                return .late
            }
            // Far behind in sequence yet not in time (or far off in time): the sender restarted.
            restart(with: packet, at: arrival)
            return .buffered
        }
        if isDiscontinuous == true {
            restart(with: packet, at: arrival)
            return .buffered
        }
        estimator.add(transit: transit, arrival: arrival.nanoseconds)
        learnFrameSize(sequence: sequence, timestamp: timestamp, arrival: arrival)
        if emptyPulls > JitterBuffer.pauseAfter, let next, nanoseconds(samples: next - timestamp) > 1e9 {
            // Nothing plays and the packet is more than a second behind: the sender paused and kept its
            // timestamps (or the path stalled that long). Anchor the playout on its packets afresh.
            self.next = nil
            state = .buffering
        }
        if let next, timestamp < next {
            statisticsStorage.late += 1
            consecutiveLate += 1
            // A stream whose every packet is late has jumped back in time: start over with it.
            if consecutiveLate > 50 { restart(with: packet, at: arrival) }
            return .late
        }
        consecutiveLate = 0
        let frame = JitterBufferFrame(
            sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, payloadType: packet.payloadType,
            marker: packet.marker, payload: packet.payload)
        insert(Entry(timestamp: timestamp, sequence: sequence, frame: frame))
        return .buffered
    }

    /// Forgets every packet and estimate (a new stream).
    public mutating func reset() {
        let statistics = statisticsStorage
        self = JitterBuffer(configuration: configuration)
        statisticsStorage = statistics
        statisticsStorage.resets += 1
    }

    /// Nanoseconds of `samples` media clock units.
    func nanoseconds(samples: Int64) -> Double { Double(samples) * 1e9 / Double(configuration.clockRate) }

    /// The target delay above the transit base in nanoseconds.
    var targetDelay: Double {
        var target = estimator.jitter(quantile: configuration.quantile)
        if estimator.samples < 50 { target = max(target, Double(configuration.initialDelay.nanoseconds)) }
        return min(
            max(target, Double(configuration.minimumDelay.nanoseconds)), Double(configuration.maximumDelay.nanoseconds))
    }

    private mutating func restart(with packet: RTPPacket, at arrival: MediaInstant) {
        reset()
        statisticsStorage.received -= 1
        ssrc = packet.ssrc
        put(packet, at: arrival)
    }

    /// The samples per packet, from consecutive sequence numbers (a ptime other than the configured one).
    private mutating func learnFrameSize(sequence: Int64, timestamp: Int64, arrival: MediaInstant) {
        defer { lastArrival = (sequence, timestamp, arrival) }
        guard let lastArrival, sequence == lastArrival.sequence + 1 else { return }
        let samples = timestamp - lastArrival.timestamp
        if samples > 0 && Double(samples) <= Double(configuration.clockRate) / 5 { frameSamples = samples }
    }

    private mutating func insert(_ entry: Entry) {
        var index = entries.endIndex
        while index > entries.startIndex && entries[index - 1].timestamp > entry.timestamp { index -= 1 }
        if index > entries.startIndex && entries[index - 1].timestamp == entry.timestamp {
            statisticsStorage.duplicates += 1
            return
        }
        entries.insert(entry, at: index)
        if entries.count > configuration.capacity {
            entries.removeFirst()
            statisticsStorage.overflows += 1
        }
    }
}
