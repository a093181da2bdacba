import Dispatch
import Foundation
import Media
import Switchboard
import Synchronization

/// `switchboard demo` (DESIGN.md, CLI.md): two user agents in this process on loopback, TLS with a
/// throwaway certificate, SRTP mandatory, Opus. Alice calls bob, bob answers, a tone flows each way and is
/// found in the other side's recording, DTMF goes across, hold and resume by re-INVITE, hang-up; then the
/// call flow and the quality figures. Every step is checked; exit 0 only if all passed.
enum DemoCommand {
    static let flags: [FlagSpec] = [
        FlagSpec(name: "json", valueName: nil, help: "print events as JSON lines"),
        FlagSpec(name: "trace", valueName: nil, help: "print every SIP message on stderr"),
        FlagSpec(name: "help", valueName: nil, help: "show this help"),
    ]

    static let help = helpText(
        usage: "switchboard demo [--json] [--trace]",
        summary: """
            Runs a complete call with no server: alice and bob in this process on 127.0.0.1, SIP over TLS
            (a throwaway certificate made at start), SRTP, Opus. Checks that each side hears the other's tone,
            that DTMF arrives once per digit, hold and resume, and the hang-up; prints one `step` line per
            check, the call flow (on stderr) and a `summary` line per side.
            Exit status: 0 if every step passed, 1 otherwise (the failing step says why), 2 on bad usage.
            """,
        flags: flags)

    static func run(_ arguments: [String], io: CommandIO) -> Int32 {
        let json: Bool
        let tracing: Bool
        do throws(UsageError) {
            let parsed = try parseArguments(arguments, specs: flags)
            if parsed.has("help") {
                io.output(help)
                return 0
            }
            guard parsed.positionals.isEmpty else {
                throw UsageError(message: "unexpected argument '\(parsed.positionals[0])'")
            }
            json = parsed.has("json")
            tracing = parsed.has("trace")
        } catch {
            io.error("switchboard demo: \(error.message)")
            return 2
        }
        let printer = EventPrinter(json: json, output: io.output)
        let demo = Demo(io: io, printer: printer, tracing: tracing)
        let passed = Mutex(false)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let result = await demo.run()
            passed.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return passed.withLock { $0 } ? 0 : 1
    }
}

/// Events of one provider, kept for the checks.
private final class EventLog: Sendable {
    let events = Mutex<[CallProviderEvent]>([])

    init(_ provider: CallProvider, onEvent: @escaping @Sendable (CallProviderEvent) -> Void = { _ in }) {
        let stream = provider.events
        Task.detached { [self] in
            for await event in stream {
                self.events.withLock { $0.append(event) }
                onEvent(event)
            }
        }
    }

    func wait<T: Sendable>(seconds: Double = 10, _ match: (CallProviderEvent) -> T?) async -> T? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if let found = events.withLock({ $0.lazy.compactMap(match).first }) { return found }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    var digits: String {
        events.withLock { String($0.compactMap(\.digit)) }
    }
}

/// Frames one side heard.
private final class Heard: Sendable {
    let samples = Mutex<[Int16]>([])
}

private final class Demo: Sendable {
    /// The call and details of an `ended` event.
    static func ending(_ event: CallProviderEvent) -> (Call, CallEndDetails)? {
        guard let call = event.call, let details = event.endDetails else { return nil }
        return (call, details)
    }

    static let sampleRate = 16000
    let io: CommandIO
    let printer: EventPrinter
    let tracing: Bool
    let failures = Mutex(0)
    let traceRows = Mutex<[LadderRow]>([])

    init(io: CommandIO, printer: EventPrinter, tracing: Bool) {
        self.io = io
        self.printer = printer
        self.tracing = tracing
    }

    @discardableResult
    func step(_ name: String, _ passed: Bool, _ detail: String) -> Bool {
        if !passed { failures.withLock { $0 += 1 } }
        printer.emit(
            "step",
            [("name", .string(name)), ("result", .string(passed ? "pass" : "fail")), ("detail", .string(detail))])
        return passed
    }

    func run() async -> Bool {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("switchboard-demo-\(ProcessInfo.processInfo.processIdentifier)").path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        // 1. A throwaway certificate for 127.0.0.1, trusted by both sides as their CA.
        let certificate: SelfSignedCertificate
        do throws(CallError) {
            certificate = try SelfSignedCertificate(host: "127.0.0.1", directory: directory)
        } catch {
            return step("certificate", false, "\(error)")
        }
        step("certificate", true, "self-signed EC P-256 for IP 127.0.0.1, valid one day")

        // 2. Two providers on loopback, TLS only, SRTP mandatory, Opus.
        let heardByAlice = Heard()
        let heardByBob = Heard()
        func configuration(_ user: String, tone: Double, heard: Heard) -> CallProviderConfiguration {
            var configuration = CallProviderConfiguration(
                localizedName: "Switchboard/\(SwitchboardCommand.version) demo",
                accounts: [Account(addressOfRecord: "sip:\(user)@127.0.0.1")],
                listeners: [.init(.tls, "127.0.0.1:0")],
                tls: .init(
                    trustedCAFile: certificate.certificateFile, certificateFile: certificate.certificateFile,
                    privateKeyFile: certificate.privateKeyFile),
                codecs: [.opus], srtp: .mandatory)
            configuration.audio = CallAudio(
                input: .tone(frequency: tone),
                output: .samples { frame in heard.samples.withLock { $0.append(contentsOf: frame) } },
                sampleRate: Self.sampleRate)
            return configuration
        }
        let alice: CallProvider
        let bob: CallProvider
        do throws(CallError) {
            alice = try CallProvider(configuration: configuration("alice", tone: 1000, heard: heardByAlice))
            bob = try CallProvider(configuration: configuration("bob", tone: 440, heard: heardByBob))
        } catch {
            return step("providers", false, "\(error)")
        }
        defer {
            alice.invalidate(timeout: .seconds(2))
            bob.invalidate(timeout: .seconds(2))
        }
        guard let bobListener = bob.listeners.first(where: { $0.transport == .tls }) else {
            return step("providers", false, "bob has no TLS listener")
        }
        step("providers", true, "alice and bob listening on TLS; bob at \(bobListener.address)")
        let start = Date()
        collectTraces(alice, start: start)

        let aliceController = CallController(provider: alice)
        let bobController = CallController(provider: bob)
        let aliceLog = EventLog(alice)
        // Bob's app answers every incoming call, as a delegate would.
        let bobLog = EventLog(bob) { event in
            if let invite = event.invite {
                Task { try? await bobController.answerCall(invite.callUUID) }
            }
        }

        // 3. Alice calls bob over TLS.
        let target = Handle(type: .generic, value: "sips:bob@\(bobListener.address)")
        let aliceCall: UUID
        do throws(CallError) {
            aliceCall = try await aliceController.startCall(to: target)
        } catch {
            return step("call", false, "the start-call action failed: \(error)")
        }
        let connected = await aliceLog.wait { $0.kind == .connected ? $0.call : nil }
        guard let connected else {
            let ended = await aliceLog.wait(seconds: 0) { $0.endDetails }
            return step("call", false, ended.map { "ended: \($0)" } ?? "not connected within 10 s")
        }
        guard let bobCall = await bobLog.wait(seconds: 5, { $0.kind == .connected ? $0.callUUID : nil })
        else {
            return step("call", false, "bob never saw the call connect")
        }
        step(
            "call",
            connected.codec?.lowercased() == "opus" && connected.isSecure,
            "connected over TLS, codec=\(connected.codec ?? "none") srtp=\(connected.isSecure ? "yes" : "no")")

        // 4. Tones each way: each side hears the other's, well above its own.
        try? await Task.sleep(for: .milliseconds(1500))
        let bobHears = separation(heardByBob, wanted: 1000, unwanted: 440)
        let aliceHears = separation(heardByAlice, wanted: 440, unwanted: 1000)
        step(
            "tone to bob", bobHears >= 20,
            String(format: "1000 Hz stands %.1f dB above 440 Hz in bob's audio", bobHears))
        step(
            "tone to alice", aliceHears >= 20,
            String(format: "440 Hz stands %.1f dB above 1000 Hz in alice's audio", aliceHears))

        // 5. DTMF as RFC 4733 events, each digit once.
        let digits = "1234#"
        try? await aliceController.playDTMF(aliceCall, digits: digits)
        let deadline = ContinuousClock.now + .seconds(4)
        while bobLog.digits.count < digits.count, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        try? await Task.sleep(for: .milliseconds(300))
        step(
            "dtmf", bobLog.digits == digits,
            "sent \(digits), bob received \(bobLog.digits.isEmpty ? "nothing" : bobLog.digits)")

        // 6. Hold and resume by re-INVITE.
        try? await aliceController.setHeld(aliceCall, true)
        let held = await bobLog.wait(seconds: 5) {
            if let update = $0.update, $0.callUUID == bobCall, update.isRemoteHeld == true {
                true
            } else {
                nil
            }
        }
        step("hold", held == true, held == true ? "bob sees the call held (sendonly)" : "bob never saw the hold")
        try? await aliceController.setHeld(aliceCall, false)
        let resumed = await bobLog.wait(seconds: 5) {
            if let update = $0.update, $0.callUUID == bobCall, update.isRemoteHeld == false {
                true
            } else {
                nil
            }
        }
        step("resume", resumed == true, resumed == true ? "bob sees the call resumed (sendrecv)" : "no resume seen")
        try? await Task.sleep(for: .milliseconds(500))

        // 7. Hang-up.
        try? await aliceController.endCall(aliceCall)
        let aliceEnd = await aliceLog.wait(Self.ending)
        let bobEnd = await bobLog.wait(Self.ending)
        step(
            "hang-up", aliceEnd?.1.reason == .localEnded && bobEnd?.1.reason == .remoteEnded,
            "alice \(aliceEnd.map { $0.1.reason.rawValue } ?? "not ended"), bob \(bobEnd.map { $0.1.reason.rawValue } ?? "not ended")"
        )

        // The call flow as alice saw it, and the figures of each side.
        try? await Task.sleep(for: .milliseconds(200))
        io.error(LadderDiagram.text(traceRows.withLock { $0 }, colour: isatty(2) != 0))
        for (call, details) in [aliceEnd, bobEnd].compactMap({ $0 }) {
            CallOutput.summary(call, details, printer: printer)
        }
        let failed = failures.withLock { $0 }
        printer.emit("demo", [("result", .string(failed == 0 ? "pass" : "fail")), ("failed", .int(failed))])
        return failed == 0
    }

    private func separation(_ heard: Heard, wanted: Double, unwanted: Double) -> Double {
        let samples = Array(heard.samples.withLock { $0 }.suffix(Self.sampleRate))
        guard samples.count >= Self.sampleRate / 2 else { return -.infinity }
        return AudioAnalysis.goertzel(samples, sampleRate: Self.sampleRate, frequency: wanted)
            - AudioAnalysis.goertzel(samples, sampleRate: Self.sampleRate, frequency: unwanted)
    }

    private func collectTraces(_ provider: CallProvider, start: Date) {
        let traces = provider.traces
        let colour = isatty(2) != 0
        Task.detached { [self] in
            for await event in traces {
                let time = event.date.timeIntervalSince(start)
                self.traceRows.withLock { $0.append(LadderRow(event: event, time: time)) }
                if self.tracing { self.io.error(SIPTracer.format(event, elapsed: time, colour: colour)) }
            }
        }
    }
}
