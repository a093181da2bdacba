import Foundation
import SIPCore
import SIPMessage
import SIPTransport
import SIPUserAgent

/// The provider on the signalling loop, coordinating its parts: it opens the listeners, starts and winds
/// down the accounts' registrations and subscriptions and the calls, sends and receives messages outside
/// calls, and hands every event to the app at the end of the loop iteration. Every method runs on the loop.
final class ProviderCore: @unchecked Sendable {
    // @unchecked Sendable: loop-confined; the reference crosses threads only to post work back to the loop.

    let engine: Engine
    /// Set once, read (a load) on the loop: no run-time exclusivity checks.
    @exclusivity(unchecked) var provider = WeakProvider()
    private let listenerSetup: ListenerSetup
    let accounts: AccountBook
    let registrations: Registrations
    /// The accounts' message-summary subscriptions.
    let subscriptions: SubscriptionDriver
    let calls: CallCoordinator
    let actions: ActionPipeline
    /// MESSAGE and OPTIONS outside calls.
    private let messages: OutOfDialogSender
    /// Loop-confined and pure: read and written without run-time exclusivity checks.
    @exclusivity(unchecked) private var outbox = EventOutbox()
    /// The end-of-iteration flush, made once: scheduling it does not allocate a closure per iteration.
    private lazy var scheduledFlush: () -> Void = { [weak self] in self?.flushDeliveries() }
    @exclusivity(unchecked) private var isTracing = false
    /// The accounts whose registration `suspend` put to sleep, for `resume`.
    private var suspendedAccounts: [String] = []

    init(
        engine: Engine, configuration: CallProviderConfiguration, accounts: AccountBook, dtls: DTLSCallSettings?,
        logger: Logger
    ) {
        self.engine = engine
        listenerSetup = ListenerSetup(transport: engine.transport, configuration: configuration)
        self.accounts = accounts
        let userAgent = configuration.localizedName
        registrations = Registrations(engine: engine, userAgent: userAgent, accounts: accounts.ids)
        subscriptions = SubscriptionDriver(engine: engine, logger: logger, t1: configuration.t1, userAgent: userAgent)
        calls = CallCoordinator(
            engine: engine, configuration: configuration, accounts: accounts, dtls: dtls, logger: logger)
        actions = ActionPipeline(engine: engine, calls: calls, configuration: configuration)
        messages = OutOfDialogSender(engine: engine, userAgent: userAgent)
    }

    // MARK: Start and stop

    /// Opens the listeners and wires the parts together. Returns the first failure.
    func start() -> CallError? {
        if let error = listenerSetup.open() { return error }
        calls.emit = { [weak self] event in self?.emit(event) }
        calls.onPushWake = { [weak self] id in self?.pushWoke(id) }
        calls.start()
        calls.sessions.onMessage = { [weak self] request in self?.received(request) }
        calls.sessions.onMessageSummary = { [weak self] summary, request in self?.received(summary, request) }
        actions.delegatePerformsActions = { [weak self] in
            self?.provider.provider?.outlet.delegatePerformsActions == true
        }
        registrations.onChange = { [weak self] id, state in self?.registrationChanged(id, state) }
        wireSubscriptions()
        if isTracing { installTrace() }
        return nil
    }

    /// Starts handing the transport's messages to the trace streams. Until then the transport has no trace
    /// handler, so it neither copies nor serialises a message for a trace nobody reads.
    func enableTracing() {
        isTracing = true
        installTrace()
    }

    private func installTrace() {
        engine.transport.onTrace = { [weak self] record in self?.trace(record) }
    }

    /// Account `id`'s push token changed.
    func updatePush(_ push: PushRegistration, for id: String) -> CallError? {
        guard let entry = accounts[id] else { return .unknownAccount(id) }
        registrations.updatePush(push, for: entry)
        return nil
    }

    /// A push came for account `id`: register again now, so the proxy delivers the INVITE over the new flow.
    private func pushWoke(_ id: String?) {
        guard let id, let entry = accounts[id], entry.registrar != nil else { return }
        suspendedAccounts.removeAll { $0 == id }
        _ = registrations.register(entry)
    }

    /// The app goes to the background: every registration stops refreshing and closes its connection,
    /// leaving its binding to the push parameters. Calls in progress keep theirs.
    func suspend() {
        for id in accounts.ids where registrations.suspend(id) && !suspendedAccounts.contains(id) {
            suspendedAccounts.append(id)
        }
    }

    /// The app is back: the accounts `suspend` put to sleep register again.
    func resume() {
        let waking = suspendedAccounts
        suspendedAccounts = []
        for id in waking { _ = register(id) }
    }

    func statistics() -> CallProviderStatistics {
        var figures = CallProviderStatistics()
        figures.liveCalls = calls.table.liveCount
        figures.calls = calls.table.count
        figures.sessions = calls.sessions.sessionCount
        figures.transactions = engine.core.transactionCount
        figures.mediaStreams = calls.media.openStreamCount
        figures.pooledPortPairs = calls.media.pooledPairCount
        figures.reusedPortPairs = calls.media.reusedPairCount
        figures.boundPortPairs = calls.media.boundPairCount
        return figures
    }

    func listeners() -> [CallProviderConfiguration.Listener] {
        ListenerSetup.bound(on: engine.transport)
    }

    /// Ends every call and unregisters every account; `done` runs once every session finished and every
    /// registration was removed (or nothing was left to wait for).
    func windDown(_ done: @escaping @Sendable () -> Void) {
        let countdown = Countdown(done)
        calls.windDown(countdown)
        // Unsubscribe before unregistering: the notifier hears from a registered contact.
        for id in accounts.ids where subscriptions.isSubscribed(id) { subscriptions.stop(id, done: countdown.expect()) }
        for id in accounts.ids where registrations.isBound(id) {
            registrations.unregister(id, then: countdown.expect())
        }
        countdown.start()
    }

    /// Drops everything (after `windDown`).
    func reset() {
        registrations.detachAll(in: accounts.ids)
        subscriptions.reset()
        calls.reset()
        flushDeliveries()
    }

    // MARK: Events

    /// Hands `event` to the streams and the delegate at the end of this loop iteration, in order with the
    /// other events and completions of the iteration.
    func emit(_ event: CallProviderEvent) { enqueue(.event(event)) }

    /// Runs `body` (a controller's completion) on `queue` at the end of this loop iteration.
    func post(on queue: DispatchQueue, _ body: @escaping @Sendable () -> Void) { enqueue(.block(queue, body)) }

    private func enqueue(_ delivery: EventOutlet.Delivery) {
        guard outbox.append(delivery) else { return }
        engine.loop.atIterationEnd(scheduledFlush)
    }

    /// Hands over what this iteration produced (also called before `providerDidReset`, so it stays last).
    func flushDeliveries() {
        let batch = outbox.take()
        guard !batch.isEmpty else { return }
        let provider = provider.provider
        guard let outlet = provider?.outlet else {
            // The provider is gone: no one hears events, but completions still run.
            for case .block(let queue, let body) in batch { queue.async(execute: body) }
            return
        }
        outlet.deliver(batch, from: provider)
    }

    private func trace(_ record: TraceRecord) {
        guard isTracing, let provider = provider.provider, provider.outlet.hasTraceStreams else { return }
        provider.outlet.trace(SIPTraceEvent(record, now: engine.loop.now, date: engine.date))
    }

    // MARK: Accounts

    func registerOnStart() {
        // Connections to an account's WebSocket server ask for its URL's path.
        for entry in accounts.all {
            guard let url = entry.webSocket else { continue }
            engine.transport.setWebSocketResource(url.resource, host: url.host, port: url.port)
        }
        for entry in accounts.all where entry.account.registersOnStart && entry.registrar != nil {
            _ = registrations.register(entry)
        }
        // An account without a registrar subscribes at once; the others once registered.
        for entry in accounts.all where entry.registrar == nil { subscribeToMessageSummary(entry.id) }
    }

    func register(_ id: String) -> CallError? {
        guard let entry = accounts[id] else { return .unknownAccount(id) }
        return registrations.register(entry)
    }

    func unregister(_ id: String) -> CallError? {
        guard accounts[id] != nil else { return .unknownAccount(id) }
        subscriptions.stop(id)
        registrations.unregister(id)
        return nil
    }

    private func registrationChanged(_ id: String, _ state: RegistrationState) {
        emit(.registration(account: id, state: state))
        if case .registered = state { subscribeToMessageSummary(id) }
    }

    // MARK: Messages outside calls

    /// Sends a MESSAGE (RFC 3428) from an account (the default when nil) outside any call.
    func sendMessage(
        _ message: TextMessage, from id: String?, completion: @escaping @Sendable (Result<Int, CallError>) -> Void
    ) {
        send(.message, to: message.to, from: id, contentType: message.contentType, body: message.body, completion)
    }

    /// Sends OPTIONS (RFC 3261 §11) from an account to `handle` outside any call: a qualify.
    func sendOptions(
        to handle: Handle, from id: String?, completion: @escaping @Sendable (Result<Int, CallError>) -> Void
    ) {
        send(.options, to: handle, from: id, contentType: nil, body: [], completion)
    }

    private func send(
        _ method: SIPMethod, to handle: Handle, from id: String?, contentType: String?, body: [UInt8],
        _ completion: @escaping @Sendable (Result<Int, CallError>) -> Void
    ) {
        let target: URI
        let entry: AccountEntry?
        do throws(CallError) {
            (target, entry) = try accounts.target(handle, from: id)
        } catch {
            completion(.failure(error))
            return
        }
        messages.send(
            OutOfDialogRequest(
                method: method, target: target, from: entry?.addressOfRecord, outboundProxy: entry?.outboundProxy,
                transport: entry?.transport, credentials: entry?.credentials, contentType: contentType,
                body: body)
        ) { status in completion(.success(status)) }
    }

    private func received(_ request: SIPRequest) {
        emit(.message(TextMessage(request, account: accounts.matching((try? request.to)?.uri.sipURI)?.id)))
    }

    /// Unsolicited message-waiting (RFC 3842 §6): for the account the NOTIFY names, else the default.
    private func received(_ summary: SIPUserAgent.MessageSummary, _ request: SIPRequest) {
        guard let entry = accounts.matching((try? request.to)?.uri.sipURI) else { return }
        emit(.messageSummary(account: entry.id, summary: MessageSummary(summary)))
    }
}
