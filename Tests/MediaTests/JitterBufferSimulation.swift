import Foundation
import Media

/// A virtual-time run of one 8 kHz, 20 ms stream through a jitter buffer: the sender emits a frame every
/// 20 ms of its own clock (which may drift), each packet takes the network delay the trace gives (or is
/// lost), and the decoder pulls every 20 ms of the receiver's clock.
struct JitterBufferSimulation {
    struct Result {
        var statistics: JitterBufferStatistics
        var outputs: [JitterBufferOutput] = []
        /// Per played frame: the time from the packet's earliest possible arrival (send time plus the
        /// trace's minimum delay) to its playout, in milliseconds, with the send time of the frame.
        var playoutDelays: [(sent: Double, delay: Double)] = []
        /// Packets held, sampled at every pull, with the pull's time in seconds.
        var depths: [(time: Double, depth: Int)] = []
        /// The statistics at the start of every virtual second (index 0 is the first pull).
        var snapshots: [JitterBufferStatistics] = []
        var packetsSent = 0
        var packetsDelivered = 0
    }

    var seconds = 60.0
    /// The sender's clock rate relative to the receiver's: 1.001 is 0.1 % fast.
    var senderClockRate = 1.0
    var configuration = JitterBufferConfiguration(clockRate: 8000, frameSamples: 160)
    /// The one-way network delay of packet `i` in milliseconds, or `nil` when it is lost.
    var delay: (Int) -> Double?

    func run() -> Result {
        var buffer = JitterBuffer(configuration: configuration)
        var sender = RTPSender(
            ssrc: 0x5EED, firstSequenceNumber: 65000, firstTimestamp: 0xFFFF_0000, payloadType: 0, clockRate: 8000)
        var result = Result(statistics: JitterBufferStatistics())
        let count = Int(seconds * 50)
        var arrivals: [(time: Double, packet: RTPPacket, sent: Double)] = []
        var minimumDelay = Double.infinity
        var sendTimes: [UInt32: Double] = [:]
        for i in 0..<count {
            let sent = Double(i) * 20 / senderClockRate
            let packet = sender.packet(payload: [UInt8(truncatingIfNeeded: i)], samples: 160)
            sendTimes[packet.timestamp] = sent
            result.packetsSent += 1
            guard let delay = delay(i) else { continue }
            minimumDelay = min(minimumDelay, delay)
            arrivals.append((sent + delay, packet, sent))
        }
        arrivals.sort { $0.time < $1.time }
        result.packetsDelivered = arrivals.count
        var next = 0
        var pull = 7.0  // the receiver's 20 ms grid is not aligned with the sender's
        while pull < seconds * 1000 + 1000 {
            while next < arrivals.count && arrivals[next].time <= pull {
                buffer.put(arrivals[next].packet, at: MediaInstant(nanoseconds: Int64(arrivals[next].time * 1e6)))
                next += 1
            }
            let output = buffer.pull(at: MediaInstant(nanoseconds: Int64(pull * 1e6)))
            result.outputs.append(output)
            if case .frame(let frame) = output, let sent = sendTimes[frame.timestamp] {
                result.playoutDelays.append((sent, pull - sent - minimumDelay))
            }
            result.depths.append((pull / 1000, buffer.statistics.depth))
            if result.depths.count % 50 == 1 { result.snapshots.append(buffer.statistics) }
            pull += 20
        }
        result.statistics = buffer.statistics
        return result
    }
}

/// The jitter traces of the adaptation tests, seeded. Per packet, the one-way delay in milliseconds is
///
///     40 + max(0, N(10, 4²))                       normal jitter, always
///        + Pareto(x_m = 5, α = 2.5)               with probability 3 % (heavy-tailed single spikes)
///        + burst(t)                                during congestion bursts
///
/// where a burst adds a queueing delay that jumps to U(60, 120) ms and drains linearly over U(200, 400) ms
/// (later packets of the burst wait less). Bursts start either every 5 s (`periodic`: the trace is
/// stationary, so its 99th percentile describes any stretch of it) or with probability 0.2 % at each packet
/// (`random`, a Poisson process: bursts sometimes cluster). Delays are otherwise independent, so packets
/// reorder when the delay drops by more than 20 ms between neighbours.
struct JitterTrace {
    enum Bursts {
        case periodic
        case random
    }

    var delays: [Double] = []

    init(packets: Int, seed: UInt64, bursts: Bursts = .periodic) {
        var generator = SeededGenerator(seed: seed)
        var burstRemaining = 0.0
        var burstHeight = 0.0
        var burstDrain = 0.0
        let phase = Int.random(in: 0..<250, using: &generator)
        for index in 0..<packets {
            var delay = 40 + max(0, 10 + 4 * generator.normal())
            if Double.random(in: 0..<1, using: &generator) < 0.03 {
                let u = Double.random(in: Double.ulpOfOne..<1, using: &generator)
                delay += 5 / pow(u, 1 / 2.5)
            }
            let starts: Bool
            switch bursts {
            case .periodic: starts = (index + phase) % 250 == 0
            case .random: starts = burstRemaining <= 0 && Double.random(in: 0..<1, using: &generator) < 0.002
            }
            if starts {
                burstHeight = Double.random(in: 60...120, using: &generator)
                burstDrain = Double.random(in: 200...400, using: &generator)
                burstRemaining = burstDrain
            }
            if burstRemaining > 0 {
                delay += burstHeight * burstRemaining / burstDrain
                burstRemaining -= 20
            }
            delays.append(delay)
        }
    }

    /// The p-th percentile of the delay above the trace's minimum, in milliseconds.
    func jitterPercentile(_ p: Double) -> Double {
        let minimum = delays.min() ?? 0
        let sorted = delays.map { $0 - minimum }.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(Int(Double(sorted.count) * p), sorted.count - 1)]
    }
}
