import SDP
public import SIPMessage

// What the driver reports: responses to the session's requests, transaction failures and ends, timer
// expiries.

extension InviteSession {
    /// A response to a request the session sent under `token` (provisional, final, and 2xx retransmissions
    /// of an INVITE while its transaction lives). Responses to unknown tokens are ignored.
    public mutating func receiveResponse(_ response: SIPResponse, for token: RequestToken) -> [SessionAction] {
        guard let index = transactionIndex(token) else { return [] }
        var actions: [SessionAction] = []
        receiveResponse(response, at: index, into: &actions)
        finishIfDone(into: &actions)
        return actions
    }

    private mutating func receiveResponse(_ response: SIPResponse, at index: Int, into actions: inout [SessionAction]) {
        let transaction = transactions[index]
        if transaction.isCompleted, response.isSuccess, let remoteTag = (try? response.to)??.tag,
            let ack = acks.first(where: {
                $0.remoteTag == remoteTag && $0.sequenceNumber == transaction.sequenceNumber
            })
        {
            // §13.2.2.4: each retransmission of the 2xx gets the same ACK.
            actions.append(.sendACK(ack.request, nextHop: ack.nextHop))
            return
        }
        switch transaction.purpose {
        case .invite:
            receiveInviteResponse(response, at: index, into: &actions)
        case .reinvite(let offer), .update(let offer):
            guard !transaction.isCompleted else { return }
            receiveOfferResponse(response, at: index, offer: offer, into: &actions)
        case .prack, .bye, .cancel, .forkBye, .refer, .notify, .request:
            receiveOtherResponse(response, at: index, into: &actions)
        }
    }

    /// The client transaction `token` failed without a final response: Timer B/F or a transport error.
    /// The INVITE's failure ends the call (`timeout` or `unreachable`); a re-INVITE's or UPDATE's ends it
    /// with BYE (§14.1); others are reported with `requestCompleted` (408 or 503).
    public mutating func transactionFailed(_ token: RequestToken, _ failure: TransactionFailure) -> [SessionAction] {
        guard let index = transactionIndex(token) else { return [] }
        var actions: [SessionAction] = []
        let transaction = transactions.remove(at: index)
        if !transaction.isCompleted { transactionFailed(transaction, failure, into: &actions) }
        finishIfDone(into: &actions)
        return actions
    }

    private mutating func transactionFailed(
        _ transaction: ClientTransaction, _ failure: TransactionFailure, into actions: inout [SessionAction]
    ) {
        let status = failure == .timeout ? 408 : 503
        let kind: EndReason.Kind = failure == .timeout ? .timeout : .unreachable
        let phrase = failure == .timeout ? "Request Timeout" : "Transport Error"
        switch transaction.purpose {
        case .invite:
            guard isOutgoingPending else { return }
            offerAnswer.cancelPendingOffer()
            end(EndReason(kind, statusCode: status, reasonPhrase: phrase), into: &actions)
        case .reinvite, .update:
            offerAnswer.cancelPendingOffer()
            guard state == .confirmed else { return }
            if failure == .timeout { sendBye(reasons: [], into: &actions) }
            end(EndReason(kind, statusCode: status, reasonPhrase: phrase), into: &actions)
        case .request:
            let method = transaction.request?.method ?? "INFO"
            actions.append(.event(.requestCompleted(method: method, status: status, reasonPhrase: phrase)))
        case .refer:
            referrals.outgoing.removeAll { $0.id == transaction.sequenceNumber }
            actions.append(.event(.referAnswered(status: status, reasonPhrase: phrase)))
        case .prack, .bye, .cancel, .forkBye, .notify:
            break
        }
    }

    /// The client transaction `token` is gone (SIPCore's `.terminated`): the ACKs kept for its 2xx
    /// retransmissions are dropped. An INVITE that ends without a final response counts as a timeout.
    public mutating func transactionEnded(_ token: RequestToken) -> [SessionAction] {
        guard let index = transactionIndex(token) else { return [] }
        if !transactions[index].isCompleted { return transactionFailed(token, .timeout) }
        var actions: [SessionAction] = []
        let transaction = transactions.remove(at: index)
        acks.removeAll { $0.sequenceNumber == transaction.sequenceNumber }
        if transaction.purpose == .invite { outgoingInvite = nil }
        finishIfDone(into: &actions)
        return actions
    }

    /// A response the session sent through `transaction` could not be delivered: an unanswered INVITE ends
    /// as `unreachable`; a 2xx awaiting its ACK is given up as if no ACK came.
    public mutating func serverTransactionFailed(_ transaction: ServerTransactionToken) -> [SessionAction] {
        var actions: [SessionAction] = []
        if awaitingACK?.token == transaction {
            ackTimedOut(into: &actions)
        } else if incomingInvite?.token == transaction {
            stopReliableProvisionals(into: &actions)
            end(EndReason(.unreachable, reasonPhrase: "Transport Error"), into: &actions)
        }
        finishIfDone(into: &actions)
        return actions
    }

    /// A timer the session armed fired. Expiries of timers cancelled or re-armed since are ignored.
    public mutating func timerFired(_ timer: SessionTimer) -> [SessionAction] {
        guard timers.fire(timer) else { return [] }
        var actions: [SessionAction] = []
        switch timer.kind {
        case .retransmit2xx: retransmit2xx(into: &actions)
        case .ackTimeout: ackTimedOut(into: &actions)
        case .retransmitProvisional: retransmitProvisional(into: &actions)
        case .provisionalTimeout: provisionalTimedOut(into: &actions)
        case .glareRetry: glareRetryDue(into: &actions)
        case .sessionRefresh: sessionRefreshDue(into: &actions)
        case .sessionExpiry: sessionExpired(into: &actions)
        case .transferHangUp: transferHangUpDue(into: &actions)
        case .subscriptionRefresh, .subscriptionTimeout, .subscriptionRetry, .subscriptionSettled: break
        }
        finishIfDone(into: &actions)
        return actions
    }

    /// RFC 3891 §3: whether an INVITE carrying `replaces` may take this session's place: `nil` when it may,
    /// else the status to refuse it with (481 for an early dialog this side did not initiate, 486 for a
    /// confirmed one with `early-only`, 603 when the call is over).
    public func replacementRefusal(for replaces: Replaces) -> Int? {
        switch (role, state) {
        case (_, .terminated): return 603
        case (_, .confirmed), (_, .connecting): return replaces.isEarlyOnly ? 486 : nil
        case (.uac, .calling), (.uac, .early): return nil
        default: return 481
        }
    }
}
