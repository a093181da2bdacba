import Dispatch
import Foundation
import SIPAuthentication
import SIPMessage
import SIPTransport
import SIPUserAgent
import Switchboard
import Synchronization

/// `switchboard register` (CLI.md): registers, prints each state change, refreshes until SIGINT/SIGTERM or
/// `--duration S`, then unregisters. Exit 0 only if registration and unregistration both succeeded.
enum RegisterCommand {
    static let flags =
        AccountOptions.flags + [
            FlagSpec(name: "expires", valueName: "S", help: "requested registration lifetime (3600)")
        ]

    static let help = helpText(
        usage: "switchboard register --user USER@DOMAIN --registrar SIPURI [--password SECRET] [flags]",
        summary: """
            Registers the user, prints each state change (registering, registered, reg-failed, unregistered),
            refreshes before expiry until SIGINT/SIGTERM or --duration, then unregisters.
            Exit status: 0 if registration and unregistration both succeeded, 1 otherwise, 2 on bad usage.
            """,
        flags: flags)

    /// What happened, shared between the loop and the waiting command.
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
        let expires: UInt32
        let registrar: SIPURI
        let aor: SIPURI
        let transport: TransportProtocol?
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
            guard let r = try options.registrar else { throw UsageError(message: "--registrar is required") }
            registrar = r
            aor = try options.addressOfRecord(fallbackHost: r.host.description)
            transport = try options.transport
            duration = try options.duration
            if let text = options["expires"] {
                guard let e = UInt32(text) else { throw UsageError(message: "bad value for --expires: \(text)") }
                expires = e
            } else {
                expires = 3600
            }
        } catch {
            io.error("switchboard register: \(error.message)")
            return 2
        }

        let printer = EventPrinter(json: options.has("json"), output: io.output)
        let outcome = Outcome()
        Signals.install { _ in outcome.wake.signal() }

        let engine: Engine
        do {
            engine = try Engine(
                transport: TransportConfiguration(tls: TLSConfiguration(trustedCAFile: options["tls-ca"])))
        } catch {
            io.error("switchboard register: \(error)")
            return 1
        }
        if options.has("trace") {
            let colour = isatty(2) != 0
            engine.transport.onTrace = { record in
                io.error(SIPTracer.format(record, elapsed: printer.elapsed, colour: colour))
            }
        }
        let user = aor.user ?? "user"
        let authUser = options.authUser ?? user
        let password = options.password
        let credentials: @Sendable (String) -> DigestCredentials? = { _ in
            password.map { DigestCredentials(username: authUser, password: $0) }
        }
        let driver = RegistrationDriver(
            engine: engine,
            settings: RegistrationDriver.Settings(
                addressOfRecord: aor, registrar: registrar, transport: transport, contactUser: user, expires: expires,
                userAgent: "Switchboard/\(SwitchboardCommand.version)"),
            credentials: credentials)
        driver.onState = { state in
            switch state {
            case .registering:
                printer.emit("registering")
            case .registered(let granted, let contact, _):
                printer.emit(
                    "registered", [("expires", .int(Int(granted))), ("contact", .string(contact.description))])
                outcome.state.withLock { $0.registered = true }
            case .failed(let error, let willRetry):
                var fields: [(String, EventValue)] = []
                if let status = error.status { fields.append(("status", .int(status))) }
                fields.append(("reason", .string(error.reason)))
                printer.emit("reg-failed", fields)
                if !willRetry {
                    outcome.state.withLock { $0.fatal = true }
                    outcome.wake.signal()
                }
            case .unregistered:
                printer.emit("unregistered")
                outcome.state.withLock { $0.unregistered = true }
                outcome.wake.signal()
            case .idle, .unregistering:
                break
            }
        }
        do throws(UsageError) {
            if let listen = try options.listenAddress(default: transport ?? .udp) {
                let t = transport ?? .udp
                let result = Mutex<TransportError?>(nil)
                let done = DispatchSemaphore(value: 0)
                engine.execute {
                    do throws(TransportError) {
                        _ = try engine.transport.listen(t == .tls ? .tcp : t, on: listen)
                        if t != .udp { _ = try engine.transport.listen(.udp, on: listen) }
                    } catch {
                        result.withLock { $0 = error }
                    }
                    done.signal()
                }
                done.wait()
                if let error = result.withLock({ $0 }) {
                    io.error("switchboard register: cannot listen on \(listen): \(error)")
                    engine.shutdown()
                    return 1
                }
            }
        } catch {
            io.error("switchboard register: \(error.message)")
            engine.shutdown()
            return 2
        }

        engine.execute { driver.start() }
        if let duration {
            DispatchQueue.global().asyncAfter(deadline: .now() + duration) { outcome.wake.signal() }
        }
        outcome.wake.wait()
        let fatal = outcome.state.withLock { $0.fatal }
        let registered = outcome.state.withLock { $0.registered }
        if registered, !fatal {
            engine.execute { driver.stop() }
            // Wait for the unregistration (bounded: 64*T1 plus slack).
            let deadline = ContinuousClock.now + .seconds(40)
            while !outcome.state.withLock({ $0.unregistered }), ContinuousClock.now < deadline {
                _ = outcome.wake.wait(timeout: .now() + 0.05)
            }
        }
        engine.execute { driver.detach() }
        engine.shutdown()
        let final = outcome.state.withLock { $0 }
        return final.registered && final.unregistered && !final.fatal ? 0 : 1
    }
}
