import CAllocationCounter
import Foundation
import Media

// `--only media`: what one direction of an SRTP audio stream costs per packet, stage by stage, and how many
// bidirectional streams one core carries in real time over loopback UDP (MediaCapacityBenchmark.swift).
//
// Breakdown: one stream direction, 20 ms frames of a 1 kHz tone with a little noise, AES_CM_128_HMAC_SHA1_80;
// stages timed one after another over the same packets: encode, RTP packetize + serialize, SRTP protect,
// SRTP unprotect, RTP parse + receiver statistics, jitter buffer put + pull (arrivals 20 ms apart, a pull
// after each put), decode (or concealment, while the buffer fills). Warm-up one repetition, then
// `repetitions` runs of `packets` packets; min/median/max ns of thread CPU time (CLOCK_THREAD_CPUTIME_ID, so
// time other tasks take the core is not counted) per packet, and heap allocations per packet.

/// A codec of the media benchmark.
struct MediaBenchmarkCodec: Sendable {
    /// The RESULT name prefix (`pcmu-srtp`, `opus-srtp`).
    var name: String
    var kind: AudioCodecKind
    var payloadType: UInt8
    var clockRate: UInt32
    /// Samples per 20 ms frame (and RTP timestamp increment).
    var samples: Int

    static let pcmu = MediaBenchmarkCodec(
        name: "pcmu-srtp", kind: .pcmu, payloadType: 0, clockRate: 8000, samples: 160)
    static let opus = MediaBenchmarkCodec(
        name: "opus-srtp", kind: .opus, payloadType: 111, clockRate: 48000, samples: 960)

    /// The codecs `--view` names by prefix (`pcmu`, `opus`), both for `nil`.
    static func selected(by view: String?) -> [MediaBenchmarkCodec] {
        [pcmu, opus].filter { view == nil || $0.name.hasPrefix(view ?? "") }
    }

    /// Fifty 20 ms frames of a 1 kHz tone at -12 dBFS with ±64 of noise, so Opus does not code silence.
    func frames() -> [[Int16]] {
        var random = SystemRandomNumberGenerator()
        var tone = ToneSource(frequency: 1000, level: -12, format: AudioFormat(sampleRate: Int(clockRate)))
        return (0..<50).map { _ in
            (tone.read(samplesPerChannel: samples) ?? []).map {
                Int16(clamping: Int($0) + Int.random(in: -64...64, using: &random))
            }
        }
    }

    /// The jitter buffer the stack configures for this codec (defaults otherwise).
    var jitterConfiguration: JitterBufferConfiguration {
        JitterBufferConfiguration(clockRate: clockRate, frameSamples: UInt32(samples))
    }
}

/// One stage's figures.
struct MediaStage {
    var name: String
    var measurement: Measurement
    var allocationsPerPacket: Double
}

/// Random 30 bytes of SRTP master key and salt.
func randomMasterKeySalt() -> [UInt8] {
    var random = SystemRandomNumberGenerator()
    return (0..<30).map { _ in UInt8.random(in: 0...255, using: &random) }
}

/// Nanoseconds of a duration, as a Double.
func nanoseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
}

/// Times each stage of one stream direction.
/// - Returns: the stages in pipeline order.
func mediaBreakdown(_ codec: MediaBenchmarkCodec, packets: Int, repetitions: Int, srtp: SRTPBackend) throws
    -> [MediaStage]
{
    let pcm = codec.frames()
    var encoder = try codec.kind.makeEncoder()
    var decoder = try codec.kind.makeDecoder()
    var generator = SystemRandomNumberGenerator()
    var sender = RTPSender(payloadType: codec.payloadType, clockRate: codec.clockRate, using: &generator)
    let key = randomMasterKeySalt()
    let outbound = try srtp.make(key: key, direction: .outbound)
    let inbound = try srtp.make(key: key, direction: .inbound)
    var receiver = RTPReceiver(clockRate: codec.clockRate)
    var jitter = JitterBuffer(configuration: codec.jitterConfiguration)
    let increment = UInt32(codec.samples)

    let names = ["encode", "packetize", "protect", "unprotect", "parse-receive", "jitter-put-pull", "decode"]
    var samples = [[Double]](repeating: [], count: names.count)
    var allocations = [Double](repeating: 0, count: names.count)
    var payloads: [[UInt8]] = []
    var wire: [[UInt8]] = []
    var parsed: [RTPPacket] = []
    var outputs: [JitterBufferOutput] = []
    payloads.reserveCapacity(packets)
    wire.reserveCapacity(packets)
    parsed.reserveCapacity(packets)
    outputs.reserveCapacity(packets)
    var arrival = MediaInstant.zero
    var checksum = 0

    for repetition in 0...repetitions {
        payloads.removeAll(keepingCapacity: true)
        wire.removeAll(keepingCapacity: true)
        parsed.removeAll(keepingCapacity: true)
        outputs.removeAll(keepingCapacity: true)
        var stage = 0
        func timed(_ body: () throws -> Void) rethrows {
            let allocationsBefore = switchboard_allocation_count()
            let start = threadCPUSeconds()
            try body()
            let elapsed = threadCPUSeconds() - start
            let allocated = switchboard_allocation_count() - allocationsBefore
            if repetition > 0 {
                samples[stage].append(elapsed * 1e9 / Double(packets))
                allocations[stage] = Double(allocated) / Double(packets)
            }
            stage += 1
        }
        try timed {
            for i in 0..<packets { payloads.append(try encoder.encode(pcm[i % pcm.count])) }
        }
        try timed {
            for payload in payloads {
                wire.append(
                    try sender.packet(payload: payload, samples: increment)
                        .serialized(reservingCapacity: SRTPBackend.maximumTrailerLength))
            }
        }
        try timed {
            for i in wire.indices { try outbound.protect(&wire[i]) }
        }
        try timed {
            for i in wire.indices { try inbound.unprotect(&wire[i]) }
        }
        timed {
            var at = arrival
            for bytes in wire {
                guard let packet = try? RTPPacket(parsing: bytes) else { continue }
                if receiver.receive(packet, size: bytes.count, at: at).isPlayable { parsed.append(packet) }
                at = at + .milliseconds(20)
            }
        }
        timed {
            for packet in parsed {
                jitter.put(packet, at: arrival)
                outputs.append(jitter.pull(at: arrival))
                arrival = arrival + .milliseconds(20)
            }
        }
        timed {
            for output in outputs {
                switch output {
                case .frame(let frame):
                    checksum &+= (try? decoder.decode(frame.payload))?.count ?? 0
                case .missing(_, _, let next):
                    checksum &+= decoder.concealLoss(next: next?.payload).count
                case .expand:
                    checksum &+= decoder.concealLoss(next: nil).count
                case .idle, .silence:
                    break
                }
            }
        }
    }
    guard inbound.rtpStatistics.packets == UInt64(packets * (repetitions + 1)) else {
        throw MediaBenchmarkError("SRTP unprotected \(inbound.rtpStatistics.packets) packets")
    }
    blackHole(checksum)
    return names.indices.map {
        MediaStage(
            name: names[$0], measurement: Measurement(samples: samples[$0]), allocationsPerPacket: allocations[$0])
    }
}

/// Holds a jitter buffer in a stored property of a class, as an engine that keeps per-stream state in a
/// struct does.
final class JitterHolder {
    var jitter: JitterBuffer?
    init(_ jitter: JitterBuffer) { self.jitter = jitter }

    /// Put and pull the way `var current = stored; mutate current; stored = current` does: while the copy is
    /// mutated the stored value still shares its arrays, so each mutation copies them (copy-on-write).
    @inline(never)
    func putAndPull(_ packet: RTPPacket, at arrival: MediaInstant) -> JitterBufferOutput? {
        guard var current = jitter else { return nil }
        current.put(packet, at: arrival)
        jitter = current
        guard var again = jitter else { return nil }
        let output = again.pull(at: arrival)
        jitter = again
        return output
    }
}

/// Jitter buffer put + pull through ``JitterHolder`` (not part of the pipeline total).
func copiedJitterCost(_ codec: MediaBenchmarkCodec, packets: Int, repetitions: Int) -> MediaStage {
    var generator = SystemRandomNumberGenerator()
    var sender = RTPSender(payloadType: codec.payloadType, clockRate: codec.clockRate, using: &generator)
    let payload = [UInt8](repeating: 0x55, count: codec.kind == .opus ? 100 : 160)
    let holder = JitterHolder(JitterBuffer(configuration: codec.jitterConfiguration))
    var arrival = MediaInstant.zero
    var samples: [Double] = []
    var allocations = 0.0
    var checksum = 0
    for repetition in 0...repetitions {
        let parsed = (0..<packets).compactMap {
            _ in try? RTPPacket(parsing: sender.packet(payload: payload, samples: UInt32(codec.samples)).serialized())
        }
        let allocationsBefore = switchboard_allocation_count()
        let start = threadCPUSeconds()
        for packet in parsed {
            if case .frame(let frame)? = holder.putAndPull(packet, at: arrival) { checksum &+= frame.payload.count }
            arrival = arrival + .milliseconds(20)
        }
        let elapsed = threadCPUSeconds() - start
        if repetition > 0 {
            samples.append(elapsed * 1e9 / Double(packets))
            allocations = Double(switchboard_allocation_count() - allocationsBefore) / Double(packets)
        }
    }
    blackHole(checksum)
    return MediaStage(
        name: "jitter-put-pull-copied", measurement: Measurement(samples: samples), allocationsPerPacket: allocations)
}

/// SRTP protect + unprotect of a 172-byte G.711 packet with `streams` stream ends' sessions alive (an outbound
/// and an inbound session each), the packets spread over all of them as live streams spread theirs.
/// Debian's libsrtp2 does its crypto through NSS, whose per-packet cost grows with the number of keys alive;
/// the native backend's should not.
func srtpSessionScaling(streams: Int, packets: Int, repetitions: Int, srtp: SRTPBackend) throws -> Measurement {
    var generator = SystemRandomNumberGenerator()
    var ends: [(sender: RTPSender, outbound: any BenchmarkSRTP, inbound: any BenchmarkSRTP)] = []
    for _ in 0..<streams {
        let key = randomMasterKeySalt()
        ends.append(
            (
                RTPSender(payloadType: 0, clockRate: 8000, using: &generator),
                try srtp.make(key: key, direction: .outbound),
                try srtp.make(key: key, direction: .inbound)
            ))
    }
    let payload = [UInt8](repeating: 0x55, count: 160)
    let count = max(packets, 2 * streams)
    var samples: [Double] = []
    for repetition in 0...repetitions {
        var wire: [[UInt8]] = []
        wire.reserveCapacity(count)
        for i in 0..<count {
            wire.append(
                try ends[i % streams].sender.packet(payload: payload, samples: 160)
                    .serialized(reservingCapacity: SRTPBackend.maximumTrailerLength))
        }
        let start = threadCPUSeconds()
        for i in wire.indices {
            try ends[i % streams].outbound.protect(&wire[i])
            try ends[i % streams].inbound.unprotect(&wire[i])
        }
        let elapsed = threadCPUSeconds() - start
        if repetition > 0 { samples.append(elapsed * 1e9 / Double(count)) }
    }
    return Measurement(samples: samples)
}

/// A failure that stops the media benchmark.
struct MediaBenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs `--only media`: the per-packet breakdown of both codecs, then the capacity ramps.
/// - Parameters:
///   - packets: packets per repetition of the breakdown (G.711; Opus runs a quarter as many).
///   - repetitions: timed repetitions of the breakdown.
///   - seconds: measured seconds per step of the capacity ramp.
///   - only: `pcmu` or `opus` to run one codec (`--view`), `nil` for both.
///   - srtp: the SRTP backend (`--srtp`).
///   - keying: how the capacity ramp keys its pairs (`--keying`, `--suite`); the breakdown is SDES-keyed.
func runMediaBenchmark(
    packets: Int, repetitions: Int, seconds: Double, only: String?, srtp: SRTPBackend, keying: CapacityKeying
) {
    print("# switchboard media benchmark: one direction, 20 ms frames, SRTP AES_CM_128_HMAC_SHA1_80 (\(srtp.rawValue))")
    print("# columns: RESULT stack media name min_ns med_ns max_ns allocs_per_packet reps packets")
    var perStreamCompute: [String: Double] = [:]
    let codecs = MediaBenchmarkCodec.selected(by: only)
    for codec in codecs {
        let count = codec.kind == .opus ? max(50, packets / 4) : max(50, packets)
        do {
            let stages = try mediaBreakdown(codec, packets: count, repetitions: repetitions, srtp: srtp)
            var total = 0.0
            for stage in stages {
                let m = stage.measurement
                total += m.median
                let columns = [
                    "RESULT", "switchboard", "media", "\(codec.name)-ns-per-packet-\(stage.name)",
                    String(format: "%.0f", m.min), String(format: "%.0f", m.median), String(format: "%.0f", m.max),
                    String(format: "%.1f", stage.allocationsPerPacket), String(repetitions), String(count),
                ]
                print(columns.joined(separator: "\t"))
            }
            print(
                ["RESULT", "switchboard", "media", "\(codec.name)-ns-per-packet-total", String(format: "%.0f", total)]
                    .joined(separator: "\t"))
            perStreamCompute[codec.name] = total
            printBreakdownTable(codec, stages, total: total)
            let copied = copiedJitterCost(codec, packets: count, repetitions: repetitions)
            let m = copied.measurement
            let columns = [
                "RESULT", "switchboard", "media", "\(codec.name)-ns-per-packet-\(copied.name)",
                String(format: "%.0f", m.min), String(format: "%.0f", m.median), String(format: "%.0f", m.max),
                String(format: "%.1f", copied.allocationsPerPacket), String(repetitions), String(count),
            ]
            print(columns.joined(separator: "\t"))
            print(
                "#   (not in the total) jitter put+pull with the buffer copied out of a stored property and back, "
                    + "as Switchboard's MediaStream holds it: \(String(format: "%.0f", m.median)) ns, "
                    + "\(String(format: "%.1f", copied.allocationsPerPacket)) allocs per packet")
            print("#")
        } catch {
            print("# \(codec.name) breakdown failed: \(error)")
        }
    }
    if codecs.contains(where: { $0.kind == .pcmu }) {
        print("# SRTP protect + unprotect per packet (ns) against the number of stream ends alive (2 sessions each)")
        for streams in [1, 100, 500, 1000] {
            do {
                let m = try srtpSessionScaling(streams: streams, packets: 2000, repetitions: 5, srtp: srtp)
                let columns = [
                    "RESULT", "switchboard", "media", "srtp-ns-per-packet-protect-unprotect-streams-\(streams)",
                    String(format: "%.0f", m.min), String(format: "%.0f", m.median), String(format: "%.0f", m.max),
                ]
                print(columns.joined(separator: "\t"))
            } catch {
                print("# SRTP scaling at \(streams) streams failed: \(error)")
            }
        }
    }
    runMediaCapacity(codecs, seconds: seconds, perStreamCompute: perStreamCompute, srtp: srtp, keying: keying)
}

private func printBreakdownTable(_ codec: MediaBenchmarkCodec, _ stages: [MediaStage], total: Double) {
    print("#")
    print("# \(codec.name): one direction, ns per packet (median of runs; min-max), allocations per packet")
    for stage in stages {
        let m = stage.measurement
        let share = total > 0 ? 100 * m.median / total : 0
        print(
            "#   "
                + stage.name.padding(toLength: 16, withPad: " ", startingAt: 0)
                + String(
                    format: "%9.0f ns  (%6.0f-%6.0f)  %5.1f%%  %4.1f allocs", m.median, m.min, m.max, share,
                    stage.allocationsPerPacket))
    }
    // A bidirectional stream sends one packet and receives one every 20 ms: the whole pipeline once.
    print(
        "#   "
            + "total".padding(toLength: 16, withPad: " ", startingAt: 0)
            + String(
                format: "%9.0f ns  -> compute alone bounds one core at %.0f bidirectional streams (no I/O)", total,
                20e6 / max(total, 1)))
}
