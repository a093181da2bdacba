import SDP
import SIPMessage

// Re-INVITEs and UPDATEs the other side sends (RFC 3261 §14.2, RFC 3311 §5.2, RFC 6337 §3): glare (491),
// overlapping offers (500 with Retry-After), answers made at once or by the TU, session refreshes.

extension InviteSession {
    /// Whether this side has a re-INVITE or an UPDATE of its own waiting for a final response.
    var hasOfferTransactionInProgress: Bool {
        transactions.contains { transaction in
            guard !transaction.isCompleted else { return false }
            switch transaction.purpose {
            case .reinvite, .update: return true
            default: return false
            }
        }
    }

    /// A 500 with Retry-After 0-10 s: the request overlaps one still being handled (§14.2, RFC 3311 §5.2).
    mutating func overlapping(_ request: SIPRequest) -> SIPResponse {
        var response = makeResponse(to: request, status: 500, reason: "Request Overlap")
        response.headerFields.append(.retryAfter, RetryAfter(seconds: UInt32(random.value(in: 0...10))))
        return response
    }

    mutating func receiveReinvite(
        _ request: SIPRequest, transaction: ServerTransactionToken, into actions: inout [SessionAction]
    ) {
        guard state == .confirmed else {
            actions.append(.sendResponse(overlapping(request), transaction: transaction))
            return
        }
        // §14.2: an INVITE while ours is in progress is glare: 491. RFC 6337 §3.2: so is any offer while ours
        // awaits its answer.
        if hasOfferTransactionInProgress || offerAnswer.state == .localOfferPending {
            actions.append(.sendResponse(makeResponse(to: request, status: 491), transaction: transaction))
            return
        }
        if pendingRemoteOffer != nil || awaitingACK != nil || offerAnswer.state == .remoteOfferPending {
            actions.append(.sendResponse(overlapping(request), transaction: transaction))
            return
        }
        guard let pending = takeRemoteOffer(request, transaction: transaction, into: &actions) else { return }
        if let offer = pending.offer {
            if configuration.answersOffersAutomatically {
                answerRemoteOffer(pending, into: &actions)
            } else {
                phase = .confirmed(.awaitingAnswer(pending))
                actions.append(.event(.offerReceived(offer)))
            }
            return
        }
        // A re-INVITE without offer: the 200 offers, the ACK answers (§14.2).
        var response = makeRefreshResponse(for: pending)
        do {
            response.setBody(try offerAnswer.makeOffer())
        } catch {
            actions.append(.sendResponse(refuse(request, error), transaction: transaction))
            return
        }
        let number = (try? request.cseq)??.sequenceNumber ?? 0
        let waiting = AwaitingACK(
            token: transaction, response: response, sequenceNumber: number, interval: configuration.t1,
            expectsAnswer: true)
        phase = .confirmed(.awaitingACK(waiting))
        startRetransmitting(waiting, into: &actions)
        applyRemoteSessionTimer(pending, into: &actions)
    }

    mutating func receiveUpdate(
        _ request: SIPRequest, transaction: ServerTransactionToken, into actions: inout [SessionAction]
    ) {
        guard state == .confirmed || state == .early || state == .connecting else {
            actions.append(.sendResponse(makeResponse(to: request, status: 481), transaction: transaction))
            return
        }
        if request.hasSDP {
            // RFC 3311 §5.2: our offer outstanding -> 491; theirs unanswered -> 500 with Retry-After.
            if offerAnswer.state == .localOfferPending || hasOfferTransactionInProgress {
                actions.append(.sendResponse(makeResponse(to: request, status: 491), transaction: transaction))
                return
            }
            if offerAnswer.state == .remoteOfferPending || pendingRemoteOffer != nil {
                actions.append(.sendResponse(overlapping(request), transaction: transaction))
                return
            }
        }
        guard let pending = takeRemoteOffer(request, transaction: transaction, into: &actions) else { return }
        if pending.offer != nil {
            answerRemoteOffer(pending, into: &actions)
        } else {
            actions.append(.sendResponse(makeRefreshResponse(for: pending), transaction: transaction))
            applyRemoteSessionTimer(pending, into: &actions)
        }
    }

    /// Checks a re-INVITE or UPDATE: its session timer (422) and its offer (400/488); `nil` once answered.
    private mutating func takeRemoteOffer(
        _ request: SIPRequest, transaction: ServerTransactionToken, into actions: inout [SessionAction]
    ) -> PendingRemoteOffer? {
        var pending = PendingRemoteOffer(
            token: transaction, request: request, offer: nil, sessionExpires: nil, requiresTimer: false)
        switch sessionTimerDecision(for: request) {
        case .tooSmall(let minimum):
            var response = makeResponse(to: request, status: 422)
            response.headerFields.append(.minSE, minimum)
            actions.append(.sendResponse(response, transaction: transaction))
            return nil
        case .use(let expires, _, let requiresTimer):
            pending.sessionExpires = expires
            pending.requiresTimer = requiresTimer
        case .none:
            break
        }
        do {
            if let offer = try request.sessionDescription() {
                try offerAnswer.receiveOffer(offer)
                pending.offer = offer
            }
        } catch {
            actions.append(.sendResponse(refuse(request, error), transaction: transaction))
            return nil
        }
        return pending
    }

    /// A 200 to a re-INVITE or UPDATE: Contact, Allow, Supported and the session timer's fields.
    private func makeRefreshResponse(for pending: PendingRemoteOffer) -> SIPResponse {
        var response = makeResponse(to: pending.request, status: 200)
        response.headerFields.append(.contact, configuration.contact)
        response.headerFields.append(.allow, configuration.allowedMethods.headerValue)
        response.headerFields.append(.supported, configuration.supportedHeaderValueWithout100rel)
        if let expires = pending.sessionExpires {
            response.headerFields.append(.sessionExpires, expires)
            if pending.requiresTimer { response.headerFields.append(.require, "timer") }
        }
        return response
    }

    /// Re-arms the session timer from a re-INVITE or UPDATE this side answers (every one refreshes the
    /// session, RFC 4028 §10); `reportsRefresh` when the exchange changed no media (one event per exchange).
    private mutating func applyRemoteSessionTimer(
        _ pending: PendingRemoteOffer, reportsRefresh: Bool = true, into actions: inout [SessionAction]
    ) {
        if let expires = pending.sessionExpires {
            activateSessionTimer(expires, localRefresher: .uas, isRefresh: reportsRefresh, into: &actions)
        }
    }

    /// Answers a re-offer with 200 and the answer; a re-INVITE's 200 is re-sent until its ACK.
    private mutating func answerRemoteOffer(_ pending: PendingRemoteOffer, into actions: inout [SessionAction]) {
        let wasHeld = offerAnswer.isRemoteHold
        let before = offerAnswer.session
        let answer: OfferAnswer.Answer
        do {
            answer = try offerAnswer.makeAnswer()
        } catch {
            offerAnswer.cancelPendingOffer()
            actions.append(.sendResponse(refuse(pending.request, error), transaction: pending.token))
            return
        }
        var response = makeRefreshResponse(for: pending)
        response.setBody(answer.sessionDescription)
        if pending.request.method == .invite, case .confirmed = phase {
            let number = (try? pending.request.cseq)??.sequenceNumber ?? 0
            let waiting = AwaitingACK(
                token: pending.token, response: response, sequenceNumber: number, interval: configuration.t1,
                expectsAnswer: false)
            phase = .confirmed(.awaitingACK(waiting))
            startRetransmitting(waiting, into: &actions)
        } else {
            actions.append(.sendResponse(response, transaction: pending.token))
        }
        if answer.session.isRemoteHold != wasHeld {
            actions.append(.event(.remoteHoldChanged(isOnHold: answer.session.isRemoteHold)))
        }
        let changed = answer.session != before
        if changed { actions.append(.event(.mediaUpdated(answer.session))) }
        applyRemoteSessionTimer(pending, reportsRefresh: !changed, into: &actions)
    }

    /// Answers the re-offer reported with `offerReceived` (when offers are not answered automatically),
    /// from the current offer/answer configuration.
    public mutating func answerOffer() -> [SessionAction] {
        guard let pending = takePendingRemoteOffer() else { return [] }
        var actions: [SessionAction] = []
        answerRemoteOffer(pending, into: &actions)
        finishIfDone(into: &actions)
        return actions
    }

    /// Refuses the re-offer reported with `offerReceived` (488 by default); the session keeps its media.
    public mutating func rejectOffer(status: Int = 488, reasonPhrase: String? = nil) -> [SessionAction] {
        guard (300...699).contains(status), let pending = takePendingRemoteOffer() else { return [] }
        var actions: [SessionAction] = []
        offerAnswer.cancelPendingOffer()
        actions.append(
            .sendResponse(
                makeResponse(to: pending.request, status: status, reason: reasonPhrase), transaction: pending.token))
        sendQueuedOffer(into: &actions)
        finishIfDone(into: &actions)
        return actions
    }
}
