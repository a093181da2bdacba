import Dispatch
import Foundation
import Switchboard
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `switchboard load URI`: a UAC load generator in the spirit of sipp's `-sn uac`, on the public API. Calls
/// start at `--rate` per second (reached linearly over `--ramp` seconds), at most `--concurrent` at once,
/// `--calls` in all; each stays up `--duration` seconds after its answer and is hung up. Prints a `load`
/// event every `--stats` seconds, a live status line on a terminal, and a final `load-summary`; exits 1 when
/// more than `--max-failures` calls failed.
enum LoadCommand {
    static let flags =
        AccountOptions.flags + AccountOptions.mediaFlags + [
            FlagSpec(name: "register", valueName: nil, help: "register the account first"),
            FlagSpec(name: "rate", valueName: "CPS", help: "new calls per second (10)"),
            FlagSpec(name: "calls", valueName: "N", help: "calls in all (100)"),
            FlagSpec(name: "concurrent", valueName: "N", help: "calls at once at most (100)"),
            FlagSpec(name: "ramp", valueName: "S", help: "reach --rate linearly over S seconds (0)"),
            FlagSpec(
                name: "media", valueName: "rtp|file|off",
                help: "rtp: --play's tone or silence; file: --play FILE.wav; off: SDP, no RTP"),
            FlagSpec(
                name: "answer-timeout", valueName: "S|off",
                help: "cancel a call with no answer after S seconds (180; off: never)"),
            FlagSpec(name: "max-failures", valueName: "N", help: "exit 1 past N failed calls (0)"),
            FlagSpec(name: "stats", valueName: "S", help: "a load event every S seconds"),
        ]

    static let help = helpText(
        usage: "switchboard load URI [--rate CPS] [--calls N] [--concurrent N] [--duration S] [flags]",
        summary: """
            Places --calls calls to URI at --rate per second (reached over --ramp seconds), at most
            --concurrent at once, each hung up --duration seconds after its answer (0 by default: at once).
            Prints `load` events (--stats S), a status line on a terminal, and a final load-summary with
            the calls that connected, the failures by status and the setup-time percentiles (ms).
            Exit status: 0 when at most --max-failures calls failed, 1 otherwise, 2 on bad usage.
            """,
        flags: flags)

    /// The run's settings, checked before anything starts.
    struct Plan: Sendable {
        var target: String
        var rate: Double = 10
        var calls = 100
        var concurrent = 100
        var ramp: Double = 0
        var duration: Double = 0
        var maxFailures = 0
        var stats: Double?

        init(_ options: AccountOptions, target: String) throws(UsageError) {
            self.target = target
            func number(_ name: String, _ range: ClosedRange<Double>) throws(UsageError) -> Double? {
                guard let text = options[name] else { return nil }
                guard let value = Double(text), range.contains(value) else {
                    throw UsageError(message: "bad value for --\(name): \(text)")
                }
                return value
            }
            func count(_ name: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int? {
                guard let text = options[name] else { return nil }
                guard let value = Int(text), range.contains(value) else {
                    throw UsageError(message: "bad value for --\(name): \(text)")
                }
                return value
            }
            rate = try number("rate", 0.01...100_000) ?? rate
            calls = try count("calls", 1...100_000_000) ?? calls
            concurrent = try count("concurrent", 1...1_000_000) ?? concurrent
            ramp = try number("ramp", 0...86_400) ?? ramp
            duration = try options.duration ?? duration
            maxFailures = try count("max-failures", 0...Int.max) ?? maxFailures
            stats = try number("stats", 0.1...3_600)
            switch options["media"] ?? "rtp" {
            case "rtp", "off": break
            case "file":
                guard let play = options["play"], !play.hasPrefix("tone:"), play != "silence" else {
                    throw UsageError(message: "--media file needs --play FILE.wav")
                }
            default:
                throw UsageError(message: "bad value for --media: \(options["media"] ?? "") (rtp|file|off)")
            }
        }

        /// What the provider is started for: `--concurrent` calls at once, and `--rate` new calls a second,
        /// so that its transaction limit holds what the rate keeps alive (each call's INVITE and BYE linger
        /// 64*T1): at 8,000 calls/s the default limit would refuse new INVITEs after about 30 s.
        func harnessNeeds(registers: Bool) -> ProviderHarness.Needs {
            ProviderHarness.Needs(
                registers: registers, defaultListen: nil, target: target, minimumCallLimit: concurrent,
                expectedCallRate: Int(rate.rounded(.up)))
        }

        /// Calls due to have started `elapsed` seconds in: the rate, ramped linearly over `ramp`.
        func due(after elapsed: Double) -> Int {
            guard elapsed > 0 else { return 1 }
            let started: Double
            if ramp > 0, elapsed < ramp {
                started = rate * elapsed * elapsed / (2 * ramp)
            } else {
                started = rate * (elapsed - ramp / 2)
            }
            return min(calls, Int(started) + 1)
        }

        /// Start requests the scheduler may have waiting for the provider's loop at once: 10 ms of the rate
        /// at least 16. A loop that falls behind then gets no more new calls until it has taken these, so
        /// a generator past its own capacity runs slower instead of burying its loop under requests while
        /// its socket buffers overflow (the calls still due start as soon as it catches up).
        var maximumQueued: Int { max(16, Int(rate * 0.01)) }

        /// How many calls to start now: those due and not started, within `--concurrent` and the queue bound.
        func allowed(due: Int, started: Int, live: Int, queued: Int) -> Int {
            max(0, min(due - started, concurrent - live, maximumQueued - queued))
        }
    }

    /// What happened so far; shared between the scheduler and the delegate queue.
    struct Tally {
        var started = 0
        var connected = 0
        var ended = 0
        var failed = 0
        var live: Set<UUID> = []
        var startedAt: [UUID: ContinuousClock.Instant] = [:]
        var failures: [String: Int] = [:]
        /// Setup times of the connected calls.
        var setupTimes = SetupHistogram()
        var registered: Bool?

        /// What the status line and the `load` events print: counts, and the histogram only when `withTimes`.
        /// Never the sets of live calls, which the delegate queue would then copy on its next change.
        func snapshot(withTimes: Bool) -> Snapshot {
            Snapshot(
                started: started, connected: connected, ended: ended, failed: failed, live: live.count,
                setupTimes: withTimes ? setupTimes : nil)
        }
    }

    /// The figures of a tally at one moment.
    struct Snapshot {
        var started: Int
        var connected: Int
        var ended: Int
        var failed: Int
        var live: Int
        var setupTimes: SetupHistogram?
    }

    /// The run's shared state: the tally and the scheduler's wake-up.
    final class State: Sendable {
        let tally = Mutex(Tally())
        let wake = DispatchSemaphore(value: 0)
        /// Start requests handed to the provider that its loop has not taken yet.
        let queued = Atomic<Int>(0)

        /// Ends live call `uuid` in the tally, a failure when `failure` names one (a call ends once), and wakes
        /// the scheduler when it was the last of the run's `calls`: it looks every 5 ms anyway, and woken at
        /// each end it would run once per call.
        func end(_ uuid: UUID, failure: String?, of calls: Int) {
            let isLast = tally.withLock { tally -> Bool in
                guard tally.live.remove(uuid) != nil else { return false }
                tally.startedAt[uuid] = nil
                tally.ended += 1
                if let failure {
                    tally.failed += 1
                    tally.failures[failure, default: 0] += 1
                }
                return tally.ended >= calls
            }
            if isLast { wake.signal() }
        }
    }

    static func run(_ arguments: [String], io: CommandIO, environment: [String: String]) -> Int32 {
        let options: AccountOptions
        let plan: Plan
        let media: CallMedia
        do throws(UsageError) {
            let parsed = try parseArguments(arguments, specs: flags)
            if parsed.has("help") {
                io.output(help)
                return 0
            }
            guard parsed.positionals.count == 1 else {
                throw UsageError(message: parsed.positionals.isEmpty ? "a target URI is required" : "one target URI")
            }
            options = try AccountOptions.resolve(parsed, environment: environment, readFile: io.readFile)
            plan = try Plan(options, target: parsed.positionals[0])
            media = try CallMedia(options)
        } catch {
            io.error("switchboard load: \(error.message)")
            return 2
        }
        let printer = EventPrinter(json: options.has("json"), output: io.output)
        let state = State()
        let registers = options.has("register")
        let harnessSlot = SetOnce<CallController>()
        let harness: ProviderHarness
        do throws(HarnessError) {
            harness = try ProviderHarness.start(
                options, needs: plan.harnessNeeds(registers: registers), io: io,
                printer: printer,
                delegate: LoadDelegate(
                    state: state, duration: plan.duration, calls: plan.calls, controller: { harnessSlot.wait() }))
        } catch {
            switch error {
            case .usage(let usage):
                io.error("switchboard load: \(usage.message)")
                return 2
            case .failed(let why):
                io.error("switchboard load: \(why)")
                return 1
            }
        }
        harnessSlot.set(harness.controller)
        defer { harness.stop(timeout: .seconds(5)) }
        if registers {
            while state.tally.withLock({ $0.registered }) == nil { state.wake.wait() }
            guard state.tally.withLock({ $0.registered }) == true else {
                io.error("switchboard load: registration failed")
                return 1
            }
        }
        // `--media off`: the provider sends no RTP, so a call's audio settings would go unused.
        let sendsMedia = options["media"] != "off"
        let begin = ContinuousClock.now
        let interactive = isatty(2) != 0
        var lastStats = begin
        // The scheduler: every 5 ms, start the calls that are due and allowed.
        while true {
            let now = ContinuousClock.now
            let elapsed = seconds(now - begin)
            let due = plan.due(after: elapsed)
            let queued = state.queued.load(ordering: .relaxed)
            let toStart = state.tally.withLock { tally -> Int in
                let allowed = plan.allowed(
                    due: due, started: tally.started, live: tally.live.count, queued: queued)
                tally.started += allowed
                return allowed
            }
            for _ in 0..<toStart {
                start(plan, harness: harness, media: sendsMedia ? media : nil, state: state)
            }
            let statsDue = plan.stats.map { seconds(now - lastStats) >= $0 } ?? false
            let snapshot = state.tally.withLock { $0.snapshot(withTimes: statsDue) }
            let done = snapshot.ended >= plan.calls
            if statsDue {
                lastStats = now
                printer.emit("load", fields(snapshot, elapsed: elapsed))
            }
            if interactive {
                io.error(
                    "\u{1B}[2K\rload \(snapshot.started)/\(plan.calls) live=\(snapshot.live) "
                        + "connected=\(snapshot.connected) failed=\(snapshot.failed)")
            }
            if done { break }
            _ = state.wake.wait(timeout: .now() + 0.005)
        }
        let (final, failures) = state.tally.withLock { ($0.snapshot(withTimes: true), $0.failures) }
        let elapsed = seconds(ContinuousClock.now - begin)
        var summary = fields(final, elapsed: elapsed)
        summary.append(
            (
                "failures",
                .string(failures.sorted { $0.key < $1.key }.map { "\($0):\($1)" }.joined(separator: ","))
            ))
        printer.emit("load-summary", summary)
        return final.failed > plan.maxFailures ? 1 : 0
    }

    private static func fields(_ tally: Snapshot, elapsed: Double) -> [(String, EventValue)] {
        let times = tally.setupTimes ?? SetupHistogram()
        return [
            ("started", .int(tally.started)), ("connected", .int(tally.connected)), ("ended", .int(tally.ended)),
            ("failed", .int(tally.failed)), ("live", .int(tally.live)),
            ("rate", .double(elapsed > 0 ? Double(tally.started) / elapsed : 0, decimals: 1)),
            ("setup_p50_ms", .double(times.percentile(0.5), decimals: 1)),
            ("setup_p95_ms", .double(times.percentile(0.95), decimals: 1)),
            ("setup_p99_ms", .double(times.percentile(0.99), decimals: 1)),
        ]
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Starts one call (with `media`'s audio, when given); a refused start counts as a failure at once.
    private static func start(_ plan: Plan, harness: ProviderHarness, media: CallMedia?, state: State) {
        // Not `UUID()`, which opens, reads and closes /dev/urandom for each call.
        let uuid = RandomUUID.make()
        let number = state.tally.withLock { tally -> Int in
            tally.live.insert(uuid)
            tally.startedAt[uuid] = .now
            return tally.started
        }
        let action = StartCallAction(
            call: uuid, handle: Handle(type: .generic, value: plan.target), account: harness.accountID)
        // The completion runs on the provider's loop, not by way of the queue: it marks the request taken
        // and tallies a refusal.
        state.queued.add(1, ordering: .relaxed)
        harness.controller.requestCompletingOnLoop(CallTransaction(action: action)) { error in
            state.queued.subtract(1, ordering: .relaxed)
            guard let error else { return }
            state.end(uuid, failure: "refused(\(error))", of: plan.calls)
        }
        if let media { harness.provider.setAudio(media.audio(callNumber: number), for: uuid) }
    }

    /// Hears the three kinds of event a run tallies, as the provider made them (a relay); every other event
    /// is ignored, and actions are fulfilled by the provider itself on its loop (`fulfillsActions`), so a
    /// call's start and end each go straight through instead of by way of the delegate queue.
    final class LoadDelegate: CallProviderEventRelay {
        let state: State
        let duration: Double
        /// The run's calls in all: the scheduler is woken when the last one ends.
        let calls: Int
        let controller: @Sendable () -> CallController?

        init(
            state: State, duration: Double, calls: Int, controller: @escaping @Sendable () -> CallController?
        ) {
            self.state = state
            self.duration = duration
            self.calls = calls
            self.controller = controller
        }

        var fulfillsActions: Bool { true }

        var relayedKinds: Set<CallProviderEvent.Kind>? { [.registration, .connected, .ended] }

        /// The callbacks only tally under a lock, signal a semaphore and post requests (`controller` returns at
        /// once: the harness is set before the first call starts): they never block, so
        /// they run on the provider's loop as it emits them, with no hop to a queue's thread per batch.
        var hearsOnEmittingThread: Bool { true }

        /// The callback of the event's kind, as the provider would have called it.
        func provider(_ provider: CallProvider, relay event: CallProviderEvent) {
            event.deliver(to: self, from: provider)
        }

        func providerDidReset(_ provider: CallProvider) {}

        func provider(_ provider: CallProvider, account: String, didChange registration: RegistrationState) {
            switch registration {
            case .registered: state.tally.withLock { $0.registered = true }
            case .failed(_, let willRetry) where !willRetry: state.tally.withLock { $0.registered = false }
            default: return
            }
            state.wake.signal()
        }

        /// A connected call is hung up `duration` seconds on (at once for 0, without a timer).
        func provider(_ provider: CallProvider, callDidConnect call: Call) {
            let uuid = call.uuid
            // A call's start time is filed until it connects or ends: found here, the call is hung up once.
            let isLive = state.tally.withLock { tally -> Bool in
                tally.connected += 1
                guard let began = tally.startedAt.removeValue(forKey: uuid) else { return false }
                tally.setupTimes.record(milliseconds: seconds(ContinuousClock.now - began) * 1000)
                return true
            }
            guard isLive else { return }
            let controller = self.controller
            guard duration > 0 else {
                controller()?.requestCompletingOnLoop(CallTransaction(action: EndCallAction(call: uuid))) { _ in }
                return
            }
            commandTimers.asyncAfter(deadline: .now() + duration) {
                controller()?.request(CallTransaction(action: EndCallAction(call: uuid))) { _ in }
            }
        }

        func provider(_ provider: CallProvider, call: Call, didEndWith details: CallEndDetails) {
            let failure =
                call.connectedAt != nil ? nil : details.statusCode.map(String.init) ?? details.reason.rawValue
            state.end(call.uuid, failure: failure, of: calls)
        }
    }
}
