import Foundation
import Media
import SDP
import SIPTransport
import Synchronization

// Real-time capacity of one event loop (one thread; run the process under `taskset -c 1`): N bidirectional
// SRTP audio streams, each the media of one call end as the stack runs it, in N/2 pairs over loopback UDP
// (one socket per stream end, rtcp-mux style). Every stream sends a packet every 20 ms, paced by a
// deadline-based timer on the monotonic clock (encode, packetize, protect, send), and on each tick pulls
// its jitter buffer and decodes (or conceals); arrivals are received, unprotected, parsed, counted by the
// receiver statistics and put in the jitter buffer. Starts are spread over the 20 ms frame.
//
// Each step runs 1 s of warm-up and then `seconds` measured: the loop thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID, user + kernel: the loopback send path delivers to the receiving socket in the
// sender's context) against wall time, ticks that ran more than 10 ms late, packet loss, and the time the
// thread waited for the core while other tasks ran (/proc/thread-self/schedstat: the machines are shared).
// A step is real time when busy <= 90 %, late ticks <= 1 % and loss <= 1 % ("yes"); "contended" when the
// load (CPU per tick x ticks due) is <= 90 % and loss <= 1 % but ticks ran late while other tasks held the
// core. The ramp starts small, predicts the capacity from the CPU per tick and closes in on it; it stops at
// the first step that is neither.

/// The outcome of one capacity step.
struct CapacityResult: Sendable {
    var streams = 0
    var wallSeconds = 0.0
    var cpuSeconds = 0.0
    /// Time the loop thread was runnable but another task had the core (`/proc/thread-self/schedstat`).
    var waitSeconds = 0.0
    var ticks = 0
    var lateTicks = 0
    var maximumLateness = 0.0  // ms
    var sent = 0
    var received = 0
    var srtpFailures = 0
    var played = 0
    var concealed = 0
    /// DTLS handshakes run before the step (one per pair, both ends in this thread) and their thread CPU.
    var handshakes = 0
    var handshakeCPUSeconds = 0.0
    var failure: String?

    var busy: Double { wallSeconds > 0 ? cpuSeconds / wallSeconds : 1 }
    var lateFraction: Double { ticks > 0 ? Double(lateTicks) / Double(ticks) : 1 }
    var lossFraction: Double { sent > 0 ? max(0, Double(sent - received)) / Double(sent) : 1 }
    /// Real time by the strict test: busy <= 90 %, late ticks <= 1 %, loss <= 1 %.
    var isRealTime: Bool {
        failure == nil && ticks > 0 && busy <= 0.9 && lateFraction <= 0.01 && lossFraction <= 0.01
    }
    /// Real time with the core to ourselves: the load (the CPU the streams need per wall second) <= 90 % and
    /// loss <= 1 %, with late ticks either <= 1 % or explained by other tasks holding the core (>= 5 % of the
    /// wall time waiting for it). On a shared machine this tells our cost from our neighbours'.
    var isRealTimeUncontended: Bool {
        failure == nil && ticks > 0 && load <= 0.9 && lossFraction <= 0.01 && (lateFraction <= 0.01 || stolen >= 0.05)
    }
    /// The share of the wall time other tasks kept the loop thread off the core.
    var stolen: Double { wallSeconds > 0 ? waitSeconds / wallSeconds : 0 }
    /// CPU seconds per 20 ms stream tick (send one packet, receive one, play one frame, and the loop's share).
    var cpuPerTick: Double { ticks > 0 ? cpuSeconds / Double(ticks) : 0 }
    /// The share of one core `streams` need when every tick runs (robust to other tasks taking the core).
    var load: Double { cpuPerTick * 50 * Double(streams) }
    /// Streams that would keep one core 90 % busy, at this step's CPU per tick.
    var extrapolated: Int { cpuPerTick > 0 ? Int(0.9 / (cpuPerTick * 50)) : 0 }
}

/// Where the loop hands a result to the main thread.
final class LoopOutcome<Value: Sendable>: Sendable {
    let value = Mutex<Value?>(nil)
}

typealias CapacityOutcome = LoopOutcome<CapacityResult>

/// One stream end: its socket, codec state, SRTP sessions, receiver statistics and jitter buffer. Lives on
/// the loop thread only.
final class CapacityStream {
    let socket: DatagramSocket
    var peer: SocketAddress
    var encoder: any AudioEncoder
    var decoder: any AudioDecoder
    var sender: RTPSender
    var receiver: RTPReceiver
    var jitter: JitterBuffer
    let outbound: any BenchmarkSRTP
    let inbound: any BenchmarkSRTP
    let pcm: [[Int16]]
    let increment: UInt32
    let clock = SystemMediaClock()
    var receiveBuffer = [UInt8](repeating: 0, count: 1500)
    var deadline: MediaInstant
    var frame = 0
    var isStopped = false
    weak var loop: EventLoop?

    // Counters of the measured window.
    var ticks = 0
    var lateTicks = 0
    var maximumLateness: Int64 = 0
    var sent = 0
    var received = 0
    var srtpFailures = 0
    var played = 0
    var concealed = 0
    var checksum = 0

    init(
        codec: MediaBenchmarkCodec, pcm: [[Int16]], socket: DatagramSocket, suite: CryptoSuite, sendKey: [UInt8],
        receiveKey: [UInt8], firstDeadline: MediaInstant, srtp: SRTPBackend
    ) throws {
        self.socket = socket
        self.peer = socket.localAddress
        encoder = try codec.kind.makeEncoder()
        decoder = try codec.kind.makeDecoder()
        var generator = SystemRandomNumberGenerator()
        sender = RTPSender(payloadType: codec.payloadType, clockRate: codec.clockRate, using: &generator)
        receiver = RTPReceiver(clockRate: codec.clockRate)
        jitter = JitterBuffer(configuration: codec.jitterConfiguration)
        outbound = try srtp.make(suite: suite, key: sendKey, direction: .outbound)
        inbound = try srtp.make(suite: suite, key: receiveKey, direction: .inbound)
        self.pcm = pcm
        increment = UInt32(codec.samples)
        deadline = firstDeadline
        frame = Int.random(in: 0..<pcm.count)
    }

    func start(on loop: EventLoop) throws {
        self.loop = loop
        try socket.watch(on: loop) { [weak self] in self?.readable() }
        schedule()
    }

    func stop() {
        isStopped = true
        socket.close()
    }

    func resetCounters() {
        ticks = 0
        lateTicks = 0
        maximumLateness = 0
        sent = 0
        received = 0
        srtpFailures = 0
        played = 0
        concealed = 0
    }

    private func schedule() {
        guard !isStopped, let loop else { return }
        let wait = deadline - clock.now()
        loop.scheduleTimer(after: max(.zero, wait)) { [weak self] in self?.tick() }
    }

    private func tick() {
        guard !isStopped else { return }
        let now = clock.now()
        let lateness = now.nanoseconds - deadline.nanoseconds
        ticks += 1
        if lateness > 10_000_000 { lateTicks += 1 }
        maximumLateness = max(maximumLateness, lateness)
        send()
        play(at: now)
        deadline = deadline + .milliseconds(20)
        schedule()
    }

    private func send() {
        frame = frame + 1 == pcm.count ? 0 : frame + 1
        guard let payload = try? encoder.encode(pcm[frame]),
            var bytes = try? sender.packet(payload: payload, samples: increment)
                .serialized(reservingCapacity: SRTPBackend.maximumTrailerLength),
            (try? outbound.protect(&bytes)) != nil
        else { return }
        if socket.send(bytes, to: peer) { sent += 1 }
    }

    private func play(at now: MediaInstant) {
        switch jitter.pull(at: now) {
        case .frame(let frame):
            if let pcm = try? decoder.decode(frame.payload) {
                played += 1
                checksum &+= Int(pcm[0])
            } else {
                concealed += 1
                checksum &+= decoder.concealLoss(next: nil).count
            }
        case .missing(_, _, let next):
            concealed += 1
            checksum &+= decoder.concealLoss(next: next?.payload).count
        case .expand:
            concealed += 1
            checksum &+= decoder.concealLoss(next: nil).count
        case .idle, .silence:
            break
        }
    }

    private func readable() {
        for _ in 0..<16 {
            guard let (count, _) = socket.receive(into: &receiveBuffer) else { return }
            guard count > 0, count <= receiveBuffer.count else { continue }
            var bytes = Array(receiveBuffer[0..<count])
            guard (try? inbound.unprotect(&bytes)) != nil else {
                srtpFailures += 1
                continue
            }
            guard let packet = try? RTPPacket(parsing: bytes) else { continue }
            received += 1
            let now = clock.now()
            if receiver.receive(packet, size: count, at: now).isPlayable { jitter.put(packet, at: now) }
        }
    }
}

/// One step of the ramp: builds the streams on the loop, warms up, measures, tears down.
final class CapacityRun {
    let streams: [CapacityStream]
    let outcome: CapacityOutcome
    var cpuStart = 0.0
    var waitStart = 0.0
    var wallStart = MediaInstant.zero
    var handshakes = 0
    var handshakeCPUSeconds = 0.0

    init(streams: [CapacityStream], outcome: CapacityOutcome) {
        self.streams = streams
        self.outcome = outcome
    }

    /// Sets up `count` streams (`count / 2` pairs, each keyed from `keys`) on `loop` and runs them; call on the
    /// loop.
    static func launch(
        codec: MediaBenchmarkCodec, pcm: [[Int16]], count: Int, warmUp: Duration, measured: Duration,
        loop: EventLoop, outcome: CapacityOutcome, srtp: SRTPBackend, keys: CapacityKeySource
    ) {
        let clock = SystemMediaClock()
        var streams: [CapacityStream] = []
        var handshakeCPU = 0.0
        let pairs = count / 2
        do {
            // DTLS handshakes first, so that they end before the first deadline.
            let handshakeStart = threadCPUSeconds()
            let pairKeys = try (0..<pairs).map { _ in try keys.pairKeys() }
            handshakeCPU = threadCPUSeconds() - handshakeStart
            let origin = clock.now() + .milliseconds(100)
            for (pair, (keyA, keyB)) in pairKeys.enumerated() {
                let a = try DatagramSocket(binding: .loopback())
                let b = try DatagramSocket(binding: .loopback())
                // Spread the starts over the 20 ms frame, the two ends of a pair half a frame apart.
                let offset = Int64(20_000_000) * Int64(pair) / Int64(max(pairs, 1))
                let first = MediaInstant(nanoseconds: origin.nanoseconds + offset)
                let second = MediaInstant(nanoseconds: origin.nanoseconds + (offset + 10_000_000) % 20_000_000)
                let endA = try CapacityStream(
                    codec: codec, pcm: pcm, socket: a, suite: keys.cryptoSuite, sendKey: keyA, receiveKey: keyB,
                    firstDeadline: first, srtp: srtp)
                let endB = try CapacityStream(
                    codec: codec, pcm: pcm, socket: b, suite: keys.cryptoSuite, sendKey: keyB, receiveKey: keyA,
                    firstDeadline: second, srtp: srtp)
                endA.peer = b.localAddress
                endB.peer = a.localAddress
                streams += [endA, endB]
            }
            for stream in streams { try stream.start(on: loop) }
        } catch {
            for stream in streams { stream.stop() }
            outcome.value.withLock { $0 = CapacityResult(streams: count, failure: "setup: \(error)") }
            return
        }
        let run = CapacityRun(streams: streams, outcome: outcome)
        if keys.isDTLS {
            run.handshakes = pairs
            run.handshakeCPUSeconds = handshakeCPU
        }
        loop.scheduleTimer(after: warmUp + .milliseconds(100)) { run.begin() }
        loop.scheduleTimer(after: warmUp + .milliseconds(100) + measured) { run.finish() }
    }

    private func begin() {
        for stream in streams { stream.resetCounters() }
        cpuStart = threadCPUSeconds()
        waitStart = threadWaitSeconds()
        wallStart = SystemMediaClock().now()
    }

    private func finish() {
        let cpu = threadCPUSeconds() - cpuStart
        let wait = threadWaitSeconds() - waitStart
        let wall = nanoseconds(SystemMediaClock().now() - wallStart) / 1e9
        var result = CapacityResult(streams: streams.count, wallSeconds: wall, cpuSeconds: cpu, waitSeconds: wait)
        result.handshakes = handshakes
        result.handshakeCPUSeconds = handshakeCPUSeconds
        var checksum = 0
        for stream in streams {
            result.ticks += stream.ticks
            result.lateTicks += stream.lateTicks
            result.maximumLateness = max(result.maximumLateness, Double(stream.maximumLateness) / 1e6)
            result.sent += stream.sent
            result.received += stream.received
            result.srtpFailures += stream.srtpFailures
            result.played += stream.played
            result.concealed += stream.concealed
            checksum &+= stream.checksum
            stream.stop()
        }
        blackHole(checksum)
        outcome.value.withLock { $0 = result }
    }
}

/// The calling thread's CPU time (user + system) in seconds.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The calling thread's time spent runnable on a run queue while another task ran, in seconds (the second
/// field of `/proc/thread-self/schedstat`; 0 when the kernel does not provide it).
func threadWaitSeconds() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/thread-self/schedstat", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count >= 2, let nanoseconds = Double(fields[1]) else { return 0 }
    return nanoseconds / 1e9
}

/// Raises the soft descriptor limit to the hard one (each stream end holds a socket).
/// - Returns: the soft limit now.
func raiseDescriptorLimit() -> UInt64 {
    var limit = rlimit()
    guard getrlimit(RLIMIT_NOFILE_RESOURCE, &limit) == 0 else { return 0 }
    if limit.rlim_cur < limit.rlim_max {
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(RLIMIT_NOFILE_RESOURCE, &limit)
        _ = getrlimit(RLIMIT_NOFILE_RESOURCE, &limit)
    }
    return UInt64(limit.rlim_cur)
}

let RLIMIT_NOFILE_RESOURCE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)

/// Runs one step on `loop` and waits for it.
func runCapacityStep(
    _ codec: MediaBenchmarkCodec, pcm: [[Int16]], streams: Int, seconds: Double, loop: EventLoop, srtp: SRTPBackend,
    keys: CapacityKeySource
) -> CapacityResult {
    let outcome = CapacityOutcome()
    let warmUp = Duration.seconds(1)
    let measured = Duration.milliseconds(Int64(seconds * 1000))
    loop.execute {
        CapacityRun.launch(
            codec: codec, pcm: pcm, count: streams, warmUp: warmUp, measured: measured, loop: loop, outcome: outcome,
            srtp: srtp, keys: keys)
    }
    // Bounded wait: the step's own time plus a generous margin for an overloaded loop (and 10 ms a handshake).
    let deadline = Date().addingTimeInterval(seconds + 1 + 30 + (keys.isDTLS ? 0.005 * Double(streams) : 0))
    while Date() < deadline {
        if let result = outcome.value.withLock({ $0 }) { return result }
        usleep(100_000)
    }
    return CapacityResult(streams: streams, failure: "no result within the time limit")
}

/// The capacity ramps of both codecs, with RESULT lines and a table.
/// - Parameters:
///   - codecs: the codecs to ramp.
///   - seconds: measured seconds per step.
///   - perStreamCompute: the breakdown's total ns per packet by codec name, printed for comparison.
///   - srtp: the SRTP backend.
///   - keying: how each pair is keyed (`--keying`, `--suite`).
func runMediaCapacity(
    _ codecs: [MediaBenchmarkCodec], seconds: Double, perStreamCompute: [String: Double], srtp: SRTPBackend,
    keying: CapacityKeying = CapacityKeying()
) {
    guard seconds > 0 else { return }
    let limit = raiseDescriptorLimit()
    print(
        "# capacity: one event loop thread, loopback UDP, descriptor limit \(limit), \(seconds) s per step, "
            + "SRTP \(srtp.rawValue), keying \(keying.method.rawValue), suite \(keying.cryptoSuite)")
    print(
        "# columns: RESULT stack media name streams busy_pct late_tick_pct loss_pct max_late_ms stolen_pct "
            + "load_pct realtime")
    let loop: EventLoop
    let keys: CapacityKeySource
    do {
        keys = try CapacityKeySource(keying)
        if case .dtls(let handshaker) = keys { print("# " + (try handshaker.checkFingerprintMismatch())) }
        loop = try EventLoop(name: "media-bench")
    } catch {
        print("# capacity skipped: \(error)")
        return
    }
    loop.start()
    defer { loop.stop() }
    let budgetStart = Date()
    for codec in codecs {
        let name = keying.resultName(codec)
        let steps = rampCapacity(
            codec, name: name, seconds: seconds, loop: loop, srtp: srtp, keys: keys, budgetStart: budgetStart)
        summarizeCapacity(codec, name: name, steps: steps, compute: perStreamCompute[codec.name])
        if keys.isDTLS { summarizeHandshakes(name: name, steps: steps) }
    }
}

/// One codec's ramp; returns its steps in order.
private func rampCapacity(
    _ codec: MediaBenchmarkCodec, name: String, seconds: Double, loop: EventLoop, srtp: SRTPBackend,
    keys: CapacityKeySource, budgetStart: Date
) -> [CapacityResult] {
    let (first, rounding) = codec.kind == .opus ? (20, 10) : (200, 50)
    let pcm = codec.frames()
    var count = first
    var steps: [CapacityResult] = []
    // At most six steps per codec, started within 70 s of the codec's first and 150 s of the first codec's:
    // the whole run stays within about three minutes. The ramp goes on while the load stays within 90 %
    // (contended late ticks do not stop it) and stops at the first step that fails.
    let codecStart = Date()
    for step in 0..<6 {
        guard Date().timeIntervalSince(codecStart) < 70, Date().timeIntervalSince(budgetStart) < 150 else { break }
        let result = runCapacityStep(
            codec, pcm: pcm, streams: count, seconds: seconds, loop: loop, srtp: srtp, keys: keys)
        printCapacity(name, result)
        steps.append(result)
        guard result.isRealTimeUncontended else { break }
        // Predict the capacity from the CPU per tick so far, then close in on it from below.
        let fractions = [0.6, 0.8, 0.9, 1.0, 1.05, 1.1]
        let target = Double(result.extrapolated) * fractions[step]
        count = max(Int((target / Double(rounding)).rounded()) * rounding, count + rounding)
        if count % 2 == 1 { count += 1 }
    }
    return steps
}

/// A ramp's RESULT lines and its summary.
private func summarizeCapacity(
    _ codec: MediaBenchmarkCodec, name: String, steps: [CapacityResult], compute: Double?
) {
    let strict = steps.last(where: \.isRealTime)
    let uncontended = steps.last(where: \.isRealTimeUncontended)
    let strictCount = strict?.streams ?? 0
    let uncontendedCount = uncontended?.streams ?? 0
    func result(_ field: String, _ value: String) {
        print(["RESULT", "switchboard", "media", "\(name)-\(field)", value].joined(separator: "\t"))
    }
    result("streams-per-core", String(strictCount))
    result("streams-per-core-load", String(uncontendedCount))
    guard let reference = uncontended ?? steps.last, reference.ticks > 0 else { return }
    result("cpu-us-per-stream-tick", String(format: "%.1f", reference.cpuPerTick * 1e6))
    result("streams-at-90pct-busy-extrapolated", String(reference.extrapolated))
    let pipeline = compute.map { String(format: "%.1f", $0 / 1000) } ?? "?"
    print(
        "# \(name): \(strictCount) bidirectional streams (\(strictCount / 2) loopback pairs) passed the strict "
            + "test (busy <= 90 %, late ticks <= 1 %); \(uncontendedCount) ran with a load <= 90 % of the core "
            + "(late ticks, if any, while other tasks held the core). At \(reference.streams) streams the loop "
            + "spent \(String(format: "%.1f", reference.cpuPerTick * 1e6)) us of CPU per stream per 20 ms tick "
            + "(send and receive one packet, play one frame; the pipeline alone is \(pipeline) us): 90 % of a core "
            + "is about \(reference.extrapolated) streams")
}

/// The handshakes of all of a ramp's steps: count, thread CPU, and handshakes (both ends) per core-second.
private func summarizeHandshakes(name: String, steps: [CapacityResult]) {
    let count = steps.reduce(0) { $0 + $1.handshakes }
    let cpu = steps.reduce(0) { $0 + $1.handshakeCPUSeconds }
    func result(_ field: String, _ value: String) {
        print(["RESULT", "switchboard", "media", "\(name)-\(field)", value].joined(separator: "\t"))
    }
    result("handshakes", String(count))
    result("handshake-cpu-s", String(format: "%.3f", cpu))
    result("handshakes-per-core-second", cpu > 0 ? String(format: "%.0f", Double(count) / cpu) : "0")
    print(
        "# \(name): \(count) DTLS handshakes before the steps (client and server both in this thread), "
            + "\(String(format: "%.3f", cpu)) s of CPU: \(cpu > 0 ? String(format: "%.0f", Double(count) / cpu) : "?") "
            + "handshakes per core-second, \(count > 0 ? String(format: "%.0f", 1e6 * cpu / Double(count)) : "?") us each; "
            + "one call end pays about half")
}

private func printCapacity(_ name: String, _ r: CapacityResult) {
    if let failure = r.failure {
        print("# \(name) \(r.streams) streams: \(failure)")
    }
    let columns = [
        "RESULT", "switchboard", "media", "\(name)-capacity-step", String(r.streams),
        String(format: "%.1f", 100 * r.busy), String(format: "%.2f", 100 * r.lateFraction),
        String(format: "%.2f", 100 * r.lossFraction), String(format: "%.1f", r.maximumLateness),
        String(format: "%.1f", 100 * r.stolen), String(format: "%.1f", 100 * r.load),
        r.isRealTime ? "yes" : r.isRealTimeUncontended ? "contended" : "no",
    ]
    print(columns.joined(separator: "\t"))
    print(
        "#   \(name) \(r.streams) streams: busy \(String(format: "%.1f", 100 * r.busy)) % "
            + "(cpu \(String(format: "%.2f", r.cpuSeconds)) s / wall \(String(format: "%.2f", r.wallSeconds)) s, "
            + "\(String(format: "%.1f", 100 * r.stolen)) % waiting for the core), "
            + "ticks \(r.ticks), late >10 ms \(r.lateTicks), max late \(String(format: "%.1f", r.maximumLateness)) ms, "
            + "sent \(r.sent), received \(r.received), srtp failures \(r.srtpFailures), played \(r.played), "
            + "concealed \(r.concealed)")
    if r.handshakes > 0 {
        print(
            "#   \(name) \(r.streams) streams: \(r.handshakes) DTLS handshakes before the step, "
                + "\(String(format: "%.3f", r.handshakeCPUSeconds)) s of CPU")
    }
}
