public import SDP
import SIPAuthentication
import SIPMessage

// Re-offers this side makes (RFC 3261 §14.1, RFC 3311, RFC 6337 §3): hold, resume, a media change or a
// session refresh, one at a time, retried after a 491 with the §14.1 back-off.

extension InviteSession {
    /// Puts the call on hold with a `sendonly` re-offer (`inactive` when the other side holds too,
    /// RFC 3264 §8.4). Waits while another offer or INVITE transaction is in progress.
    /// - Parameter method: re-INVITE (default) or UPDATE.
    public mutating func hold(using method: OfferMethod = .invite) -> [SessionAction] {
        var actions: [SessionAction] = []
        requestOffer(LocalOffer(intent: .hold, method: method), into: &actions)
        finishIfDone(into: &actions)
        return actions
    }

    /// Takes the call off hold with a `sendrecv` re-offer (`recvonly` while the other side holds).
    /// - Parameter method: re-INVITE (default) or UPDATE.
    public mutating func resume(using method: OfferMethod = .invite) -> [SessionAction] {
        var actions: [SessionAction] = []
        requestOffer(LocalOffer(intent: .resume, method: method), into: &actions)
        finishIfDone(into: &actions)
        return actions
    }

    /// Re-offers with the current offer/answer configuration (a codec or address change), keeping the hold
    /// state. Change `offerAnswerConfiguration` first.
    /// - Parameter method: re-INVITE (default) or UPDATE.
    public mutating func renegotiate(using method: OfferMethod = .invite) -> [SessionAction] {
        var actions: [SessionAction] = []
        requestOffer(LocalOffer(intent: .renegotiate, method: method), into: &actions)
        finishIfDone(into: &actions)
        return actions
    }

    /// Refreshes the session now (RFC 4028): UPDATE without SDP, or re-INVITE with the unchanged SDP.
    public mutating func refreshSession(using method: OfferMethod = .invite) -> [SessionAction] {
        var actions: [SessionAction] = []
        requestOffer(LocalOffer(intent: .refresh, method: method), into: &actions)
        finishIfDone(into: &actions)
        return actions
    }

    /// The offer/answer configuration of the next offer or answer (codecs, address, port, SRTP).
    public var offerAnswerConfiguration: OfferAnswerConfiguration {
        get { offerAnswer.configuration }
        set { offerAnswer.configuration = newValue }
    }

    /// Whether a re-offer must wait: an offer is outstanding either way, or an INVITE transaction is in
    /// progress either way (§14.1), or a 491 back-off runs.
    var isOfferBlocked: Bool {
        if offerAnswer.state != .stable || awaitingACK != nil || pendingRemoteOffer != nil { return true }
        if timers.isArmed(.glareRetry) { return true }
        return transactions.contains { transaction in
            guard !transaction.isCompleted else { return false }
            switch transaction.purpose {
            case .reinvite, .update: return true
            default: return false
            }
        }
    }

    mutating func requestOffer(_ offer: LocalOffer, into actions: inout [SessionAction]) {
        switch state {
        case .confirmed:
            break
        case .connecting:
            queuedOffer = offer
            return
        case .early where offer.method == .update:
            break
        case .early:
            queuedOffer = offer
            return
        default:
            return
        }
        if isOfferBlocked {
            if timers.isArmed(.glareRetry) { glareRetry = offer } else { queuedOffer = offer }
            return
        }
        sendOffer(offer, into: &actions)
    }

    /// Sends the re-INVITE or UPDATE for `offer`.
    mutating func sendOffer(_ offer: LocalOffer, into actions: inout [SessionAction]) {
        let method: SIPMethod = offer.method == .invite ? .invite : .update
        guard var request = makeInDialogRequest(method) else { return }
        do {
            switch offer.intent {
            case .hold: request.setBody(try offerAnswer.makeHoldOffer())
            case .resume: request.setBody(try offerAnswer.makeResumeOffer())
            case .renegotiate: request.setBody(try offerAnswer.makeOffer())
            case .refresh where offer.method == .invite: request.setBody(try offerAnswer.makeOffer())
            case .refresh: break
            case .renewDTLS: request.setBody(try offerAnswer.makeDTLSRenewalOffer())
            }
        } catch {
            actions.append(.event(.offerRejected(status: error.status, reasonPhrase: error.reasonPhrase)))
            return
        }
        addSessionTimerHeaders(to: &request)
        send(request, purpose: offer.method == .invite ? .reinvite(offer) : .update(offer), into: &actions)
    }

    /// Sends the re-offer that waited, if nothing blocks it any more.
    mutating func sendQueuedOffer(into actions: inout [SessionAction]) {
        guard let offer = queuedOffer, state == .confirmed, !isOfferBlocked else { return }
        queuedOffer = nil
        sendOffer(offer, into: &actions)
    }

    /// Glare timer: the refused re-offer goes again (or waits if something else started meanwhile).
    mutating func glareRetryDue(into actions: inout [SessionAction]) {
        guard let offer = glareRetry else { return }
        glareRetry = nil
        guard state == .confirmed else { return }
        if isOfferBlocked {
            queuedOffer = queuedOffer ?? offer
        } else {
            sendOffer(offer, into: &actions)
        }
    }

    /// A response to this side's re-INVITE or UPDATE.
    mutating func receiveOfferResponse(
        _ response: SIPResponse, at index: Int, offer: LocalOffer, into actions: inout [SessionAction]
    ) {
        let status = response.statusCode
        guard status >= 200 else { return }
        let transaction = transactions[index]
        let isInvite = offer.method == .invite
        if status < 300 {
            if isInvite {
                transactions[index].isCompleted = true
                transactions[index].request = nil
                if let leg = dialog {
                    var ack = leg.makeACK(sequenceNumber: transaction.sequenceNumber)
                    if let request = transaction.request { copyCredentials(from: request, to: &ack) }
                    sendACK(
                        ack, remoteTag: leg.id.remoteTag, sequenceNumber: transaction.sequenceNumber,
                        nextHop: leg.nextHop, into: &actions)
                }
            } else {
                transactions.remove(at: index)
            }
            guard state == .confirmed || state == .early else { return }
            dialog?.receiveSuccess(response, to: isInvite ? .invite : .update)
            if let allowsUpdate = response.allows(.update) { peer.allowsUpdate = allowsUpdate }
            var changed = false
            if offerAnswer.state == .localOfferPending {
                let before = offerAnswer.session
                do {
                    guard let answer = try response.sessionDescription() else { throw MissingSessionDescription() }
                    let session = try offerAnswer.receiveAnswer(answer)
                    changed = session != before
                    if changed { actions.append(.event(.mediaUpdated(session))) }
                } catch {
                    offerAnswer.cancelPendingOffer()
                    let phrase = (error as? SDPError)?.reasonPhrase ?? MissingSessionDescription().reasonPhrase
                    let reason = Reason(protocol: "SIP", cause: 488, text: phrase)
                    sendBye(reasons: [reason], into: &actions)
                    end(
                        EndReason(.notAcceptable, statusCode: 488, reasonPhrase: phrase, reasons: [reason]),
                        into: &actions)
                    return
                }
            }
            startSessionTimer(fromUACResponse: response, isRefresh: !changed, into: &actions)
            sendQueuedOffer(into: &actions)
            return
        }
        transactions.remove(at: index)
        guard state == .confirmed || state == .early else {
            offerAnswer.cancelPendingOffer()
            return
        }
        switch status {
        case 491:
            // §14.1: wait 2.1-4 s (this side owns the Call-ID) or 0-2 s, in 10 ms steps, then try again.
            offerAnswer.cancelPendingOffer()
            glareRetry = queuedOffer ?? offer
            queuedOffer = nil
            let steps = role == .uac ? random.value(in: 210...400) : random.value(in: 0...200)
            timers.start(.glareRetry, after: .milliseconds(Int64(steps) * 10), into: &actions)
        case 401, 407, 422:
            if retry(transaction, after: response, into: &actions) { return }
            offerRefused(response, offer: offer, into: &actions)
        case 408, 481:
            // §14.1: the dialog is gone (481) or unreachable (408): end it.
            offerAnswer.cancelPendingOffer()
            if status == 408 { sendBye(reasons: [], into: &actions) }
            end(EndReason(response: response), into: &actions)
        default:
            offerRefused(response, offer: offer, into: &actions)
        }
    }

    private mutating func offerRefused(_ response: SIPResponse, offer: LocalOffer, into actions: inout [SessionAction])
    {
        offerAnswer.cancelPendingOffer()
        if offer.method == .update, response.statusCode == 405 || response.statusCode == 501 {
            peer.allowsUpdate = false
        }
        actions.append(.event(.offerRejected(status: response.statusCode, reasonPhrase: response.reasonPhrase)))
        sendQueuedOffer(into: &actions)
    }

    /// Sends an in-dialog request again after a 401/407 (with credentials) or a 422 (with the Min-SE asked
    /// for), with a new CSeq; `false` when it cannot be retried.
    mutating func retry(
        _ transaction: ClientTransaction, after response: SIPResponse, into actions: inout [SessionAction]
    ) -> Bool {
        guard var request = transaction.request, transaction.retries < 2, dialog != nil else { return false }
        switch response.statusCode {
        case 401, 407:
            guard var authenticator else { return false }
            defer { self.authenticator = authenticator }
            guard let answered = try? authenticator.respond(to: response, for: request) else { return false }
            request = answered
        case 422:
            guard let minimum = (try? response.minSE) ?? nil, var expires = (try? request.sessionExpires) ?? nil,
                minimum > expires.deltaSeconds
            else { return false }
            expires.deltaSeconds = minimum
            request.headerFields.set(.sessionExpires, expires)
            request.headerFields.set(.minSE, minimum)
            if let active = sessionTimer {
                sessionTimer = ActiveSessionTimer(interval: minimum, isLocalRefresher: active.isLocalRefresher)
            }
        default:
            return false
        }
        request.headerFields.set(.cseq, CSeq(takeLocalSequence(), request.method))
        send(request, purpose: transaction.purpose, into: &actions)
        transactions[transactions.count - 1].retries = transaction.retries + 1
        return true
    }
}
