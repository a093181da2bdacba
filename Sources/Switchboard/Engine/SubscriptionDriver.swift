import SIPAuthentication
import SIPCore
import SIPMessage
import SIPTransaction
import SIPTransport
import SIPUserAgent

/// Runs one `Subscription` per account over the engine (RFC 6665 with RFC 3842's `message-summary`):
/// resolves the first hop, builds the Contact for that route, sends each SUBSCRIBE in a client transaction,
/// routes the NOTIFYs of its dialogs back to it (including a NOTIFY that beats the 2xx), arms its timers,
/// and hands each NOTIFY's body to `onSummary`. Loop-confined.
final class SubscriptionDriver {
    /// What to subscribe to for one account.
    struct Target {
        /// The Request-URI and To (the mailbox: the account's AOR unless configured).
        var uri: URI
        /// From: the account's AOR and display name.
        var from: NameAddress
        /// The outbound proxy, as a loose route.
        var outboundProxy: SIPURI?
        /// The account's transport, when it has one.
        var transport: SIPTransportKind?
        /// The Expires asked for.
        var expires: UInt32
        /// Answers 401/407.
        var credentials: @Sendable (String) -> DigestCredentials?
    }

    /// One account's subscription and the driver's bookkeeping around it.
    final class Entry {
        let target: Target
        var subscription: Subscription?
        var timers = LoopTimers<SessionTimer>()
        var dialogs: Set<DialogID> = []
        var transport: TransportProtocol?
        /// Run when the subscription has finished (after an unsubscribe).
        var onFinished: [() -> Void] = []
        /// Stopped before the first hop was resolved.
        var isAbandoned = false
        /// Failed resolutions in a row, for the back-off.
        var resolutionFailures: UInt32 = 0
        var resolutionTimer: TimerHandle?

        init(target: Target) { self.target = target }

        /// The SUBSCRIBE's Request-URI: the mailbox in the account transport's form (`TransportForm`).
        var requestURI: URI { TransportForm.uri(target.uri, for: target.transport?.transportProtocol) }
    }

    let engine: Engine
    let logger: Logger
    var t1: Duration
    var userAgent: String
    /// The back-off after failures: from 10*T1 (5 s), doubling up to 600*T1 (5 min).
    var retry: Subscription.RetryPolicy
    /// Resolves first hops (RFC 3263) and makes sure a listener can send toward them.
    private let hops: HopResolver
    /// A NOTIFY's message summary for an account.
    var onSummary: ((String, SIPUserAgent.MessageSummary) -> Void)?

    private(set) var entries: [String: Entry] = [:]
    private var dialogs = DialogTable<String>()
    /// Accounts whose subscription was refused or ended for good: a registration refresh does not start
    /// them again (`stop` forgets it, so a later start tries again).
    private(set) var refused: Set<String> = []
    /// At most this many subscriptions (one per account, and accounts are few).
    static let maximumSubscriptions = 64

    init(engine: Engine, logger: Logger, t1: Duration, userAgent: String) {
        self.engine = engine
        self.logger = logger
        self.t1 = t1
        self.userAgent = userAgent
        retry = Subscription.RetryPolicy(initialDelay: t1 * 10, maximumDelay: t1 * 600)
        hops = HopResolver(engine: engine)
    }

    var core: SIPCore { engine.core }

    /// Whether `account` has a subscription that has not finished.
    func isSubscribed(_ account: String) -> Bool { entries[account] != nil }

    // MARK: Start and stop

    /// Subscribes `account` to `target` unless it already has a subscription (one per account).
    func start(_ account: String, _ target: Target) {
        guard entries[account] == nil, !refused.contains(account) else { return }
        guard entries.count < Self.maximumSubscriptions else {
            logger.warning("message-summary: too many subscriptions", metadata: ["account": "\(account)"])
            return
        }
        let entry = Entry(target: target)
        entries[account] = entry
        begin(account, entry)
    }

    private func begin(_ account: String, _ entry: Entry) {
        let firstHop: URI = entry.target.outboundProxy.map { .sip($0) } ?? entry.requestURI
        hops.resolve(firstHop, transport: entry.target.transport?.transportProtocol) { [weak self] destination in
            guard let self, let current = self.entries[account], current === entry, !entry.isAbandoned else { return }
            guard let destination else {
                self.resolutionFailed(account, entry)
                return
            }
            self.subscribe(account, entry, toward: destination)
        }
    }

    /// No address for the first hop: try again after the back-off.
    private func resolutionFailed(_ account: String, _ entry: Entry) {
        entry.resolutionFailures &+= 1
        let delay = retry.delay(forRetry: entry.resolutionFailures)
        logger.warning(
            "message-summary: cannot resolve the first hop; retrying",
            metadata: ["account": "\(account)", "after": "\(delay)"])
        entry.resolutionTimer = engine.loop.scheduleTimer(after: delay) { [weak self] in
            guard let self, let current = self.entries[account], current === entry else { return }
            entry.resolutionTimer = nil
            self.begin(account, entry)
        }
    }

    private func subscribe(_ account: String, _ entry: Entry, toward destination: Destination) {
        entry.transport = destination.transport
        hops.ensureListening(for: destination)
        let local = hops.localAddress(toward: destination)
        let user = entry.target.from.uri.sipURI?.user ?? "switchboard"
        let contact = TransportForm.contact(
            user: user, host: HopResolver.host(local), port: local.port, flow: destination.transport,
            webSocketClientHost: engine.transport.webSocketClientHost)
        var configuration = Subscription.Configuration(
            expires: entry.target.expires, contact: NameAddress(uri: .sip(contact)))
        configuration.t1 = t1
        configuration.userAgent = userAgent
        configuration.retry = retry
        var subscription = Subscription(
            target: OutgoingCall(
                requestURI: entry.requestURI, from: entry.target.from, to: .callee(entry.target.uri),
                callID: core.makeCallID(), localTag: core.makeTag(), initialSequence: 1,
                routeSet: [NameAddress](outboundProxy: entry.target.outboundProxy)),
            configuration: configuration, authenticator: DigestAuthenticator(credentials: entry.target.credentials))
        let actions = subscription.start()
        entry.subscription = subscription
        run(account, actions)
    }

    /// Unsubscribes `account` (SUBSCRIBE with `Expires: 0`); `done` runs once the subscription finished
    /// (at once when there is none).
    func stop(_ account: String, done: @escaping () -> Void = {}) {
        refused.remove(account)
        guard let entry = entries[account] else {
            done()
            return
        }
        entry.onFinished.append(done)
        guard entry.subscription != nil else {
            // Still resolving: nothing was sent.
            entry.isAbandoned = true
            finish(account)
            return
        }
        perform(account) { $0.unsubscribe() }
    }

    /// Drops every subscription without sending anything (the provider is going away).
    func reset() {
        for entry in entries.values {
            entry.timers.cancelAll(on: engine.loop)
            if let timer = entry.resolutionTimer { engine.loop.cancelTimer(timer) }
        }
        entries = [:]
        dialogs = DialogTable()
        refused = []
    }

    // MARK: Incoming

    /// Takes a request that belongs to a subscription's dialog (its NOTIFYs); `false` leaves it to the
    /// session driver (everything else, including the 481 for unknown dialogs).
    func receive(_ server: ServerRequest) -> Bool {
        guard !dialogs.isEmpty, case .dialog(_, let account) = dialogs.match(server.request) else { return false }
        let token = ServerTransactionToken(rawValue: server.transaction.rawValue)
        perform(account) { $0.receiveRequest(server.request, transaction: token) }
        return true
    }

    // MARK: Actions

    private func perform(_ account: String, _ step: (inout Subscription) -> [SubscriptionAction]) {
        guard let entry = entries[account], var subscription = entry.subscription else { return }
        let actions = step(&subscription)
        entry.subscription = subscription
        run(account, actions)
    }

    private func run(_ account: String, _ actions: [SubscriptionAction]) {
        for action in actions {
            guard let entry = entries[account] else { return }
            switch action {
            case .sendRequest(let request, let token, let nextHop):
                send(request, token: token, nextHop: nextHop, account: account, entry: entry)
            case .sendResponse(let response, let transaction):
                core.respond(response, to: TransactionID(transaction.rawValue))
            case .startTimer(let timer, let after):
                entry.timers.start(timer, after: after, on: engine.loop) { [weak self] in
                    guard let self, let entry = self.entries[account] else { return }
                    entry.timers.fired(timer)
                    self.perform(account) { $0.timerFired(timer) }
                }
            case .cancelTimer(let timer):
                entry.timers.cancel(timer, on: engine.loop)
            case .dialogCreated(let id):
                dialogs.insert(account, for: id)
                entry.dialogs.insert(id)
            case .dialogTerminated(let id):
                if dialogs[id] == account { dialogs.remove(id) }
                entry.dialogs.remove(id)
            case .event(let event):
                report(account, event)
            case .finished:
                finish(account)
            }
        }
    }

    private func report(_ account: String, _ event: SubscriptionEvent) {
        switch event {
        case .notified(let request):
            guard let summary = SIPUserAgent.MessageSummary(parsing: request.body) else {
                if !request.body.isEmpty {
                    logger.debug(
                        "message-summary: a NOTIFY body without Messages-Waiting", metadata: ["account": "\(account)"])
                }
                return
            }
            onSummary?(account, summary)
        case .active(let expires):
            logger.debug("message-summary: subscribed", metadata: ["account": "\(account)", "expires": "\(expires)"])
        case .pending:
            logger.debug("message-summary: pending", metadata: ["account": "\(account)"])
        case .retrying(let after):
            logger.info("message-summary: subscribing again", metadata: ["account": "\(account)", "after": "\(after)"])
        case .terminated(let status, let reason):
            let unsubscribed = reason == "unsubscribed" || entries[account]?.onFinished.isEmpty == false
            var metadata: Logger.Metadata = ["account": "\(account)"]
            if let status { metadata["status"] = "\(status)" }
            if let reason { metadata["reason"] = "\(reason)" }
            if unsubscribed {
                logger.debug("message-summary: unsubscribed", metadata: metadata)
            } else {
                // Refused (403, 404, 489, ...) or ended by the notifier for good: not tried again.
                refused.insert(account)
                logger.warning("message-summary: subscription ended", metadata: metadata)
            }
        }
    }

    private func finish(_ account: String) {
        guard let entry = entries.removeValue(forKey: account) else { return }
        entry.timers.cancelAll(on: engine.loop)
        if let timer = entry.resolutionTimer { engine.loop.cancelTimer(timer) }
        for id in entry.dialogs where dialogs[id] == account { dialogs.remove(id) }
        for done in entry.onFinished { done() }
    }

    /// Resolves the next hop and sends `request` in a client transaction (the core adds Via).
    private func send(_ request: SIPRequest, token: RequestToken, nextHop: URI, account: String, entry: Entry) {
        hops.resolve(nextHop, transport: entry.transport) { [weak self] destination in
            guard let self, let current = self.entries[account], current === entry else { return }
            guard let destination else {
                self.perform(account) { $0.transactionFailed(token, .transportError) }
                return
            }
            do {
                try self.core.sendRequest(request, to: destination) { [weak self] event in
                    self?.clientEvent(event, token: token, account: account, entry: entry)
                }
            } catch {
                self.perform(account) { $0.transactionFailed(token, .transportError) }
            }
        }
    }

    private func clientEvent(_ event: ClientTransactionEvent, token: RequestToken, account: String, entry: Entry) {
        guard let current = entries[account], current === entry else { return }
        switch event {
        case .response(let response):
            perform(account) { $0.receiveResponse(response, for: token) }
        case .timeout:
            perform(account) { $0.transactionFailed(token, .timeout) }
        case .transportError:
            perform(account) { $0.transactionFailed(token, .transportError) }
        case .terminated:
            break
        }
    }
}
