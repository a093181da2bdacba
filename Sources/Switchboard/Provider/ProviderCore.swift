import Foundation
import SIPAuthentication
import SIPCore
import SIPMessage
import SIPTransport
import SIPUserAgent

/// The provider's state on the signalling loop: accounts and their registrations, calls, and the actions
/// the app requested. Every method runs on the loop.
final class ProviderCore: @unchecked Sendable {
    // @unchecked Sendable: loop-confined; the reference crosses threads only to post work back to the loop.

    /// One configured account, with its registration.
    struct AccountEntry {
        var account: Account
        var addressOfRecord: SIPURI
        var registrar: SIPURI?
        var outboundProxy: SIPURI?
        var driver: RegistrationDriver?
        var state: RegistrationState = .unregistered
        /// Where message-summary SUBSCRIBEs go (the AOR unless configured).
        var messageSummaryURI: URI

        init(_ account: Account) throws(CallError) {
            self.account = account
            guard let aor = try? SIPURI(account.addressOfRecord), aor.user != nil else {
                throw .configuration("account \(account.id): bad address of record \(account.addressOfRecord)")
            }
            addressOfRecord = aor
            messageSummaryURI = .sip(aor)
            if let text = account.messageSummaryURI {
                guard let uri = try? SIPURI(text) else {
                    throw .configuration("account \(account.id): bad message-summary URI \(text)")
                }
                messageSummaryURI = .sip(uri)
            }
            if let text = account.registrar {
                guard let uri = try? SIPURI(text) else {
                    throw .configuration("account \(account.id): bad registrar \(text)")
                }
                registrar = uri
            }
            if let text = account.outboundProxy {
                guard let uri = try? SIPURI(text) else {
                    throw .configuration("account \(account.id): bad outbound proxy \(text)")
                }
                outboundProxy = uri
            }
        }

        /// Digest credentials for a realm, from the account's password or credentials provider.
        var credentials: @Sendable (String) -> DigestCredentials? {
            let user = account.authenticationUser ?? addressOfRecord.user ?? ""
            switch account.credentials {
            case .none: return { _ in nil }
            case .password(let password): return { _ in DigestCredentials(username: user, password: password) }
            case .provider(let provide):
                return { realm in provide(realm).map { DigestCredentials(username: user, password: $0) } }
            }
        }
    }

    let engine: Engine
    let configuration: CallProviderConfiguration
    let logger: Logger
    var provider = WeakProvider()
    var accounts: [String: AccountEntry] = [:]
    var accountOrder: [String] = []
    var calls: [UUID: CallRecord] = [:]
    /// The calls not yet ended, so that the limit check costs O(1) per new call.
    var liveCalls = Set<UUID>()
    var nextCallSequence: UInt64 = 0
    /// The calls in the order they began (sorted when asked: snapshots and the wind-down are rare).
    var callOrder: [UUID] { calls.values.sorted { $0.sequence < $1.sequence }.map(\.uuid) }
    var sessions: SessionDriver
    /// MESSAGE and OPTIONS outside calls.
    let messages: OutOfDialogSender
    /// The accounts' message-summary subscriptions.
    var subscriptions: SubscriptionDriver
    var sessionToCall: [SessionKey: UUID] = [:]
    var isTracing = false
    /// The media stream of each session that has one (opened when its offer or answer was built).
    var streams: [SessionKey: MediaStream] = [:]
    var isWindingDown = false
    /// Run when an account's unregistration ends (while winding down).
    var registrationWaiters: [String: [() -> Void]] = [:]
    /// Events and controller completions of this loop iteration, handed to their queues together at its
    /// end (`flushDeliveries`).
    private var pendingDeliveries: [EventOutlet.Delivery] = []
    private var isFlushScheduled = false

    init(engine: Engine, configuration: CallProviderConfiguration, accounts: [AccountEntry], logger: Logger) {
        self.engine = engine
        self.configuration = configuration
        self.logger = logger
        for entry in accounts {
            self.accounts[entry.account.id] = entry
            accountOrder.append(entry.account.id)
        }
        sessions = SessionDriver(engine: engine, settings: SessionSetup.Settings(configuration))
        messages = OutOfDialogSender(engine: engine, userAgent: configuration.localizedName)
        subscriptions = SubscriptionDriver(
            engine: engine, logger: logger, t1: configuration.t1, userAgent: configuration.localizedName)
    }

    // MARK: Start and stop

    /// Opens the listeners and wires the session driver. Returns the first failure.
    func start() -> CallError? {
        let configured =
            configuration.listeners.isEmpty
            ? [CallProviderConfiguration.Listener(.udp, "0.0.0.0:0"), .init(.tcp, "0.0.0.0:0")]
            : configuration.listeners
        // UDP first: a port 0 is then picked among free UDP ports (a busy host can hold thousands of UDP sockets,
        // and few TCP ones), and TCP/TLS share it.
        let listeners = configured.filter { $0.transport == .udp } + configured.filter { $0.transport != .udp }
        // The port UDP got may be taken for TCP (another process's connection): then every listener opened
        // is closed and the kernel picks again, a few times.
        var outcome = openListeners(listeners)
        for _ in 1..<8 {
            guard case .sharedPortTaken(_, let opened) = outcome else { break }
            for address in opened { engine.transport.stopListening(at: address) }
            outcome = openListeners(listeners)
        }
        switch outcome {
        case .opened: break
        case .failed(let error), .sharedPortTaken(let error, _): return error
        }
        sessions.delegate = self
        sessions.onMessage = { [weak self] request in self?.sessionDriver(receivedMessage: request) }
        sessions.onMessageSummary = { [weak self] summary, request in
            self?.sessionDriver(receivedMessageSummary: summary, request: request)
        }
        wireSubscriptions()
        sessions.mediaAddress = { [weak self] key, host in self?.openMedia(key, host: host) ?? (host, 0) }
        engine.transport.onTrace = { [weak self] record in self?.trace(record) }
        return nil
    }

    private enum ListenOutcome {
        case opened
        case failed(CallError)
        /// A port picked for one transport was taken for another; `opened` are the listeners bound so far.
        case sharedPortTaken(CallError, opened: [SocketAddress])
    }

    /// Opens `listeners` in order; those on port 0 of one host share the port the first of them got.
    private func openListeners(_ listeners: [CallProviderConfiguration.Listener]) -> ListenOutcome {
        var boundPort: [String: UInt16] = [:]
        var opened: [SocketAddress] = []
        for listener in listeners {
            let transport = listener.transport.transportProtocol
            if transport == .tls, configuration.tls.certificateFile == nil {
                return .failed(.configuration("listening on TLS needs tls.certificateFile and tls.privateKeyFile"))
            }
            var text = listener.address
            if text.hasPrefix(":") { text = "0.0.0.0" + text }
            guard var address = SocketAddress(parsing: text, defaultPort: transport.defaultPort) else {
                return .failed(.configuration("bad listener address \(listener.address)"))
            }
            let isPicked = address.port == 0
            var isShared = false
            if isPicked, let port = boundPort[address.host], let shared = SocketAddress(ip: address.host, port: port) {
                address = shared
                isShared = true
            }
            do throws(TransportError) {
                let bound = try engine.transport.listen(transport, on: address)
                opened.append(bound)
                if isPicked || boundPort[address.host] == nil { boundPort[address.host] = bound.port }
            } catch {
                let failure = CallError.configuration("cannot listen on \(listener): \(error)")
                if isShared, error.errno == EADDRINUSE { return .sharedPortTaken(failure, opened: opened) }
                return .failed(failure)
            }
        }
        return .opened
    }

    func enableTracing() { isTracing = true }

    /// Opens the media stream of a new session and returns the address and port its SDP announces. When
    /// no port is free the SDP carries port 0 and the call has no audio (logged).
    func openMedia(_ key: SessionKey, host: String) -> (host: String, port: UInt16) {
        let address = configuration.mediaAddress ?? host
        var events = MediaStreamEvents()
        events.dtmf = { [weak self, engine] digit in
            engine.execute { [weak self] in self?.mediaReceivedDigit(key, digit) }
        }
        events.timedOut = { [weak self, engine] in
            engine.execute { [weak self] in self?.mediaTimedOut(key) }
        }
        do throws(TransportError) {
            let stream = try engine.media.open(
                host: address, ports: configuration.mediaPorts, audio: configuration.audio,
                mediaTimeout: configuration.mediaTimeout, events: events)
            streams[key] = stream
            return (address, stream.port)
        } catch {
            logger.error("no media port", metadata: ["error": "\(error)"])
            return (address, 0)
        }
    }

    /// Closes a session's media stream (its RTCP BYE goes out).
    func closeMedia(_ key: SessionKey) {
        guard let stream = streams.removeValue(forKey: key) else { return }
        engine.media.perform { stream.close() }
    }

    func listeners() -> [CallProviderConfiguration.Listener] {
        var out: [CallProviderConfiguration.Listener] = []
        for transport in [TransportProtocol.udp, .tcp, .tls] {
            for family in [SocketAddress.Family.ipv4, .ipv6] {
                guard let address = engine.transport.listeningAddress(transport, family: family) else { continue }
                out.append(.init(SIPTransportKind(transport), address.description))
            }
        }
        return out
    }

    /// Ends every call and unregisters every account; `done` runs once every session finished and every
    /// registration was removed (or nothing was left to wait for).
    func windDown(_ done: @escaping @Sendable () -> Void) {
        isWindingDown = true
        var pending = 1
        let finishOne: () -> Void = {
            pending -= 1
            if pending == 0 { done() }
        }
        for uuid in callOrder {
            guard let record = calls[uuid] else { continue }
            if record.state != .ended { end(uuid, rejectStatus: 480, reason: .localEnded) }
            // `end` may have forgotten the record already (a call still resolving).
            guard calls[uuid] != nil else { continue }
            pending += 1
            record.onFinished.append(finishOne)
        }
        // Unsubscribe before unregistering: the notifier hears from a registered contact.
        for id in accountOrder where subscriptions.isSubscribed(id) {
            pending += 1
            subscriptions.stop(id, done: finishOne)
        }
        for id in accountOrder {
            guard let entry = accounts[id], entry.driver != nil else { continue }
            switch entry.state {
            case .registered, .registering:
                pending += 1
                registrationWaiters[id, default: []].append(finishOne)
                entry.driver?.stop()
            default:
                break
            }
        }
        finishOne()
    }

    /// Drops everything (after `windDown`).
    func reset() {
        for id in accountOrder { accounts[id]?.driver?.detach() }
        subscriptions.reset()
        sessions.reset()
        calls = [:]
        liveCalls = []
        flushDeliveries()
    }

    // MARK: Traces

    private func trace(_ record: TraceRecord) {
        guard isTracing, let provider = provider.provider, provider.outlet.hasTraceStreams else { return }
        let transport = SIPTransportKind(record.transport)
        let elapsed = engine.loop.now - record.time
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        provider.outlet.trace(
            SIPTraceEvent(
                direction: record.direction == .incoming ? .received : .sent, transport: transport,
                localAddress: record.local.description, remoteAddress: record.remote.description,
                date: engine.date.addingTimeInterval(-seconds), bytes: CredentialRedaction.redact(record.bytes)))
    }

    // MARK: Events

    /// Hands `event` to the streams and the delegate at the end of this loop iteration, in order with the
    /// other events and completions of the iteration.
    func emit(_ event: CallProviderEvent) {
        pendingDeliveries.append(.event(event))
        scheduleFlush()
    }

    /// Runs `body` (a controller's completion) on `queue` at the end of this loop iteration.
    func post(on queue: DispatchQueue, _ body: @escaping @Sendable () -> Void) {
        pendingDeliveries.append(.block(queue, body))
        scheduleFlush()
    }

    private func scheduleFlush() {
        guard !isFlushScheduled else { return }
        isFlushScheduled = true
        engine.loop.atIterationEnd { [weak self] in self?.flushDeliveries() }
    }

    /// Hands over what this iteration produced (also called before `providerDidReset`, so it stays last).
    func flushDeliveries() {
        isFlushScheduled = false
        guard !pendingDeliveries.isEmpty else { return }
        let batch = pendingDeliveries
        pendingDeliveries = []
        let provider = provider.provider
        guard let outlet = provider?.outlet else {
            // The provider is gone: no one hears events, but completions still run.
            for case .block(let queue, let body) in batch { queue.async(execute: body) }
            return
        }
        outlet.deliver(batch, from: provider)
    }

    // MARK: Accounts

    func registerOnStart() {
        for id in accountOrder where accounts[id]?.account.registersOnStart == true && accounts[id]?.registrar != nil {
            _ = register(id)
        }
        // An account without a registrar subscribes at once; the others once registered.
        for id in accountOrder where accounts[id]?.registrar == nil { subscribeToMessageSummary(id) }
    }

    func register(_ id: String) -> CallError? {
        guard var entry = accounts[id] else { return .unknownAccount(id) }
        guard let registrar = entry.registrar else { return .configuration("account \(id) has no registrar") }
        entry.driver?.detach()
        let transport = entry.account.transport?.transportProtocol
        let driver = RegistrationDriver(
            engine: engine,
            settings: RegistrationDriver.Settings(
                addressOfRecord: entry.addressOfRecord, registrar: registrar, transport: transport,
                contactUser: entry.addressOfRecord.user ?? "user", expires: entry.account.expires,
                keepAliveInterval: entry.account.keepAliveInterval, userAgent: configuration.localizedName),
            credentials: entry.credentials)
        driver.onState = { [weak self] state in self?.registrationChanged(id, state) }
        entry.driver = driver
        accounts[id] = entry
        driver.start()
        return nil
    }

    func unregister(_ id: String) -> CallError? {
        guard let entry = accounts[id] else { return .unknownAccount(id) }
        subscriptions.stop(id)
        guard let driver = entry.driver else { return nil }
        driver.stop()
        return nil
    }

    private func registrationChanged(_ id: String, _ state: SIPUserAgent.RegistrationState) {
        let mapped: RegistrationState
        switch state {
        case .idle, .unregistering: return
        case .registering: mapped = .registering
        case .registered(let expires, let contact, _):
            mapped = .registered(
                expires: engine.date.addingTimeInterval(Double(expires)), contact: contact.description)
        case .failed(let error, let willRetry):
            let kind: RegistrationFailure.Kind =
                switch error.code {
                case .authenticationFailed: .authenticationFailed
                case .rejected: .rejected
                case .registrarUnreachable: .registrarUnreachable
                case .transportFailed: .transportClosed
                case .keepAliveTimeout: .keepAliveTimeout
                case .serverError: .serverError
                default: .protocolError
                }
            mapped = .failed(
                RegistrationFailure(kind: kind, statusCode: error.status, reason: error.reason), willRetry: willRetry)
        case .unregistered: mapped = .unregistered
        }
        accounts[id]?.state = mapped
        emit(.registration(account: id, state: mapped))
        if case .registered = mapped { subscribeToMessageSummary(id) }
        switch mapped {
        case .unregistered, .failed(_, willRetry: false):
            for waiter in registrationWaiters.removeValue(forKey: id) ?? [] { waiter() }
        default:
            break
        }
    }

    /// The account a call to or from `uri` belongs to: the one whose AOR matches, else the first.
    func account(matching uri: SIPURI?) -> AccountEntry? {
        if let uri {
            for id in accountOrder {
                guard let entry = accounts[id] else { continue }
                if entry.addressOfRecord.user == uri.user, entry.addressOfRecord.host == uri.host { return entry }
            }
            for id in accountOrder {
                guard let entry = accounts[id] else { continue }
                if entry.addressOfRecord.user == uri.user { return entry }
            }
        }
        return accountOrder.first.flatMap { accounts[$0] }
    }
}
