import Dispatch
import Foundation
import Switchboard
import Synchronization

/// `switchboard register` (CLI.md): registers, prints each state change, refreshes until SIGINT/SIGTERM or
/// `--duration S`, then unregisters. Exit 0 only if registration and unregistration both succeeded.
enum RegisterCommand {
    static let flags =
        AccountOptions.flags + [
            FlagSpec(name: "expires", valueName: "S", help: "requested registration lifetime (600)"),
            FlagSpec(
                name: "mwi", valueName: nil,
                help: "once registered, subscribe to message-waiting (RFC 3842) and print mwi events"),
            FlagSpec(name: "mwi-uri", valueName: "SIPURI", help: "the mailbox URI for --mwi (default: the user)"),
        ]

    static let help = helpText(
        usage: "switchboard register --user USER@DOMAIN --registrar SIPURI [--password SECRET] [flags]",
        summary: """
            Registers the user, prints each state change (registering, registered, reg-failed, unregistered),
            refreshes before expiry until SIGINT/SIGTERM or --duration, then unregisters.
            With --mwi it also subscribes to the user's message-waiting state once registered (SUBSCRIBE
            Event: message-summary, refreshed, unsubscribed before unregistering) and prints one line per
            summary received: mwi waiting=yes|no voice=NEW/OLD [account=URI].
            Exit status: 0 if registration and unregistration both succeeded, 1 otherwise, 2 on bad usage.
            """,
        flags: flags)

    /// What happened, shared between the delegate queue and the waiting command.
    final class Outcome: Sendable {
        struct State {
            var registered = false
            var unregistered = false
            var fatal = false
        }
        let state = Mutex(State())
        let wake = DispatchSemaphore(value: 0)
    }

    static func run(_ arguments: [String], io: CommandIO, environment: [String: String]) -> Int32 {
        let options: AccountOptions
        let duration: Double?
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
        } catch {
            io.error("switchboard register: \(error.message)")
            return 2
        }

        let printer = EventPrinter(json: options.has("json"), output: io.output)
        let outcome = Outcome()
        Signals.install { _ in outcome.wake.signal() }
        let harness: ProviderHarness
        do throws(HarnessError) {
            harness = try ProviderHarness.start(
                options, needs: .init(registers: true, defaultListen: nil, target: nil), io: io, printer: printer
            ) { event in
                if let summary = event.messageSummary {
                    printMessageSummary(summary, printer: printer)
                    return
                }
                guard let state = event.registrationState else { return }
                switch printRegistration(state, printer: printer) {
                case true?:
                    outcome.state.withLock { $0.registered = true }
                case false?:
                    if state == .unregistered {
                        outcome.state.withLock { $0.unregistered = true }
                    } else {
                        outcome.state.withLock { $0.fatal = true }
                    }
                    outcome.wake.signal()
                case nil:
                    break
                }
            }
        } catch {
            switch error {
            case .usage(let usage):
                io.error("switchboard register: \(usage.message)")
                return 2
            case .failed(let why):
                io.error("switchboard register: \(why)")
                return 1
            }
        }

        if let duration {
            commandTimers.asyncAfter(deadline: .now() + duration) { outcome.wake.signal() }
        }
        outcome.wake.wait()
        let registered = outcome.state.withLock { $0.registered && !$0.fatal }
        if registered, let account = harness.accountID {
            try? harness.provider.unregister(account: account)
            // Wait for the unregistration (bounded: 64*T1 plus slack).
            let deadline = ContinuousClock.now + .seconds(40)
            while !outcome.state.withLock({ $0.unregistered || $0.fatal }), ContinuousClock.now < deadline {
                _ = outcome.wake.wait(timeout: .now() + 0.05)
            }
        }
        harness.stop(timeout: .seconds(2))
        let final = outcome.state.withLock { $0 }
        return final.registered && final.unregistered && !final.fatal ? 0 : 1
    }
}

/// The `mwi` event line of a message summary (RFC 3842): `mwi waiting=yes voice=2/8 account=sip:*97@host`.
func printMessageSummary(_ summary: MessageSummary, printer: EventPrinter) {
    var fields: [(String, EventValue)] = [
        ("waiting", .bool(summary.messagesWaiting)),
        ("voice", .string("\(summary.newMessages)/\(summary.oldMessages)")),
    ]
    if let account = summary.messageAccount { fields.append(("account", .string(account))) }
    printer.emit("mwi", fields)
}
