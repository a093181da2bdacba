import SDP
import SIPMessage

// Reliable provisional responses (RFC 3262): the UAS sends them with RSeq and re-sends them until the
// PRACK; the UAC sends a PRACK (RAck) for each, in order.

extension InviteSession {
    /// UAS: sends `response` reliably, or queues it behind the one awaiting its PRACK (§3: one at a time).
    mutating func sendReliableProvisional(
        _ response: SIPResponse, carriesSDP: Bool, into actions: inout [SessionAction]
    ) {
        guard let token = incomingInvite?.token else { return }
        let t1 = configuration.t1
        let sending = modifyReliableProvisionals { book -> SIPResponse? in
            if book.pending != nil {
                book.queued.append(response)
                return nil
            }
            var response = response
            let rseq = book.nextRSeq
            book.nextRSeq &+= 1
            response.headerFields.append(.require, "100rel")
            response.headerFields.append(.rseq, rseq)
            book.pending = ReliableProvisionals.Pending(
                response: response, rseq: rseq, interval: t1, carriesSDP: carriesSDP)
            return response
        }
        guard let response = sending ?? nil else { return }
        actions.append(.sendResponse(response, transaction: token))
        timers.start(.retransmitProvisional, after: t1, into: &actions)
        timers.start(.provisionalTimeout, after: configuration.t1Times64, into: &actions)
    }

    /// UAS timer: the reliable provisional response goes again; the interval doubles (§3).
    mutating func retransmitProvisional(into actions: inout [SessionAction]) {
        guard let token = incomingInvite?.token else { return }
        let resending = modifyReliableProvisionals { book -> ReliableProvisionals.Pending? in
            guard var pending = book.pending else { return nil }
            pending.interval = pending.interval * 2
            book.pending = pending
            return pending
        }
        guard let pending = resending ?? nil else { return }
        actions.append(.sendResponse(pending.response, transaction: token))
        timers.start(.retransmitProvisional, after: pending.interval, into: &actions)
    }

    /// UAS timer: no PRACK in 64*T1: the INVITE is rejected with a 5xx (§3).
    mutating func provisionalTimedOut(into actions: inout [SessionAction]) {
        guard let incoming = incomingInvite, incoming.reliable?.pending != nil else { return }
        let response = makeResponse(to: incoming.request, status: 504, reason: "No PRACK")
        rejectIncoming(response, EndReason(.timeout, statusCode: 504, reasonPhrase: "No PRACK"), into: &actions)
    }

    /// Disarms the timers of a reliable provisional response awaiting its PRACK: the INVITE has its final
    /// response (the book of them goes with the INVITE).
    mutating func stopReliableProvisionals(into actions: inout [SessionAction]) {
        timers.cancel(.retransmitProvisional, into: &actions)
        timers.cancel(.provisionalTimeout, into: &actions)
    }

    /// Changes the UAS's reliable provisional responses in place; `nil` (and nothing done) before `start()`
    /// and once the INVITE has its final response.
    private mutating func modifyReliableProvisionals<Result>(
        _ body: (inout ReliableProvisionals) -> Result
    ) -> Result? {
        let result = modifyIncomingInvite { incoming -> Result? in
            guard var book = incoming.reliable else { return nil }
            incoming.reliable = nil
            let result = body(&book)
            incoming.reliable = book
            return result
        }
        return result ?? nil
    }

    /// Takes the first reliable provisional response that waited for the PRACK of the one before it.
    private mutating func takeQueuedProvisional() -> SIPResponse? {
        let next = modifyReliableProvisionals { book in book.queued.isEmpty ? nil : book.queued.removeFirst() }
        return next ?? nil
    }

    /// UAS: a PRACK arrived (§3, §5): it must match the pending reliable response by RAck (else 481). Its
    /// body answers an offer of ours in the provisional response, or offers anew (answered in the 200).
    mutating func receivePRACK(
        _ request: SIPRequest, transaction: ServerTransactionToken, into actions: inout [SessionAction]
    ) {
        guard let rack = (try? request.rack) ?? nil else {
            actions.append(
                .sendResponse(makeResponse(to: request, status: 400, reason: "Missing RAck"), transaction: transaction))
            return
        }
        guard rack == incomingInvite?.awaitedRAck else {
            actions.append(.sendResponse(makeResponse(to: request, status: 481), transaction: transaction))
            return
        }
        modifyReliableProvisionals { book in book.pending = nil }
        timers.cancel(.retransmitProvisional, into: &actions)
        timers.cancel(.provisionalTimeout, into: &actions)
        var response = makeResponse(to: request, status: 200)
        do {
            if let description = try request.sessionDescription() {
                switch offerAnswer.state {
                case .localOfferPending:
                    actions.append(.event(.earlyMedia(try offerAnswer.receiveAnswer(description))))
                case .stable:
                    try offerAnswer.receiveOffer(description)
                    let answer = try offerAnswer.makeAnswer()
                    response.setBody(answer.sessionDescription)
                    actions.append(.event(.earlyMedia(answer.session)))
                case .remoteOfferPending:
                    throw MissingSessionDescription()
                }
            }
        } catch {
            offerAnswer.cancelPendingOffer()
            actions.append(.sendResponse(response, transaction: transaction))
            if let sdpError = error as? SDPError, let invite = incomingInvite?.request {
                rejectIncoming(
                    refuse(invite, sdpError),
                    EndReason(.notAcceptable, statusCode: sdpError.status, reasonPhrase: sdpError.reasonPhrase),
                    into: &actions)
            }
            return
        }
        actions.append(.sendResponse(response, transaction: transaction))
        if let headers = incomingInvite?.deferredAnswerHeaders {
            sendAnswer(headers: headers, into: &actions)
        } else if var next = takeQueuedProvisional() {
            next.headerFields.removeAll(.rseq)
            sendReliableProvisional(next, carriesSDP: next.hasSDP, into: &actions)
        }
    }

    /// UAC: acknowledges a reliable provisional response (§4) with RAck, in its early dialog, carrying the
    /// answer when the response offered.
    mutating func sendPRACK(
        rseq: UInt32, cseq: UInt32, body: SessionDescription?, into actions: inout [SessionAction]
    ) {
        guard var request = makeInDialogRequest(.prack) else { return }
        request.headerFields.append(.rack, RAck(responseNumber: rseq, cseqNumber: cseq, method: .invite))
        if let body { request.setBody(body) }
        send(request, purpose: .prack, into: &actions)
    }
}
