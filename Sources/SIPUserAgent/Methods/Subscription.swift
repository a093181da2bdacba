public import SIPAuthentication
public import SIPMessage

/// What a subscription asks its driver to do (the subscription counterpart of `SessionAction`).
public enum SubscriptionAction: Sendable {
    /// Send `request` in a new client transaction to `nextHop`; the driver adds Via.
    case sendRequest(SIPRequest, token: RequestToken, nextHop: URI)
    /// Answer a NOTIFY through its server transaction.
    case sendResponse(SIPResponse, transaction: ServerTransactionToken)
    /// Arm a timer.
    case startTimer(SessionTimer, after: Duration)
    /// Disarm a timer.
    case cancelTimer(SessionTimer)
    /// Route requests of this dialog to the subscription. A dialog with an empty remote tag stands for the
    /// subscription before its first NOTIFY: `DialogTable` routes NOTIFYs with that Call-ID and local tag
    /// to it.
    case dialogCreated(DialogID)
    /// Stop routing this dialog to the subscription.
    case dialogTerminated(DialogID)
    /// Tell the transaction user.
    case event(SubscriptionEvent)
    /// Nothing left to do: the driver may drop the subscription.
    case finished
}

extension SubscriptionAction: TimerActions {}

/// What a subscription tells its transaction user.
public enum SubscriptionEvent: Sendable {
    /// The notifier accepted the subscription (`active`) for `expires` seconds.
    case active(expires: UInt32)
    /// The subscription waits for authorization (`pending`).
    case pending
    /// A NOTIFY arrived (answered 200); its body is the package's state (`MessageSummary(parsing:)` for
    /// message-summary).
    case notified(SIPRequest)
    /// The subscription is over: refused (`status`), timed out, or terminated by the notifier with
    /// `reason` (RFC 6665 §4.1.3). A retry after `deactivated`, `probation`, `giveup` or `timeout` is not an
    /// end: it is reported as `retrying`.
    case terminated(status: Int?, reason: String?)
    /// The notifier ended the subscription with a reason that allows trying again; a new SUBSCRIBE goes out
    /// after `after`.
    case retrying(after: Duration)
}

/// The subscriber side of one subscription to one event package (RFC 6665 §4.1), a sans-I/O state machine
/// like `InviteSession`: SUBSCRIBE, its refresh before expiry, NOTIFY handling and termination.
public struct Subscription: Sendable {
    /// Where the subscription stands.
    public enum State: Sendable, Hashable {
        /// `start()` not called.
        case idle
        /// SUBSCRIBE sent; neither a 2xx nor a NOTIFY has said how it went.
        case subscribing
        /// The notifier has not authorized it yet.
        case pending
        /// Notifications flow.
        case active
        /// Unsubscribed, refused or ended.
        case terminated
    }

    /// How a subscription that failed is tried again: a new SUBSCRIBE (new tag, no dialog) after a delay that
    /// starts at `initialDelay` and doubles with each consecutive retry up to `maximumDelay`. A subscription
    /// that stays active for 64*T1 starts over at `initialDelay`.
    public struct RetryPolicy: Sendable, Hashable {
        /// The delay before the first retry after a failure (408, 5xx, transport error, no NOTIFY).
        public var initialDelay: Duration
        /// The longest delay between two attempts.
        public var maximumDelay: Duration

        /// - Parameters:
        ///   - initialDelay: the first delay (5 s by default).
        ///   - maximumDelay: the cap (5 min by default).
        public init(initialDelay: Duration = .seconds(5), maximumDelay: Duration = .seconds(300)) {
            self.initialDelay = initialDelay
            self.maximumDelay = max(initialDelay, maximumDelay)
        }

        /// The delay of retry number `retry` (1 for the first): `initialDelay` doubled `retry - 1` times,
        /// capped at `maximumDelay`.
        public func delay(forRetry retry: UInt32) -> Duration {
            guard initialDelay > .zero else { return .zero }
            var delay = initialDelay
            var doublings = retry > 0 ? retry - 1 : 0
            while doublings > 0, delay < maximumDelay {
                delay *= 2
                doublings -= 1
            }
            return min(delay, maximumDelay)
        }
    }

    /// What to subscribe to, and how.
    public struct Configuration: Sendable {
        /// The event package (`message-summary`).
        public var package: String
        /// Accept of the SUBSCRIBE (RFC 3842: `application/simple-message-summary`).
        public var accept: [MediaType]
        /// The duration asked for, in seconds.
        public var expires: UInt32
        /// The Contact of the SUBSCRIBE.
        public var contact: NameAddress
        /// RFC 3261's T1: 64*T1 bounds the wait for the first NOTIFY.
        public var t1: Duration
        /// User-Agent, when set.
        public var userAgent: String?
        /// Whether and how a failed subscription is tried again: after 408, 480, 481 and 5xx responses, a
        /// transport error, no NOTIFY within 64*T1, or a notifier's `terminated` with `deactivated`,
        /// `timeout`, `probation` or `giveup`. `nil` (the default) ends the subscription on the first failure
        /// and retries a notifier's termination once as RFC 6665 §4.1.3 allows (at once, or after
        /// `retry-after`).
        public var retry: RetryPolicy?

        /// - Parameters:
        ///   - package: the event package.
        ///   - accept: body types accepted in NOTIFYs.
        ///   - expires: seconds asked for (3600 by default).
        ///   - contact: the local Contact.
        public init(
            package: String = "message-summary", accept: [MediaType] = [.messageSummary], expires: UInt32 = 3600,
            contact: NameAddress
        ) {
            self.package = package
            self.accept = accept
            self.expires = expires
            self.contact = contact
            self.t1 = .milliseconds(500)
            self.userAgent = nil
            self.retry = nil
        }
    }

    /// Where the subscription stands.
    public internal(set) var state: State = .idle
    /// The configuration.
    public let configuration: Configuration
    /// The dialog, once the 2xx or the first NOTIFY made it.
    public internal(set) var dialog: Dialog?
    /// The seconds the notifier granted last.
    public internal(set) var grantedExpires: UInt32?
    /// Answers 401/407 challenges.
    public var authenticator: DigestAuthenticator?

    var target: OutgoingCall
    var attempt: UInt32 = 0
    var pendingDialog: DialogID?
    var requests: [ClientTransaction] = []
    var timers = TimerBook()
    var nextToken: UInt32 = 0
    var isUnsubscribing = false
    var isUnsubscribeSent = false
    var isFinishAnnounced = false
    /// Retries since the subscription was last established (active for 64*T1).
    var consecutiveRetries: UInt32 = 0

    /// A subscription from `from` to `to`'s package; `start()` sends the SUBSCRIBE.
    /// - Parameters:
    ///   - target: the Request-URI, From, To, Call-ID, tag and pre-existing route of the SUBSCRIBE (its
    ///     `offersInInvite` and `headers` are unused).
    ///   - configuration: package, Accept, expiry and Contact.
    ///   - authenticator: answers 401/407 challenges.
    public init(target: OutgoingCall, configuration: Configuration, authenticator: DigestAuthenticator? = nil) {
        self.target = target
        self.configuration = configuration
        self.authenticator = authenticator
    }

    /// The local tag of the current attempt (a retry after termination uses a new one).
    public var localTag: String { attempt == 0 ? target.localTag : "\(target.localTag)-\(attempt)" }

    /// Whether the subscription has nothing left to do.
    public var isFinished: Bool { state == .terminated && requests.isEmpty && timers.isEmpty }

    /// Sends the initial SUBSCRIBE (RFC 6665 §4.1.2.1).
    public mutating func start() -> [SubscriptionAction] {
        guard state == .idle else { return [] }
        var actions: [SubscriptionAction] = []
        subscribe(into: &actions)
        return actions
    }

    /// Ends the subscription (§4.1.2.3): SUBSCRIBE with `Expires: 0` in the dialog; the final NOTIFY, or
    /// 64*T1 without one, terminates it. Before any dialog it ends at once; a 2xx to the SUBSCRIBE still on
    /// its way is then answered with the `Expires: 0` SUBSCRIBE, so the notifier forgets it too. A second call
    /// while unsubscribing does nothing.
    public mutating func unsubscribe() -> [SubscriptionAction] {
        guard state != .terminated, state != .idle, !isUnsubscribing else { return [] }
        var actions: [SubscriptionAction] = []
        isUnsubscribing = true
        timers.cancel(.subscriptionRefresh, into: &actions)
        timers.cancel(.subscriptionSettled, into: &actions)
        if dialog != nil {
            sendInDialog(expires: 0, into: &actions)
            isUnsubscribeSent = true
            timers.start(.subscriptionTimeout, after: configuration.t1 * 64, into: &actions)
        } else {
            terminate(status: nil, reason: "unsubscribed", into: &actions)
        }
        finishIfDone(into: &actions)
        return actions
    }

    // MARK: Sending

    mutating func subscribe(into actions: inout [SubscriptionAction]) {
        let request = StandaloneRequest.make(
            .subscribe, requestURI: target.requestURI, from: target.from, to: target.to, callID: target.callID,
            localTag: localTag, sequenceNumber: target.initialSequence, routeSet: target.routeSet,
            contact: configuration.contact)
        state = .subscribing
        dialog = nil
        // The abandoned attempt's route, kept while the retry waited (`scheduleRetry`), goes now.
        if let pendingDialog { actions.append(.dialogTerminated(pendingDialog)) }
        let id = DialogID(callID: target.callID, localTag: localTag, remoteTag: "")
        pendingDialog = id
        actions.append(.dialogCreated(id))
        send(
            complete(request, expires: configuration.expires), nextHop: target.routeSet.first?.uri ?? target.requestURI,
            into: &actions)
    }

    mutating func sendInDialog(expires: UInt32, into actions: inout [SubscriptionAction]) {
        guard var dialog else { return }
        let request = dialog.makeRequest(.subscribe)
        self.dialog = dialog
        var full = complete(request, expires: expires)
        full.headerFields.append(.contact, configuration.contact)
        send(full, nextHop: dialog.nextHop, into: &actions)
    }

    private func complete(_ request: SIPRequest, expires: UInt32) -> SIPRequest {
        var request = request
        request.headerFields.append(.event, EventHeader(package: configuration.package))
        request.headerFields.append(.expires, expires)
        request.headerFields.append(.accept, configuration.accept.map(\.wireForm).joined(separator: ", "))
        if let userAgent = configuration.userAgent { request.headerFields.append(.userAgent, userAgent) }
        return request
    }

    mutating func send(_ request: SIPRequest, nextHop: URI, into actions: inout [SubscriptionAction]) {
        var request = request
        if var authenticator {
            _ = try? authenticator.authorize(&request)
            self.authenticator = authenticator
        }
        nextToken &+= 1
        let token = RequestToken(rawValue: nextToken)
        let number = (try? request.cseq)??.sequenceNumber ?? 0
        requests.append(
            ClientTransaction(
                token: token, purpose: .request, sequenceNumber: number, nextHop: nextHop, request: request))
        actions.append(.sendRequest(request, token: token, nextHop: nextHop))
    }

    /// Schedules a new SUBSCRIBE after a failure (`retry` policy): `false` without a policy or while
    /// unsubscribing. `notifierReason` marks a notifier's termination, whose first retry may go at once
    /// (RFC 6665 §4.1.3); `atLeast` is a Retry-After or `retry-after` the other side asked for;
    /// `keepingPendingRoute` as in `scheduleRetry`.
    mutating func retryLater(
        atLeast minimum: Duration, notifierReason: Bool, keepingPendingRoute: Bool = false,
        into actions: inout [SubscriptionAction]
    ) -> Bool {
        guard let policy = configuration.retry, !isUnsubscribing else { return false }
        consecutiveRetries &+= 1
        let backOff: Duration
        if notifierReason {
            backOff = consecutiveRetries == 1 ? .zero : policy.delay(forRetry: consecutiveRetries - 1)
        } else {
            backOff = policy.delay(forRetry: consecutiveRetries)
        }
        scheduleRetry(after: max(backOff, minimum), keepingPendingRoute: keepingPendingRoute, into: &actions)
        return true
    }

    /// Forgets the current attempt (its dialog, its requests in flight) and arms the retry timer.
    ///
    /// With `keepingPendingRoute` (the initial SUBSCRIBE got no final response: it timed out or the
    /// transport failed) the attempt's pending dialog stays routed until the retry goes out: the notifier
    /// may have taken that SUBSCRIBE and its NOTIFY may still come (RFC 6665 §4.1.2.4: a subscriber accepts
    /// a NOTIFY that beats the 2xx, and here the 2xx is lost). Such a NOTIFY makes the dialog and stops the
    /// retry (`receiveNotify`).
    mutating func scheduleRetry(
        after delay: Duration, keepingPendingRoute: Bool = false, into actions: inout [SubscriptionAction]
    ) {
        timers.cancelAll(into: &actions)
        // Late answers to the abandoned attempt's requests are ignored.
        requests.removeAll()
        if let dialog { actions.append(.dialogTerminated(dialog.id)) }
        let keepsRoute = keepingPendingRoute && dialog == nil
        if let pendingDialog, !keepsRoute {
            actions.append(.dialogTerminated(pendingDialog))
            self.pendingDialog = nil
        }
        dialog = nil
        state = .subscribing
        actions.append(.event(.retrying(after: delay)))
        timers.start(.subscriptionRetry, after: delay, into: &actions)
    }

    mutating func terminate(status: Int?, reason: String?, into actions: inout [SubscriptionAction]) {
        guard state != .terminated else { return }
        state = .terminated
        timers.cancelAll(into: &actions)
        actions.append(.event(.terminated(status: status, reason: reason)))
    }

    mutating func finishIfDone(into actions: inout [SubscriptionAction]) {
        guard isFinished, !isFinishAnnounced else { return }
        isFinishAnnounced = true
        if let pendingDialog { actions.append(.dialogTerminated(pendingDialog)) }
        if let dialog { actions.append(.dialogTerminated(dialog.id)) }
        pendingDialog = nil
        actions.append(.finished)
    }
}
