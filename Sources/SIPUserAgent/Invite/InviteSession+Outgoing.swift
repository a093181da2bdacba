import SDP
import SIPAuthentication
public import SIPMessage

// The UAC's initial INVITE (RFC 3261 §13.2): the request, its provisional and final responses, forking,
// the ACK for each 2xx (§13.2.2.4) and CANCEL (§9.1).

extension InviteSession {
    /// UAC: sends the INVITE. UAS: checks the INVITE (420, 421, 422, 400 and 488 end the call at once) and
    /// reports its offer with `offerReceived`. Only the first call has an effect.
    public mutating func start() -> [SessionAction] {
        var actions: [SessionAction] = []
        switch role {
        case .uac: startOutgoing(into: &actions)
        case .uas: startIncoming(into: &actions)
        }
        finishIfDone(into: &actions)
        return actions
    }

    private mutating func startOutgoing(into actions: inout [SessionAction]) {
        guard case .idle(let call) = phase else { return }
        var fields = SIPFields()
        for hop in call.routeSet { fields.append(.route, hop) }
        fields.append(.maxForwards, 70)
        var from = call.from
        from.tag = call.localTag
        fields.append(.from, from)
        fields.append(.to, call.to)
        fields.append(.callID, call.callID)
        fields.append(.cseq, CSeq(call.initialSequence, .invite))
        fields.append(.contact, configuration.contact)
        fields.append(.allow, configuration.allowedMethods.headerValue)
        if configuration.reliableProvisionalResponses == .required {
            fields.append(.require, "100rel")
            fields.append(.supported, configuration.supportedHeaderValueWithout100rel)
        } else {
            fields.append(.supported, configuration.supportedHeaderValue)
        }
        if let timer = configuration.sessionTimer {
            var expires = SessionExpires(deltaSeconds: timer.interval)
            switch timer.preferredRefresher {
            case .local: expires.refresher = .uac
            case .remote: expires.refresher = .uas
            case .unspecified: break
            }
            fields.append(.sessionExpires, expires)
            fields.append(.minSE, timer.minimumInterval)
        }
        for field in call.headers { fields.append(field) }
        var request = SIPRequest(method: .invite, uri: call.requestURI, headerFields: fields)
        if call.offersInInvite {
            do {
                request.setBody(try offerAnswer.makeOffer())
            } catch {
                end(EndReason(.failed, reasonPhrase: error.description), into: &actions)
                return
            }
        }
        let nextHop = call.routeSet.first?.uri ?? call.requestURI
        let token = send(request, purpose: .invite, nextHop: nextHop, into: &actions)
        outgoingInvite = OutgoingInvite(
            token: token, nextHop: nextHop, request: transactions.last?.request ?? request, template: offerAnswer)
        phase = .calling(OutgoingAttempt())
    }

    /// UAC: cancels the INVITE (RFC 3261 §9.1) with an optional Reason (RFC 3326). The CANCEL goes out once a
    /// provisional response has arrived; a 2xx that crosses it is ACKed and ended with BYE. The call ends
    /// (`localEnded`) at once.
    public mutating func cancel(reason: Reason? = nil) -> [SessionAction] {
        cancelInvite(reasons: reason.map { [$0] } ?? [], kind: .localEnded)
    }

    mutating func cancelInvite(reasons: [Reason], kind: EndReason.Kind) -> [SessionAction] {
        guard isOutgoingPending, var outgoing = outgoingInvite else { return [] }
        var actions: [SessionAction] = []
        outgoingInvite = nil
        outgoing.cancelReasons = reasons
        outgoing.cancel = outgoing.hasProvisional ? .sent : .pending
        outgoingInvite = outgoing
        if outgoing.hasProvisional { sendCancel(into: &actions) }
        offerAnswer.cancelPendingOffer()
        end(EndReason(kind, reasons: reasons), into: &actions)
        finishIfDone(into: &actions)
        return actions
    }

    mutating func sendCancel(into actions: inout [SessionAction]) {
        guard let outgoing = outgoingInvite else { return }
        let invite = outgoing.request
        var fields = SIPFields()
        fields.appendCopies(of: .route, from: invite.headerFields)
        fields.append(.maxForwards, 70)
        for name in [SIPField.Name.from, .to, .callID] {
            fields.appendCopies(of: name, from: invite.headerFields)
        }
        let number = (try? invite.cseq)??.sequenceNumber ?? 0
        fields.append(.cseq, CSeq(number, .cancel))
        for reason in outgoing.cancelReasons { fields.append(.reason, reason) }
        let cancel = SIPRequest(method: .cancel, uri: invite.uri, headerFields: fields)
        let token = makeToken()
        transactions.append(
            ClientTransaction(token: token, purpose: .cancel, sequenceNumber: number, nextHop: outgoing.nextHop))
        actions.append(.sendCancel(cancel, token: token, cancelling: outgoing.token))
        outgoingInvite?.cancel = .sent
    }

    // MARK: Responses to the INVITE

    mutating func receiveInviteResponse(_ response: SIPResponse, at index: Int, into actions: inout [SessionAction]) {
        switch response.statusCode {
        case 100...199:
            receiveInviteProvisional(response, into: &actions)
        case 200...299:
            transactions[index].isCompleted = true
            receiveInviteSuccess(response, into: &actions)
        default:
            transactions.remove(at: index)
            receiveInviteFailure(response, into: &actions)
        }
    }

    private mutating func receiveInviteProvisional(_ response: SIPResponse, into actions: inout [SessionAction]) {
        guard let request = outgoingInvite?.request else { return }
        outgoingInvite?.hasProvisional = true
        if case .pending? = outgoingInvite?.cancel { sendCancel(into: &actions) }
        guard isOutgoingPending else { return }
        if response.statusCode == 100 {
            actions.append(.event(.trying))
            return
        }
        if case .calling(let attempt) = phase { phase = .earlyOutgoing(attempt) }
        guard let remoteTag = (try? response.to)??.tag else {
            actions.append(
                .event(.ringing(status: response.statusCode, reasonPhrase: response.reasonPhrase, dialog: nil)))
            return
        }
        if !makeCurrent(remoteTag: remoteTag) {
            guard let early = try? Dialog(uac: request, response: response) else { return }
            adoptNewLeg(early, into: &actions)
        }
        // RFC 3262 §4: PRACK each reliable provisional response once, in order; drop repeats.
        var rseq: UInt32?
        if configuration.reliableProvisionalResponses != .disabled, response.requiresOption("100rel"),
            let value = (try? response.rseq) ?? nil
        {
            if case .earlyOutgoing(let attempt) = phase, let last = attempt.remoteRSeq, value != last &+ 1 { return }
            modifyOutgoingAttempt { $0.remoteRSeq = value }
            rseq = value
        }
        var prackBody: SessionDescription?
        if let description = try? response.sessionDescription() {
            switch offerAnswer.state {
            case .localOfferPending:
                if let session = try? offerAnswer.receiveAnswer(description) {
                    actions.append(.event(.earlyMedia(session)))
                }
            case .stable where offerAnswer.session != nil:
                let before = offerAnswer.session
                if let session = try? offerAnswer.receiveAnswer(description), session != before {
                    actions.append(.event(.earlyMedia(session)))
                }
            case .stable where rseq != nil:
                // An offer in a reliable provisional response (late offer): the PRACK carries the answer.
                do {
                    try offerAnswer.receiveOffer(description)
                    let answer = try offerAnswer.makeAnswer()
                    prackBody = answer.sessionDescription
                    actions.append(.event(.earlyMedia(answer.session)))
                } catch {
                    offerAnswer.cancelPendingOffer()
                }
            default:
                break
            }
        }
        actions.append(
            .event(.ringing(status: response.statusCode, reasonPhrase: response.reasonPhrase, dialog: dialog?.id)))
        if let rseq, let cseq = (try? response.cseq) ?? nil {
            sendPRACK(rseq: rseq, cseq: cseq.sequenceNumber, body: prackBody, into: &actions)
        }
    }

    /// Makes the early dialog with `remoteTag` the current one; `false` when there is none.
    mutating func makeCurrent(remoteTag: String) -> Bool {
        if dialog?.id.hasRemoteTag(remoteTag) == true { return true }
        guard forks.contains(where: { $0.dialog.id.hasRemoteTag(remoteTag) }),
            case (var attempt, let isEarly)? = takeOutgoingAttempt()
        else { return false }
        defer { restoreOutgoingAttempt(attempt, isEarly: isEarly) }
        guard let index = attempt.forks.firstIndex(where: { $0.dialog.id.hasRemoteTag(remoteTag) }) else {
            return false
        }
        let fork = attempt.forks[index]
        if let current = dialog {
            attempt.forks[index] = EarlyDialog(
                dialog: current, offerAnswer: offerAnswer, remoteRSeq: attempt.remoteRSeq)
        } else {
            attempt.forks.remove(at: index)
        }
        dialog = fork.dialog
        offerAnswer = fork.offerAnswer
        attempt.remoteRSeq = fork.remoteRSeq
        return true
    }

    /// Makes `leg`, a new dialog of the INVITE, the current one; the one it displaces becomes a fork.
    private mutating func adoptNewLeg(_ leg: Dialog, into actions: inout [SessionAction]) {
        if case (var attempt, let isEarly)? = takeOutgoingAttempt() {
            if let current = dialog {
                attempt.forks.append(
                    EarlyDialog(dialog: current, offerAnswer: offerAnswer, remoteRSeq: attempt.remoteRSeq))
                if let template = outgoingInvite?.template { offerAnswer = template }
            }
            attempt.remoteRSeq = nil
            restoreOutgoingAttempt(attempt, isEarly: isEarly)
        }
        dialog = leg
        isDialogAnnounced = true
        actions.append(.dialogCreated(leg.id))
    }

    private mutating func receiveInviteSuccess(_ response: SIPResponse, into actions: inout [SessionAction]) {
        guard let remoteTag = (try? response.to)??.tag, let cseq = (try? response.cseq) ?? nil else { return }
        if let ack = acks.first(where: { $0.remoteTag == remoteTag && $0.sequenceNumber == cseq.sequenceNumber }) {
            actions.append(.sendACK(ack.request, nextHop: ack.nextHop))
            return
        }
        if isOutgoingPending {
            confirmOutgoing(response, remoteTag: remoteTag, sequenceNumber: cseq.sequenceNumber, into: &actions)
        } else {
            // A second fork answered, or the 2xx crossed our CANCEL: ACK it and end it (§13.2.2.4, §9.1).
            acknowledgeAndEnd(response, remoteTag: remoteTag, sequenceNumber: cseq.sequenceNumber, into: &actions)
        }
    }

    private mutating func confirmOutgoing(
        _ response: SIPResponse, remoteTag: String, sequenceNumber: UInt32, into actions: inout [SessionAction]
    ) {
        guard let request = outgoingInvite?.request else { return }
        if !makeCurrent(remoteTag: remoteTag) {
            let leg: Dialog
            do {
                leg = try Dialog(uac: request, response: response)
            } catch {
                // No Contact, or a field the dialog reads (From, To, Contact, Record-Route) that does not parse:
                // the reason names which.
                acknowledgeAndEnd(response, remoteTag: remoteTag, sequenceNumber: sequenceNumber, into: &actions)
                end(EndReason(.failed, statusCode: response.statusCode, reasonPhrase: error.detail), into: &actions)
                return
            }
            adoptNewLeg(leg, into: &actions)
        }
        dialog?.confirm(with: response)
        for fork in forks { actions.append(.dialogTerminated(fork.dialog.id)) }
        // The call is up from here on (an offer/answer failure below ends it with BYE).
        phase = .confirmed(nil)
        peer.allowsUpdate = response.allows(.update) ?? false
        peer.supportsTimer = response.supportsOption("timer")

        // Offer/answer (§13.2.1): the 2xx answers our offer, repeats an answer, or (late offer) offers.
        var ackBody: SessionDescription?
        var failure: String?
        do {
            let description = try response.sessionDescription()
            switch offerAnswer.state {
            case .localOfferPending:
                guard let description else { throw MissingSessionDescription() }
                _ = try offerAnswer.receiveAnswer(description)
            case .stable where offerAnswer.session == nil:
                guard let description else { throw MissingSessionDescription() }
                try offerAnswer.receiveOffer(description)
                ackBody = try offerAnswer.makeAnswer().sessionDescription
            case .stable:
                if let description { _ = try? offerAnswer.receiveAnswer(description) }
            case .remoteOfferPending:
                break
            }
        } catch {
            offerAnswer.cancelPendingOffer()
            failure = (error as? SDPError)?.reasonPhrase ?? MissingSessionDescription().reasonPhrase
        }
        guard let leg = dialog else { return }
        var ack = leg.makeACK(sequenceNumber: sequenceNumber)
        copyCredentials(from: request, to: &ack)
        if let ackBody { ack.setBody(ackBody) }
        sendACK(ack, remoteTag: remoteTag, sequenceNumber: sequenceNumber, nextHop: leg.nextHop, into: &actions)
        if let failure {
            // §13.2.2.4: ACK, then BYE at once.
            let reason = Reason(protocol: "SIP", cause: 488, text: failure)
            sendBye(reasons: [reason], into: &actions)
            end(EndReason(.notAcceptable, statusCode: 488, reasonPhrase: failure, reasons: [reason]), into: &actions)
            return
        }
        startSessionTimer(fromUACResponse: response, into: &actions)
        actions.append(.event(.connected(offerAnswer.session)))
        sendQueuedOffer(into: &actions)
    }

    /// ACKs a 2xx that will not be the call (another fork, or one crossing the CANCEL) and sends it BYE.
    private mutating func acknowledgeAndEnd(
        _ response: SIPResponse, remoteTag: String, sequenceNumber: UInt32, into actions: inout [SessionAction]
    ) {
        guard let request = outgoingInvite?.request, var leg = try? Dialog(uac: request, response: response) else {
            return
        }
        var ack = leg.makeACK(sequenceNumber: sequenceNumber)
        copyCredentials(from: request, to: &ack)
        if var engine = outgoingInvite?.template, engine.session == nil, engine.state == .stable,
            let offer = try? response.sessionDescription()
        {
            // The 2xx offers (late offer): the ACK must still answer it (§13.2.2.4).
            if (try? engine.receiveOffer(offer)) != nil, let answer = try? engine.makeAnswer() {
                ack.setBody(answer.sessionDescription)
            }
        }
        sendACK(ack, remoteTag: remoteTag, sequenceNumber: sequenceNumber, nextHop: leg.nextHop, into: &actions)
        var bye = leg.makeRequest(.bye)
        for reason in outgoingInvite?.cancelReasons ?? [] { bye.headerFields.append(.reason, reason) }
        send(bye, purpose: .forkBye, keepingRequest: false, nextHop: leg.nextHop, into: &actions)
    }

    /// §13.2.2.4 and §22.1: the ACK carries the INVITE's credentials.
    func copyCredentials(from request: SIPRequest, to ack: inout SIPRequest) {
        for name in [SIPField.Name.authorization, .proxyAuthorization] {
            ack.headerFields.appendCopies(of: name, from: request.headerFields)
        }
    }

    private mutating func receiveInviteFailure(_ response: SIPResponse, into actions: inout [SessionAction]) {
        guard isOutgoingPending else { return }
        if retryInvite(after: response, into: &actions) { return }
        offerAnswer.cancelPendingOffer()
        if (300...399).contains(response.statusCode) {
            actions.append(.event(.redirected((try? response.contacts) ?? [])))
        }
        end(EndReason(response: response), into: &actions)
    }

    /// Sends the INVITE again after a 401/407 with credentials, or after a 422 with the Min-SE asked for
    /// (RFC 4028 §7.4); early dialogs of the refused attempt end.
    private mutating func retryInvite(after response: SIPResponse, into actions: inout [SessionAction]) -> Bool {
        let retries: UInt8
        switch phase {
        case .calling(let attempt), .earlyOutgoing(let attempt): retries = attempt.retries
        default: return false
        }
        guard var outgoing = outgoingInvite, retries < 3, !outgoing.isCancelRequested else { return false }
        var request = outgoing.request
        switch response.statusCode {
        case 401, 407:
            guard var authenticator else { return false }
            defer { self.authenticator = authenticator }
            guard let answered = try? authenticator.respond(to: response, for: request) else { return false }
            request = answered
        case 422:
            guard configuration.sessionTimer != nil, let minimum = (try? response.minSE) ?? nil else { return false }
            let current = (try? request.sessionExpires)??.deltaSeconds ?? 0
            guard minimum > current else { return false }
            var expires = (try? request.sessionExpires) ?? nil ?? SessionExpires(deltaSeconds: minimum)
            expires.deltaSeconds = minimum
            request.headerFields.set(.sessionExpires, expires)
            request.headerFields.set(.minSE, minimum)
        default:
            return false
        }
        let number = ((try? request.cseq)??.sequenceNumber ?? 0) &+ 1
        request.headerFields.set(.cseq, CSeq(number, .invite))
        for leg in dialogIDs { actions.append(.dialogTerminated(leg)) }
        dialog = nil
        phase = .calling(OutgoingAttempt(retries: retries + 1))
        isDialogAnnounced = false
        offerAnswer = outgoing.template
        outgoingInvite = nil
        outgoing.hasProvisional = false
        outgoing.token = send(request, purpose: .invite, nextHop: outgoing.nextHop, into: &actions)
        outgoing.request = transactions.last?.request ?? request
        outgoingInvite = outgoing
        return true
    }
}

/// An offer/answer fault the SDP engine does not name: an answer or offer that was due did not come.
struct MissingSessionDescription: Error {
    var reasonPhrase: String { "Not Acceptable Here (no SDP)" }
}
