import SIPAuthentication
public import SIPMessage

extension Subscription {
    /// A response to a SUBSCRIBE of this subscription.
    public mutating func receiveResponse(_ response: SIPResponse, for token: RequestToken) -> [SubscriptionAction] {
        guard response.isFinal, let index = requests.firstIndex(where: { $0.token == token }) else { return [] }
        var actions: [SubscriptionAction] = []
        let transaction = requests.remove(at: index)
        if response.isSuccess {
            accepted(response, request: transaction.request, into: &actions)
        } else if !retry(transaction, after: response, into: &actions) {
            if Self.isRetriable(response.statusCode),
                retryLater(atLeast: Self.retryAfter(response), notifierReason: false, into: &actions)
            {
                // A new SUBSCRIBE follows after the back-off.
            } else if !isUnsubscribing || response.statusCode == 481 {
                terminate(status: response.statusCode, reason: nil, into: &actions)
            }
        }
        finishIfDone(into: &actions)
        return actions
    }

    private mutating func accepted(
        _ response: SIPResponse, request: SIPRequest?, into actions: inout [SubscriptionAction]
    ) {
        if dialog == nil, let request, let made = try? Dialog(uac: request, response: response) {
            adopt(made, into: &actions)
        } else {
            dialog?.receiveSuccess(response, to: .subscribe)
        }
        guard !isUnsubscribing else {
            // Unsubscribed while the SUBSCRIBE was on its way: end what the notifier just accepted.
            if !isUnsubscribeSent, dialog != nil {
                isUnsubscribeSent = true
                sendInDialog(expires: 0, into: &actions)
            }
            return
        }
        // §4.1.2.1: the 2xx says how long; refresh before then.
        let granted = ((try? response.expires) ?? nil) ?? configuration.expires
        grantedExpires = granted
        scheduleRefresh(granted, into: &actions)
        if state == .subscribing {
            // §4.1.2.4: a NOTIFY must follow within 64*T1.
            timers.start(.subscriptionTimeout, after: configuration.t1 * 64, into: &actions)
        }
    }

    /// Failures a new SUBSCRIBE may cure (with a retry policy): 408, 480, 481 (the notifier forgot the
    /// subscription) and 5xx. 403, 404, 489 and the rest are answers that do not change by asking again.
    static func isRetriable(_ status: Int) -> Bool {
        status == 408 || status == 480 || status == 481 || (500...599).contains(status)
    }

    /// The Retry-After of a response (RFC 3261 §20.33), zero without one; at most a day.
    static func retryAfter(_ response: SIPResponse) -> Duration {
        guard let retryAfter = (try? response.retryAfter) ?? nil else { return .zero }
        return .seconds(Int64(min(retryAfter.seconds, 86_400)))
    }

    private mutating func adopt(_ made: Dialog, into actions: inout [SubscriptionAction]) {
        dialog = made
        actions.append(.dialogCreated(made.id))
        if let pendingDialog {
            actions.append(.dialogTerminated(pendingDialog))
            self.pendingDialog = nil
        }
    }

    private mutating func scheduleRefresh(_ granted: UInt32, into actions: inout [SubscriptionAction]) {
        guard granted > 0 else { return }
        let lead: UInt32 = granted > 64 ? 32 : granted / 2
        timers.start(.subscriptionRefresh, after: .seconds(Int64(granted - lead)), into: &actions)
    }

    private mutating func retry(
        _ transaction: ClientTransaction, after response: SIPResponse, into actions: inout [SubscriptionAction]
    ) -> Bool {
        guard var request = transaction.request, transaction.retries < 2 else { return false }
        switch response.statusCode {
        case 401, 407:
            guard var authenticator else { return false }
            defer { self.authenticator = authenticator }
            guard let answered = try? authenticator.respond(to: response, for: request) else { return false }
            request = answered
        case 423:
            // RFC 6665 §4.1.2.1 with RFC 3261 §10.2.8: ask again for Min-Expires.
            guard let minimum = (try? response.minExpires) ?? nil else { return false }
            request.headerFields.set(.expires, minimum)
        default:
            return false
        }
        let next: UInt32
        if var dialog {
            next = (dialog.localSequence ?? 0) &+ 1
            dialog.localSequence = next
            self.dialog = dialog
        } else {
            next = ((try? request.cseq)??.sequenceNumber ?? 0) &+ 1
            target.initialSequence = next
        }
        request.headerFields.set(.cseq, CSeq(next, .subscribe))
        send(request, nextHop: transaction.nextHop, into: &actions)
        requests[requests.count - 1].retries = transaction.retries + 1
        return true
    }

    /// A NOTIFY of this subscription (RFC 6665 §4.1.3): answered 200 (400 without Subscription-State, 489
    /// for another package); its state moves the subscription. The first NOTIFY may create the dialog.
    public mutating func receiveRequest(_ request: SIPRequest, transaction: ServerTransactionToken)
        -> [SubscriptionAction]
    {
        var actions: [SubscriptionAction] = []
        receiveNotify(request, transaction: transaction, into: &actions)
        finishIfDone(into: &actions)
        return actions
    }

    private mutating func receiveNotify(
        _ request: SIPRequest, transaction: ServerTransactionToken, into actions: inout [SubscriptionAction]
    ) {
        func answer(_ status: Int, _ reason: String? = nil) {
            actions.append(
                .sendResponse(SIPResponse(answering: request, status: status, reason: reason), transaction: transaction)
            )
        }
        guard request.method == .notify else {
            answer(request.method == .ack ? 200 : 405)
            return
        }
        guard let event = (try? request.event) ?? nil, event.package.lowercased() == configuration.package.lowercased()
        else {
            answer(489)
            return
        }
        guard let subscription = (try? request.subscriptionState) ?? nil else {
            answer(400, "Missing Subscription-State")
            return
        }
        if dialog == nil {
            guard var made = try? Dialog(uas: request, localTag: localTag) else {
                answer(400, "Bad NOTIFY")
                return
            }
            made.localSequence = target.initialSequence
            adopt(made, into: &actions)
            // The initial SUBSCRIBE timed out but the notifier took it: this is the subscription, no retry.
            timers.cancel(.subscriptionRetry, into: &actions)
        } else {
            do {
                try dialog?.receive(request)
            } catch {
                answer(error.status, error.detail)
                return
            }
        }
        answer(200)
        timers.cancel(.subscriptionTimeout, into: &actions)
        actions.append(.event(.notified(request)))
        if subscription.isActive {
            if state != .active, !isUnsubscribing {
                state = .active
                actions.append(
                    .event(.active(expires: subscription.expires ?? grantedExpires ?? configuration.expires)))
                if configuration.retry != nil, consecutiveRetries > 0 {
                    timers.start(.subscriptionSettled, after: configuration.t1 * 64, into: &actions)
                }
            }
            if let expires = subscription.expires, !isUnsubscribing { scheduleRefresh(expires, into: &actions) }
        } else if subscription.isPending {
            if state != .pending {
                state = .pending
                actions.append(.event(.pending))
            }
        } else if subscription.isTerminated {
            notifierTerminated(reason: subscription.reason, retryAfter: subscription.retryAfter, into: &actions)
        }
    }

    /// §4.1.3: `deactivated` and `timeout` may be retried at once, `probation` and `giveup` after
    /// retry-after; `rejected`, `noresource`, `invariant` and unknown reasons end it.
    private mutating func notifierTerminated(
        reason: String?, retryAfter: UInt32?, into actions: inout [SubscriptionAction]
    ) {
        let retriable = ["deactivated", "timeout", "probation", "giveup"]
        if !isUnsubscribing, let reason, retriable.contains(reason.lowercased()) {
            let delay = Duration.seconds(Int64(min(retryAfter ?? 0, 86_400)))
            if retryLater(atLeast: delay, notifierReason: true, into: &actions) { return }
            scheduleRetry(after: delay, into: &actions)
            return
        }
        terminate(status: nil, reason: reason, into: &actions)
    }

    /// A SUBSCRIBE failed without a final response: the subscription ends (408 or 503), or with a retry
    /// policy is tried again after the back-off.
    public mutating func transactionFailed(_ token: RequestToken, _ failure: TransactionFailure) -> [SubscriptionAction]
    {
        guard let index = requests.firstIndex(where: { $0.token == token }) else { return [] }
        var actions: [SubscriptionAction] = []
        requests.remove(at: index)
        // Without a final response the notifier may still have taken an initial SUBSCRIBE (no dialog yet):
        // its NOTIFY stays welcome until the retry goes out.
        if !retryLater(atLeast: .zero, notifierReason: false, keepingPendingRoute: dialog == nil, into: &actions) {
            terminate(status: failure == .timeout ? 408 : 503, reason: nil, into: &actions)
        }
        finishIfDone(into: &actions)
        return actions
    }

    /// A timer the subscription armed fired.
    public mutating func timerFired(_ timer: SessionTimer) -> [SubscriptionAction] {
        guard timers.fire(timer) else { return [] }
        var actions: [SubscriptionAction] = []
        switch timer.kind {
        case .subscriptionRefresh:
            if state != .terminated { sendInDialog(expires: configuration.expires, into: &actions) }
        case .subscriptionTimeout:
            // §4.1.2.4: no NOTIFY came; with a retry policy, subscribe again.
            if !retryLater(atLeast: .zero, notifierReason: false, into: &actions) {
                terminate(status: nil, reason: isUnsubscribing ? "unsubscribed" : "timeout", into: &actions)
            }
        case .subscriptionRetry:
            attempt &+= 1
            target.initialSequence = 1
            subscribe(into: &actions)
        case .subscriptionSettled:
            consecutiveRetries = 0
        default:
            break
        }
        finishIfDone(into: &actions)
        return actions
    }
}
