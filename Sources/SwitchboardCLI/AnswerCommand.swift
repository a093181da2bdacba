import Dispatch
import Foundation
import Switchboard
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `switchboard answer` (CLI.md): listens (`--listen`) and/or registers (`--registrar`), answers calls with
/// `--auto-answer` (asks on a terminal without it; rejects 486 without a terminal), serves many calls at
/// once, and stops after `--count N` calls or on a signal. Exit 0 if every call it took connected and ended
/// normally, or on a clean signal stop.
enum AnswerCommand {
    static let flags =
        AccountOptions.flags + AccountOptions.mediaFlags + [
            FlagSpec(name: "auto-answer", valueName: nil, help: "answer every call at once"),
            FlagSpec(name: "count", valueName: "N", help: "stop after N calls"),
            FlagSpec(name: "max-calls", valueName: "N", help: "calls at once before 486 (1000)"),
            FlagSpec(
                name: "expected-rate", valueName: "CPS",
                help: "new calls per second to be ready for: transaction tables sized up front (0)"),
            FlagSpec(name: "expires", valueName: "S", help: "registration lifetime with --registrar (600)"),
            FlagSpec(name: "quiet", valueName: nil, help: "print only the final summary counts (load tests)"),
            FlagSpec(name: "media", valueName: "rtp|off", help: "off: answer SDP but open no RTP (load tests)"),
            FlagSpec(
                name: "stats", valueName: "S",
                help: "every S seconds a stats event: calls, sessions, transactions, ports, heap, RSS"),
        ]

    static let help = helpText(
        usage: "switchboard answer [--listen ADDR:PORT] [--registrar SIPURI --user USER] [--auto-answer] [flags]",
        summary: """
            Waits for calls on --listen (default 0.0.0.0:5060) and, with --registrar, registers the user.
            With --auto-answer every call is answered; on a terminal without it you are asked; otherwise calls
            are rejected with 486. Each call stays up --duration seconds (or until the caller hangs up).
            With --auto-answer a call that receives no RTP for 30 s ends (--media-timeout S|off), so calls
            whose caller vanished after the ACK do not stay; past --max-calls INVITEs get 486, and past the
            --rtp-ports pairs 503 with Retry-After.
            Stops after --count calls or on SIGINT/SIGTERM.
            Exit status: 0 if every call taken connected and ended normally (or on a clean signal stop),
            1 otherwise, 2 on bad usage.
            """,
        flags: flags)

    final class State: Sendable {
        struct Values {
            var ended = 0
            var failed = 0
            var answered = 0
            var invites = 0
            var stopping = false
            var signalled = false
            var registration: Bool?
            /// Calls the other side transferred away: the call the transfer placed counts instead.
            var transferredAway: Set<UUID> = []
        }
        let values = Mutex(Values())
        let wake = DispatchSemaphore(value: 0)
        let prompt = Mutex<Void>(())
    }

    static func run(_ arguments: [String], io: CommandIO, environment: [String: String]) -> Int32 {
        let options: AccountOptions
        let duration: Double?
        let count: Int?
        let media: CallMedia
        let statsInterval: Double?
        do throws(UsageError) {
            let parsed = try parseArguments(arguments, specs: flags)
            if parsed.has("help") {
                io.output(help)
                return 0
            }
            guard parsed.positionals.isEmpty else {
                throw UsageError(message: "unexpected argument '\(parsed.positionals[0])'")
            }
            options = try AccountOptions.resolve(parsed, environment: environment, readFile: io.readFile)
            duration = try options.duration
            media = try CallMedia(options)
            statsInterval = try StatsReporter.interval(options)
            if options["media"] == "file" { throw UsageError(message: "bad value for --media: file (rtp|off)") }
            if let text = options["count"] {
                guard let n = Int(text), n > 0 else { throw UsageError(message: "bad value for --count: \(text)") }
                count = n
            } else {
                count = nil
            }
        } catch {
            io.error("switchboard answer: \(error.message)")
            return 2
        }

        let printer = EventPrinter(json: options.has("json"), output: io.output)
        let quiet = options.has("quiet")
        let autoAnswer = options.has("auto-answer")
        let interactive = !autoAnswer && isatty(0) != 0 && isatty(2) != 0
        if !autoAnswer, !interactive {
            io.error("switchboard answer: no terminal and no --auto-answer: incoming calls will be rejected (486)")
        }
        let state = State()
        Signals.install { _ in
            state.values.withLock { $0.signalled = true }
            state.wake.signal()
        }
        let registers = options["registrar"] != nil
        let defaultListen: String =
            switch options["transport"] {
            case "tls": "0.0.0.0:5061"
            // WebSocket listeners default to the scheme's port: 80 for WS, 443 for WSS.
            case "ws", "wss": "0.0.0.0"
            default: "0.0.0.0:5060"
            }
        // Events can come before `start` returns (a registration on loopback takes milliseconds): the
        // delegate queue waits for the harness rather than drop them.
        let harnessSlot = SetOnce<ProviderHarness>()
        let harness: ProviderHarness
        do throws(HarnessError) {
            harness = try ProviderHarness.start(
                options,
                needs: .init(
                    registers: registers, defaultListen: defaultListen, target: nil,
                    defaultMediaTimeout: autoAnswer ? .seconds(30) : nil), io: io,
                printer: printer, kinds: handledKinds(quiet: quiet)
            ) { event in
                guard let harness = harnessSlot.wait() else { return }
                handle(
                    event, harness: harness, state: state, quiet: quiet, autoAnswer: autoAnswer,
                    interactive: interactive, duration: duration, count: count, media: media)
            }
        } catch {
            harnessSlot.set(nil)
            switch error {
            case .usage(let usage):
                io.error("switchboard answer: \(usage.message)")
                return 2
            case .failed(let why):
                io.error("switchboard answer: \(why)")
                return 1
            }
        }
        harnessSlot.set(harness)
        let provider = harness.provider
        let trim = IdleMemoryTrim(
            activity: { state.values.withLock { $0.invites + $0.ended } },
            isIdle: { provider.calls.allSatisfy { $0.state == .ended } })
        let stats = statsInterval.map { StatsReporter(every: $0, provider: provider, printer: printer) }
        defer { withExtendedLifetime((trim, stats)) {} }
        for listener in harness.provider.listeners {
            io.error("switchboard answer: listening on \(listener)")
        }

        while state.values.withLock({ !$0.signalled && !$0.stopping && $0.registration != false }) {
            state.wake.wait()
        }
        let signalled = state.values.withLock { $0.signalled }
        if signalled {
            // End the calls in progress, then unregister (invalidate does both).
            for call in harness.provider.calls where call.state != .ended {
                harness.controller.request(CallTransaction(action: EndCallAction(call: call.uuid, rejectStatus: 480))) {
                    _ in
                }
            }
        }
        if registers, let account = harness.accountID,
            state.values.withLock({ $0.registration == true })
        {
            state.values.withLock { $0.registration = nil }
            try? harness.provider.unregister(account: account)
            let deadline = DispatchTime.now() + 40
            while state.values.withLock({ $0.registration == nil }) {
                if state.wake.wait(timeout: deadline) == .timedOut { break }
            }
        }
        harness.stop(timeout: .seconds(5))
        let final = state.values.withLock { $0 }
        if quiet {
            printer.emit("totals", [("calls", .int(final.ended)), ("failed", .int(final.failed))])
        }
        if final.registration == false, registers, final.ended == 0, !signalled { return 1 }
        return final.failed == 0 ? 0 : 1
    }

    /// What `handle` does with an event, one case per kind it acts on.
    enum Step: CaseIterable {
        case registration, invite, connected, transferred, updated, dtmf, ended
    }

    /// The step for an event of `kind`, if `handle` acts on it: the one place that says which kinds those
    /// are, so that `handledKinds` and `handle` cannot drift apart.
    static func step(for kind: CallProviderEvent.Kind, quiet: Bool) -> Step? {
        switch kind {
        case .registration: .registration
        case .invite: .invite
        case .connected: .connected
        case .transferred: .transferred
        case .ended: .ended
        // Printed only, so not heard at all when quiet.
        case .updated: quiet ? nil : .updated
        case .dtmfReceived: quiet ? nil : .dtmf
        default: nil
        }
    }

    /// The kinds of event `handle` does anything with: the provider hands the delegate queue no other.
    static func handledKinds(quiet: Bool) -> Set<CallProviderEvent.Kind> {
        Set(CallProviderEvent.Kind.allCases.filter { step(for: $0, quiet: quiet) != nil })
    }

    private static func handle(
        _ event: CallProviderEvent, harness: ProviderHarness, state: State, quiet: Bool, autoAnswer: Bool,
        interactive: Bool, duration: Double?, count: Int?, media: CallMedia
    ) {
        guard let step = step(for: event.kind, quiet: quiet) else { return }
        let printer = harness.printer
        let controller = harness.controller
        switch step {
        case .registration:
            guard let registration = event.registrationState else { return }
            if let final = printRegistration(registration, printer: printer) {
                state.values.withLock { $0.registration = final }
                state.wake.signal()
            }
        case .invite:
            guard let invite = event.invite else { return }
            if !quiet {
                printer.emit(
                    "incoming", [("from", .string(invite.from.value)), ("call-id", .string(invite.callID))])
            }
            let number = state.values.withLock { values in
                values.invites += 1
                return values.invites
            }
            // Without media the audio is never used: setting it would cost a post to the loop per call.
            if !media.isOff { harness.provider.setAudio(media.audio(callNumber: number), for: invite.callUUID) }
            let taking = state.values.withLock { values -> Bool in
                guard let count else { return !values.stopping }
                guard !values.stopping, values.answered < count else { return false }
                values.answered += 1
                return true
            }
            guard taking else {
                controller.request(CallTransaction(action: EndCallAction(call: invite.callUUID, rejectStatus: 486))) {
                    _ in
                }
                return
            }
            if autoAnswer {
                // Nothing to hear back: the completion stays on the provider's loop.
                controller.requestCompletingOnLoop(CallTransaction(action: AnswerCallAction(call: invite.callUUID))) {
                    _ in
                }
            } else if interactive {
                Thread.detachNewThread {
                    let yes = state.prompt.withLock { _ in ask("answer the call from \(invite.from)? [y/N] ") }
                    let action: CallAction =
                        yes
                        ? AnswerCallAction(call: invite.callUUID)
                        : EndCallAction(call: invite.callUUID, rejectStatus: 603)
                    controller.request(CallTransaction(action: action)) { _ in }
                }
            } else {
                controller.request(CallTransaction(action: EndCallAction(call: invite.callUUID, rejectStatus: 486))) {
                    _ in
                }
            }
        case .connected:
            guard let call = event.call else { return }
            if !quiet { CallOutput.connected(call, printer: printer) }
            media.runScript(for: call.uuid, controller: controller, printer: printer)
            if let duration {
                commandTimers.asyncAfter(deadline: .now() + duration) {
                    controller.request(CallTransaction(action: EndCallAction(call: call.uuid))) { _ in }
                }
            }
        case .transferred:
            guard let call = event.call, let target = event.transferTarget, let newCall = event.newCallUUID
            else { return }
            if !quiet { CallOutput.transferred(to: target, printer: printer) }
            let number = state.values.withLock { values -> Int in
                values.transferredAway.insert(call.uuid)
                values.invites += 1
                return values.invites
            }
            if !media.isOff { harness.provider.setAudio(media.audio(callNumber: number), for: newCall) }
        case .updated:
            if let held = event.update?.isRemoteHeld { printer.emit(held ? "remote-held" : "resumed") }
            if let path = event.update?.mediaPath { CallOutput.mediaPathChanged(path, printer: printer) }
        case .dtmf:
            if let digit = event.digit { printer.emit("dtmf-received", [("digit", .string(String(digit)))]) }
        case .ended:
            guard let call = event.call, let details = event.endDetails else { return }
            if !quiet { CallOutput.ended(call, details, printer: printer) }
            // Only calls this command took count: rejected ones (486 beyond --count, no terminal) do not.
            let taken = call.connectedAt != nil || details.reason != .localEnded
            let stops = state.values.withLock { values -> Bool in
                guard taken, values.transferredAway.remove(call.uuid) == nil else { return false }
                values.ended += 1
                if !CallOutput.endedNormally(call, details) { values.failed += 1 }
                guard let count, values.ended >= count, !values.stopping else { return false }
                values.stopping = true
                return true
            }
            // The main thread waits only for the stop: waking it for every call costs a thread switch each.
            if stops { state.wake.signal() }
        }
    }

    /// Asks on the terminal (stderr) and reads the answer from stdin.
    private static func ask(_ question: String) -> Bool {
        FileHandle.standardError.write(Data(question.utf8))
        guard let line = readLine() else { return false }
        return line.lowercased().hasPrefix("y")
    }
}

/// A value one thread sets once and others wait for: `wait()` blocks until `set(_:)` (`nil` when the value
/// never came, e.g. the provider failed to start).
final class SetOnce<Value: Sendable>: Sendable {
    private let value = Mutex<(isSet: Bool, value: Value?)>((false, nil))
    private let ready = DispatchGroup()

    init() { ready.enter() }

    /// Sets the value; only the first call counts.
    func set(_ newValue: Value?) {
        let first = value.withLock { slot -> Bool in
            guard !slot.isSet else { return false }
            slot = (true, newValue)
            return true
        }
        if first { ready.leave() }
    }

    func wait() -> Value? {
        ready.wait()
        return value.withLock { $0.value }
    }
}
