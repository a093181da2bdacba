import Dispatch
import Foundation
import Switchboard
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Relays every event to one closure (on the provider's delegate queue, in order): the provider hands them
/// over as they are (`CallProviderEventRelay`); the callbacks say the same for any other path. Actions are
/// fulfilled, as by the protocol's default implementations.
final class RelayDelegate: CallProviderEventRelay {
    let handler: @Sendable (CallProviderEvent) -> Void
    /// The kinds `handler` does anything with (`nil`: every kind); the provider hands over no other.
    let relayedKinds: Set<CallProviderEvent.Kind>?

    init(_ handler: @escaping @Sendable (CallProviderEvent) -> Void, kinds: Set<CallProviderEvent.Kind>? = nil) {
        self.handler = handler
        relayedKinds = kinds
    }

    /// Every action is fulfilled as it comes: the provider does that on its loop and relays none.
    var fulfillsActions: Bool { true }

    /// Every event as the provider made it (no callback per kind, no second event made from it), but for
    /// what the callbacks below leave to the defaults: actions are fulfilled, a pushed call's INVITE is not
    /// heard.
    func provider(_ provider: CallProvider, relay event: CallProviderEvent) {
        switch event.kind {
        case .action: event.action?.fulfill()
        case .inviteArrived: break
        default: handler(event)
        }
    }

    func providerDidReset(_ provider: CallProvider) { handler(.didReset) }
    func providerDidBegin(_ provider: CallProvider) { handler(.didBegin) }
    func provider(_ provider: CallProvider, didReceive invite: CallInvite) { handler(.invite(invite)) }
    func provider(_ provider: CallProvider, didCancel invite: CancelledCallInvite) {
        handler(.inviteCancelled(invite))
    }
    func provider(_ provider: CallProvider, timedOutPerforming action: CallAction) { handler(.actionTimedOut(action)) }
    func provider(_ provider: CallProvider, didActivateAudioFor callUUID: UUID) { handler(.audioActivated(callUUID)) }
    func provider(_ provider: CallProvider, didDeactivateAudioFor callUUID: UUID) {
        handler(.audioDeactivated(callUUID))
    }
    func provider(_ provider: CallProvider, callDidStartConnecting call: Call) { handler(.startedConnecting(call)) }
    func provider(_ provider: CallProvider, callDidStartRinging call: Call, statusCode: Int, hasEarlyMedia: Bool) {
        handler(.ringing(call, statusCode: statusCode, hasEarlyMedia: hasEarlyMedia))
    }
    func provider(_ provider: CallProvider, callDidConnect call: Call) { handler(.connected(call)) }
    func provider(_ provider: CallProvider, callIsReconnecting call: Call) { handler(.reconnecting(call)) }
    func provider(_ provider: CallProvider, callDidReconnect call: Call) { handler(.reconnected(call)) }
    func provider(_ provider: CallProvider, call: Call, didUpdate update: CallUpdate) {
        handler(.updated(call, update))
    }
    func provider(_ provider: CallProvider, call: Call, didEndWith details: CallEndDetails) {
        handler(.ended(call, details))
    }
    func provider(_ provider: CallProvider, call: Call, didReceiveDTMF digit: Character) {
        handler(.dtmfReceived(call, digit: digit))
    }
    func provider(_ provider: CallProvider, call: Call, wasTransferredTo target: Handle, newCallUUID: UUID) {
        handler(.transferred(call, to: target, newCallUUID: newCallUUID))
    }
    func provider(_ provider: CallProvider, account: String, didChange state: RegistrationState) {
        handler(.registration(account: account, state: state))
    }
    func provider(_ provider: CallProvider, didReceive message: TextMessage) { handler(.message(message)) }
    func provider(_ provider: CallProvider, account: String, didReceive summary: MessageSummary) {
        handler(.messageSummary(account: account, summary: summary))
    }
}

/// The provider a CLI command runs on, built from the account, transport and media flags (CLI.md), with
/// `--trace` printing and the event printer.
final class ProviderHarness: Sendable {
    let provider: CallProvider
    let controller: CallController
    let printer: EventPrinter
    let accountID: String?
    let io: CommandIO
    /// Held here: the provider holds its delegate weakly.
    let delegate: any CallProviderDelegate
    /// `--trace`, `--pcap` and `--ladder`, if any is asked for.
    let views: SessionViews?

    /// What the command needs beyond the shared flags.
    struct Needs {
        /// Register the account when the provider starts.
        var registers: Bool
        /// Listen on `--listen` or, without it, on this default (`nil`: any free port).
        var defaultListen: String?
        /// The URI a `call` goes to (for the local identity when there is no registrar).
        var target: String?
        /// The media timeout without `--media-timeout` (`answer --auto-answer`: 30 s, so calls whose caller
        /// vanished after the ACK end by themselves).
        var defaultMediaTimeout: Duration? = nil
        /// The fewest calls the provider must carry at once unless `--max-calls` says otherwise (`load`:
        /// its `--concurrent`, so the provider's limit never refuses a call the command meant to start).
        var minimumCallLimit = 0
        /// The new calls per second to prepare for unless `--expected-rate` says otherwise (`load`: its
        /// `--rate`, so the transaction limit holds the transactions that rate keeps alive).
        var expectedCallRate = 0
    }

    private init(
        provider: CallProvider, queue: DispatchQueue, printer: EventPrinter, accountID: String?, io: CommandIO,
        delegate: any CallProviderDelegate, views: SessionViews?
    ) {
        self.delegate = delegate
        self.views = views
        self.provider = provider
        self.controller = CallController(provider: provider, queue: queue)
        self.printer = printer
        self.accountID = accountID
        self.io = io
    }

    /// Builds the configuration from `options` and starts the provider; `handler` hears every event of
    /// `kinds` (of every kind when `nil`).
    static func start(
        _ options: AccountOptions, needs: Needs, io: CommandIO, printer: EventPrinter,
        kinds: Set<CallProviderEvent.Kind>? = nil, handler: @escaping @Sendable (CallProviderEvent) -> Void
    ) throws(HarnessError) -> ProviderHarness {
        try start(options, needs: needs, io: io, printer: printer, delegate: RelayDelegate(handler, kinds: kinds))
    }

    /// Builds the configuration from `options` and starts the provider with `delegate` (held by the harness).
    static func start(
        _ options: AccountOptions, needs: Needs, io: CommandIO, printer: EventPrinter,
        delegate: any CallProviderDelegate
    ) throws(HarnessError) -> ProviderHarness {
        var configuration: CallProviderConfiguration
        let accountID: String?
        let views: SessionViews?
        do throws(UsageError) {
            (configuration, accountID) = try makeConfiguration(options, needs: needs)
            views = try SessionViews.open(options, io: io)
        } catch {
            throw .usage(error)
        }
        // Registration starts below, once the trace stream is attached, so the views see the first REGISTER.
        let registers = configuration.accounts.first?.registersOnStart == true
        for i in configuration.accounts.indices { configuration.accounts[i].registersOnStart = false }
        let provider: CallProvider
        do throws(CallError) {
            provider = try CallProvider(
                configuration: configuration,
                logger: Logger(
                    label: "switchboard",
                    handler: StandardErrorLogHandler(logLevel: options.has("verbose") ? .debug : .warning)))
        } catch {
            throw .failed("\(error)")
        }
        // One queue for the delegate and the controller's completions: the provider hands a loop
        // iteration's events and completions to it in one go.
        let queue = DispatchQueue(label: "switchboard.cli")
        provider.setDelegate(delegate, queue: queue)
        let harness = ProviderHarness(
            provider: provider, queue: queue, printer: printer, accountID: accountID, io: io, delegate: delegate,
            views: views)
        views?.start(provider.traces) { printer.elapsed(at: $0) }
        if registers, let accountID {
            do throws(CallError) {
                try provider.register(account: accountID)
            } catch {
                harness.stop(timeout: .seconds(1))
                throw .failed("\(error)")
            }
        }
        return harness
    }

    /// Invalidates the provider (ending calls and registrations within `timeout`), then lets the views
    /// take the last messages and close their files.
    func stop(timeout: Duration) {
        provider.invalidate(timeout: timeout)
        for problem in views?.finish() ?? [] { io.error("switchboard: \(problem)") }
    }

    /// The provider configuration for the shared flags.
    static func makeConfiguration(_ options: AccountOptions, needs: Needs) throws(UsageError) -> (
        CallProviderConfiguration, String?
    ) {
        var configuration = CallProviderConfiguration(localizedName: "Switchboard/\(SwitchboardCommand.version)")
        let transport = try options.transportKind
        let registrar = try options.registrar
        if needs.registers, registrar == nil { throw UsageError(message: "--registrar is required") }
        configuration.tls = CallProviderConfiguration.TLS(
            trustedCAFile: options["tls-ca"], certificateFile: options["tls-cert"],
            privateKeyFile: options["tls-key"])
        configuration.codecs = try options.codecs
        configuration.srtp = try options.srtp
        configuration.srtpKeying = try options.srtpKeying
        configuration.srtpSuites = try options.srtpSuites
        configuration.usesWebRTCProfile = options.has("webrtc")
        if let ports = try options.rtpPorts { configuration.mediaPorts = ports }
        configuration.mediaTimeout = try options.mediaTimeout(default: needs.defaultMediaTimeout)
        try options.applyICE(to: &configuration)
        // `--media off` (answer, load): SDP without RTP, as sipp's -sn uac/uas.
        switch options["media"] {
        case nil, "rtp", "file": break
        case "off": configuration.mediaMode = .signallingOnly
        case let other?: throw UsageError(message: "bad value for --media: \(other) (rtp|off)")
        }
        if let text = options["max-calls"] {
            guard let value = Int(text), value > 0 else {
                throw UsageError(message: "bad value for --max-calls: \(text)")
            }
            configuration.maximumCalls = value
        } else {
            configuration.maximumCalls = max(configuration.maximumCalls, needs.minimumCallLimit)
        }
        configuration.outgoingAnswerTimeout = try options.timeout(
            "answer-timeout", default: configuration.outgoingAnswerTimeout)
        if let text = options["expected-rate"] {
            guard let value = Int(text), (0...100_000).contains(value) else {
                throw UsageError(message: "bad value for --expected-rate: \(text) (0-100000 calls per second)")
            }
            configuration.expectedCallRate = value
        } else if needs.expectedCallRate > 0 {
            configuration.expectedCallRate = needs.expectedCallRate
        }
        // Listeners: the chosen transport on --listen (or the default), plus UDP on the same port, since
        // requests over UDP leave from the listening socket. `--listen none`: no TCP, TLS or WebSocket
        // listener, only UDP on a free port (the provider's default adds TCP); over TCP and TLS the Contact
        // then names the connection each request leaves on, and the far end reaches this side over it.
        if options["listen"] == "none" {
            configuration.listeners = [.init(.udp, "0.0.0.0:0")]
        } else if let listen = options["listen"] ?? needs.defaultListen {
            let listener = try options.listener(listen, transport: transport)
            let kind = listener.transport
            configuration.listeners = [listener]
            if kind != .udp { configuration.listeners.append(.init(.udp, listener.address)) }
            if kind == .udp, options["transport"] == nil {
                configuration.listeners.append(.init(.tcp, listener.address))
            }
        }
        var accountID: String?
        if let user = options["user"], !user.isEmpty {
            let fallbackHost = needs.target.flatMap(Self.host(ofURI:)) ?? "127.0.0.1"
            let aor = try options.addressOfRecord(fallbackHost: fallbackHost)
            let credentials: Account.Credentials = options.password.map { .password($0) } ?? .none
            var account = Account(
                addressOfRecord: aor.description, authenticationUser: options.authUser, credentials: credentials,
                registrar: registrar?.description, outboundProxy: try options.proxy?.description, transport: transport,
                registersOnStart: needs.registers, webSocketURL: try options.webSocketURL, push: try options.push)
            if options.has("mwi") {
                account.subscribesToMessageSummary = true
                account.messageSummaryURI = try options.messageSummaryURI?.description
            }
            if let text = options["expires"] {
                guard let expires = UInt32(text) else { throw UsageError(message: "bad value for --expires: \(text)") }
                account.expires = expires
            }
            configuration.accounts = [account]
            accountID = account.id
        } else if needs.registers {
            throw UsageError(message: "--user is required")
        } else if options["ws-url"] != nil {
            // The URL is the account's way to its server: without an account it would be silently unused.
            throw UsageError(message: "--ws-url needs --user (the account whose requests it carries)")
        } else if try options.push != nil {
            throw UsageError(
                message: "--pn-provider and --pn-prid need --user and --registrar (the binding they go in)")
        }
        return (configuration, accountID)
    }

    /// The host of a SIP URI written by a user (`sip:bob@10.0.0.1:5060` -> `10.0.0.1`).
    static func host(ofURI text: String) -> String? {
        var rest = Substring(text)
        if let colon = rest.firstIndex(of: ":"), rest[..<colon].lowercased().hasPrefix("sip") {
            rest = rest[rest.index(after: colon)...]
        }
        if let at = rest.firstIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        if rest.hasPrefix("[") {
            guard let end = rest.firstIndex(of: "]") else { return nil }
            return String(rest[rest.index(after: rest.startIndex)..<end])
        }
        let host = rest.prefix { $0 != ":" && $0 != ";" && $0 != "?" && $0 != ">" }
        return host.isEmpty ? nil : String(host)
    }

    /// Waits until the account is registered (`true`) or registration failed for good (`false`).
    func waitForRegistration(_ outcome: RegistrationWait, timeout: Double) -> Bool {
        let deadline = DispatchTime.now() + timeout
        while true {
            if let result = outcome.result.withLock({ $0 }) { return result }
            if outcome.wake.wait(timeout: deadline) == .timedOut { return false }
        }
    }
}

/// A registration outcome a command waits for.
final class RegistrationWait: Sendable {
    let result = Mutex<Bool?>(nil)
    let wake = DispatchSemaphore(value: 0)

    func set(_ value: Bool) {
        result.withLock { $0 = value }
        wake.signal()
    }
}

/// Why a harness could not start.
enum HarnessError: Error {
    case usage(UsageError)
    case failed(String)
}

/// Prints a registration state change as CLI.md's event lines; returns whether it is final (registered,
/// failed without retry or unregistered) and how.
@discardableResult
func printRegistration(_ state: RegistrationState, printer: EventPrinter) -> Bool? {
    switch state {
    case .registering:
        printer.emit("registering")
        return nil
    case .registered(let expires, let contact):
        let seconds = max(0, Int(expires.timeIntervalSinceNow.rounded()))
        printer.emit("registered", [("expires", .int(seconds)), ("contact", .string(contact))])
        return true
    case .failed(let failure, let willRetry):
        var fields: [(String, EventValue)] = []
        if let status = failure.statusCode { fields.append(("status", .int(status))) }
        fields.append(("reason", .string(failure.reason)))
        printer.emit("reg-failed", fields)
        return willRetry ? nil : false
    case .unregistered:
        printer.emit("unregistered")
        return false
    }
}
