import Dispatch
import Foundation
import Switchboard
import Synchronization

/// `switchboard call URI` (CLI.md): authenticates when challenged, registers first only with `--register`,
/// places the call, stays connected `--duration S` after the answer (or until the other side hangs up),
/// then hangs up. Exit 0 only if the call connected and ended normally.
enum CallCommand {
    static let flags =
        AccountOptions.flags + AccountOptions.mediaFlags + [
            FlagSpec(name: "register", valueName: nil, help: "register (--registrar) before calling"),
            FlagSpec(name: "expires", valueName: "S", help: "registration lifetime with --register (600)"),
        ]

    static let help = helpText(
        usage: "switchboard call URI [--user USER@DOMAIN] [--password SECRET] [--duration S] [flags]",
        summary: """
            Places a call to URI (sip:bob@example.com, or bob with --registrar), answers digest challenges with
            the account's credentials, prints its progress (trying, ringing, connected, ended, summary), stays
            connected --duration seconds (until the other side hangs up without it), then hangs up.
            Exit status: 0 if the call connected and ended normally, 1 otherwise, 2 on bad usage.
            """,
        flags: flags)

    final class State: Sendable {
        struct Values {
            var connected = false
            var ended: (Call, CallEndDetails)?
            var registered: Bool?
            var interrupted = false
            /// The call the command follows: the one it placed, then the one each transfer placed.
            var current: UUID?
            /// Calls placed so far (1, then 2 after a transfer, ...), for `%n` in `--record`.
            var number = 1
        }
        let values = Mutex(Values())
        let wake = DispatchSemaphore(value: 0)
    }

    static func run(_ arguments: [String], io: CommandIO, environment: [String: String]) -> Int32 {
        let options: AccountOptions
        let target: String
        let duration: Double?
        let media: CallMedia
        do throws(UsageError) {
            let parsed = try parseArguments(arguments, specs: flags)
            if parsed.has("help") {
                io.output(help)
                return 0
            }
            guard parsed.positionals.count == 1 else {
                throw UsageError(
                    message: parsed.positionals.isEmpty
                        ? "the URI to call is required" : "unexpected argument '\(parsed.positionals[1])'")
            }
            target = parsed.positionals[0]
            options = try AccountOptions.resolve(parsed, environment: environment, readFile: io.readFile)
            duration = try options.duration
            media = try CallMedia(options)
            if options.has("register"), options["registrar"] == nil {
                throw UsageError(message: "--register needs --registrar")
            }
        } catch {
            io.error("switchboard call: \(error.message)")
            return 2
        }

        let printer = EventPrinter(json: options.has("json"), output: io.output)
        let state = State()
        Signals.install { _ in
            state.values.withLock { $0.interrupted = true }
            state.wake.signal()
        }
        let registers = options.has("register")
        let controllerBox = Mutex<CallController?>(nil)
        let providerBox = Mutex<CallProvider?>(nil)
        let status = Mutex<LiveStatus?>(nil)
        let harness: ProviderHarness
        do throws(HarnessError) {
            harness = try ProviderHarness.start(
                options, needs: .init(registers: registers, defaultListen: nil, target: target), io: io,
                printer: printer
            ) { event in
                switch event.kind {
                case .registration:
                    guard let registration = event.registrationState else { return }
                    if let final = printRegistration(registration, printer: printer) {
                        state.values.withLock { if $0.registered == nil || !final { $0.registered = final } }
                        state.wake.signal()
                    }
                case .startedConnecting:
                    printer.emit("trying")
                case .ringing:
                    guard let call = event.call, let status = event.statusCode else { return }
                    CallOutput.ringing(
                        status: status, earlyMediaCodec: call.codec, hasEarlyMedia: event.hasEarlyMedia,
                        printer: printer)
                case .transferred:
                    guard let call = event.call, let target = event.transferTarget,
                        let newCall = event.newCallUUID
                    else { return }
                    CallOutput.transferred(to: target, printer: printer)
                    // The new call is the one followed from now on; the old one ends by itself.
                    let number = state.values.withLock { values -> Int? in
                        guard values.current == call.uuid else { return nil }
                        values.current = newCall
                        values.number += 1
                        return values.number - 1
                    }
                    if let number, let provider = providerBox.withLock({ $0 }) {
                        if media.recordPattern != nil, media.recordPattern?.contains("%n") != true {
                            io.error("switchboard call: --record has no %n: the transferred call is not recorded")
                        }
                        provider.setAudio(media.audio(transferredFrom: number), for: newCall)
                    }
                case .connected:
                    guard let call = event.call else { return }
                    CallOutput.connected(call, printer: printer)
                    if let controller = controllerBox.withLock({ $0 }) {
                        media.runScript(for: call.uuid, controller: controller, printer: printer)
                    }
                    if let provider = providerBox.withLock({ $0 }) {
                        status.withLock {
                            $0?.stop()
                            $0 = LiveStatus(provider: provider, call: call.uuid)
                        }
                    }
                    state.values.withLock { $0.connected = true }
                    state.wake.signal()
                case .updated:
                    if let held = event.update?.isRemoteHeld { printer.emit(held ? "remote-held" : "resumed") }
                    if let path = event.update?.mediaPath { CallOutput.mediaPathChanged(path, printer: printer) }
                case .dtmfReceived:
                    if let digit = event.digit {
                        printer.emit("dtmf-received", [("digit", .string(String(digit)))])
                    }
                case .ended:
                    guard let call = event.call, let details = event.endDetails else { return }
                    CallOutput.ended(call, details, printer: printer)
                    // A call transferred away ends on its own; the command goes on with the new one.
                    let isCurrent = state.values.withLock { values -> Bool in
                        guard values.current == nil || values.current == call.uuid else { return false }
                        values.ended = (call, details)
                        return true
                    }
                    if isCurrent {
                        status.withLock { $0?.stop() }
                        state.wake.signal()
                    }
                default:
                    break
                }
            }
        } catch {
            switch error {
            case .usage(let usage):
                io.error("switchboard call: \(usage.message)")
                return 2
            case .failed(let why):
                io.error("switchboard call: \(why)")
                return 1
            }
        }
        let provider = harness.provider
        controllerBox.withLock { $0 = harness.controller }
        providerBox.withLock { $0 = provider }

        if registers {
            while state.values.withLock({ $0.registered == nil && !$0.interrupted }) { state.wake.wait() }
            guard state.values.withLock({ $0.registered == true && !$0.interrupted }) else {
                harness.stop(timeout: .seconds(2))
                return 1
            }
        }

        let uuid = UUID()
        state.values.withLock { $0.current = uuid }
        let handle = Handle(type: .generic, value: target)
        let accepted = DispatchSemaphore(value: 0)
        let refusal = Mutex<CallError?>(nil)
        harness.controller.request(
            CallTransaction(action: StartCallAction(call: uuid, handle: handle, account: harness.accountID))
        ) { error in
            refusal.withLock { $0 = error }
            accepted.signal()
        }
        accepted.wait()
        provider.setAudio(media.audio(callNumber: 1), for: uuid)
        if let error = refusal.withLock({ $0 }) {
            io.error("switchboard call: \(error)")
            harness.stop(timeout: .seconds(2))
            return error == .invalidHandle(target) ? 2 : 1
        }

        // Until connected, ended or interrupted; then --duration (or until the other side hangs up).
        while state.values.withLock({ !$0.connected && $0.ended == nil && !$0.interrupted }) { state.wake.wait() }
        if state.values.withLock({ $0.connected && $0.ended == nil && !$0.interrupted }) {
            let deadline: DispatchTime = duration.map { .now() + $0 } ?? .distantFuture
            while state.values.withLock({ $0.ended == nil && !$0.interrupted }) {
                if state.wake.wait(timeout: deadline) == .timedOut { break }
            }
        }
        if let current = state.values.withLock({ $0.ended == nil ? $0.current : nil }) {
            harness.controller.request(CallTransaction(action: EndCallAction(call: current))) { _ in }
            let deadline = DispatchTime.now() + 40
            while state.values.withLock({ $0.ended == nil }) {
                if state.wake.wait(timeout: deadline) == .timedOut { break }
            }
        }
        if registers, let account = harness.accountID {
            state.values.withLock { $0.registered = nil }
            try? provider.unregister(account: account)
            let deadline = DispatchTime.now() + 40
            while state.values.withLock({ $0.registered == nil }) {
                if state.wake.wait(timeout: deadline) == .timedOut { break }
            }
        }
        harness.stop(timeout: .seconds(2))
        guard let (call, details) = state.values.withLock({ $0.ended }) else { return 1 }
        return CallOutput.endedNormally(call, details) ? 0 : 1
    }
}
