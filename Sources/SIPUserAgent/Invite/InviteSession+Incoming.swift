import SDP
public import SIPMessage

// The UAS's initial INVITE (RFC 3261 §13.3): checks, provisional responses, the 2xx retransmitted until the
// ACK (§13.3.1.4), rejection and CANCEL (§9.2).

extension InviteSession {
    mutating func startIncoming(into actions: inout [SessionAction]) {
        // The INVITE's record is checked and filled in its box, in place: the request is read where it is,
        // never copied out of the phase. A refusal goes out once that access has ended.
        guard case .incoming = phase, dialog == nil, let box = ownedIncomingInviteBox() else { return }
        if let (response, reason) = startIncoming(&box.invite, into: &actions) {
            rejectIncoming(response, reason, into: &actions)
        }
    }

    /// `startIncoming(into:)` on the INVITE's record; returns the response refusing it and why, if it is refused.
    private mutating func startIncoming(
        _ incoming: inout IncomingInvite, into actions: inout [SessionAction]
    ) -> (SIPResponse, EndReason)? {
        do {
            let created = try Dialog(uas: incoming.request, localTag: localTag, sharing: callID)
            // The INVITE's CSeq number, read by the dialog: its 2xx is matched to the ACK by it.
            incoming.sequenceNumber = created.remoteSequence
            dialog = created
        } catch {
            return (
                makeResponse(to: incoming.request, status: error.status, reason: error.detail),
                EndReason(.failed, statusCode: error.status, reasonPhrase: error.detail)
            )
        }
        // §8.2.2.3: refuse extensions this side does not understand (Require is usually absent: not parsed then).
        let fields = incoming.request.headerFields
        let hasRequire = fields.contains(.require)
        let required = hasRequire ? (try? incoming.request.require) ?? [] : []
        let understood = required.isEmpty ? [] : configuration.supportedExtensions
        let unsupported = required.filter { !understood.contains($0.lowercased()) }
        if !unsupported.isEmpty {
            var response = makeResponse(to: incoming.request, status: 420)
            response.headerFields.append(.unsupported, unsupported.joined(separator: ", "))
            return (response, EndReason(.failed, statusCode: 420, reasonPhrase: "Bad Extension"))
        }
        // The option tags 100rel and timer in Require and Supported, compared ignoring ASCII case (tags are
        // tokens), each list scanned once; a list that does not parse counts as empty, as
        // `(try? request.require) ?? []` did.
        func lists(_ name: SIPField.Name, allowEmpty: Bool) -> (reliable: Bool, timer: Bool) {
            fields.tokenList(name, allowEmpty: allowEmpty, contains: "100rel", "timer", ignoringCase: true)
                ?? (false, false)
        }
        let requires = hasRequire ? lists(.require, allowEmpty: false) : (reliable: false, timer: false)
        let supports = lists(.supported, allowEmpty: true)
        let peerSupports100rel = requires.reliable || supports.reliable
        let peerSupportsTimer = requires.timer || supports.timer
        peer.allowsUpdate = incoming.request.allows(.update) ?? false
        peer.supportsTimer = peerSupportsTimer
        // RFC 3262 §3: a UAS that requires 100rel refuses an INVITE that does not support it.
        if configuration.reliableProvisionalResponses == .required, !peerSupports100rel {
            var response = makeResponse(to: incoming.request, status: 421)
            response.headerFields.append(.require, "100rel")
            return (response, EndReason(.failed, statusCode: 421, reasonPhrase: "Extension Required"))
        }
        switch sessionTimerDecision(for: incoming.request, peerSupportsTimer: peerSupportsTimer) {
        case .tooSmall(let minimum):
            var response = makeResponse(to: incoming.request, status: 422)
            response.headerFields.append(.minSE, minimum)
            return (response, EndReason(.failed, statusCode: 422, reasonPhrase: response.reasonPhrase))
        case .use(let expires, let refresher, let requiresTimer):
            incoming.sessionExpires = expires
            incoming.sessionRefresher = refresher
            incoming.requiresTimer = requiresTimer
        case .none:
            break
        }
        do {
            if let offer = try incoming.request.sessionDescription() {
                try offerAnswer.receiveOffer(offer)
                incoming.hasOffer = true
                actions.append(.event(.offerReceived(offer)))
            }
        } catch {
            return (
                refuse(incoming.request, error),
                EndReason(
                    error.status == 488 ? .notAcceptable : .failed, statusCode: error.status,
                    reasonPhrase: error.reasonPhrase)
            )
        }
        incoming.peerRequires100rel = requires.reliable
        incoming.peerSupports100rel = peerSupports100rel
        incoming.peerSupportsTimer = peerSupportsTimer
        // RFC 3262 §3: the first RSeq is random, below 2^31 (kept low enough never to wrap).
        incoming.reliable = ReliableProvisionals(nextRSeq: UInt32(random.value(in: 1...0x3FFF_FFFF)))
        return nil
    }

    /// UAS: sends a provisional response: 180 Ringing by default, 183 Session Progress with early media.
    ///
    /// With `earlyMedia` the response carries the answer to the INVITE's offer, or (an INVITE without offer)
    /// an offer when it can go reliably. It is sent reliably (RFC 3262) when the UAC requires 100rel, or
    /// supports it and the policy is `required` or the response carries SDP; a reliable response waits for
    /// the PRACK of the previous one.
    /// - Parameters:
    ///   - status: 101...199.
    ///   - reasonPhrase: the reason phrase, the standard one when `nil`.
    ///   - earlyMedia: whether to put SDP in it.
    ///   - headers: extra header fields (Alert-Info, P-Early-Media, ...).
    public mutating func ring(
        status: Int = 180, reasonPhrase: String? = nil, earlyMedia: Bool = false, headers: [SIPField] = []
    ) -> [SessionAction] {
        // The INVITE's record changes in its box, in place: no copy out of the phase and back.
        guard (101...199).contains(status), let box = ownedIncomingInviteBox() else { return [] }
        var actions: [SessionAction] = []
        actions.reserveCapacity(4)  // the response, the dialog, a reliable response's timers: one allocation
        var response = makeDialogResponse(status: status, reason: reasonPhrase, for: &box.invite)
        for field in headers { response.headerFields.append(field) }
        let hasOffer = box.invite.hasOffer
        let peerSupports100rel = box.invite.peerSupports100rel
        let peerRequires100rel = box.invite.peerRequires100rel
        var carriesSDP = false
        if earlyMedia {
            if hasOffer {
                if offerAnswer.state == .remoteOfferPending {
                    do {
                        let answer = try offerAnswer.makeAnswer()
                        response.setBody(answer.sessionDescription)
                        actions.append(.event(.earlyMedia(answer.session)))
                    } catch {
                        rejectIncoming(
                            refuse(box.invite.request, error),
                            EndReason(.notAcceptable, statusCode: error.status, reasonPhrase: error.reasonPhrase),
                            into: &actions)
                        finishIfDone(into: &actions)
                        return actions
                    }
                } else if let local = offerAnswer.localDescription {
                    response.setBody(local)
                }
                carriesSDP = true
            } else if sendsReliably(carryingSDP: true, supports: peerSupports100rel, requires: peerRequires100rel),
                offerAnswer.state == .stable, offerAnswer.session == nil,
                let offer = try? offerAnswer.makeOffer()
            {
                response.setBody(offer)
                carriesSDP = true
            }
        }
        let reliably = sendsReliably(
            carryingSDP: carriesSDP, supports: peerSupports100rel, requires: peerRequires100rel)
        if carriesSDP, hasOffer, box.invite.answerDelivery != .reliable {
            box.invite.answerDelivery = reliably ? .reliable : .unreliable
        }
        phase = .earlyIncoming(box)
        announceDialog(into: &actions)
        if reliably {
            sendReliableProvisional(response, carriesSDP: carriesSDP, into: &actions)
        } else {
            // Handed over (consumed), not copied into the action.
            let token = box.invite.token
            actions.append(.sendResponse(consume response, transaction: token))
        }
        return actions
    }

    /// Whether a provisional response goes reliably (RFC 3262 §3).
    func sendsReliably(carryingSDP: Bool) -> Bool {
        guard let incoming = incomingInvite else { return false }
        return sendsReliably(carryingSDP: carryingSDP, for: incoming)
    }

    /// `sendsReliably(carryingSDP:)` for the INVITE at hand (read from `phase`, it is copied out first).
    func sendsReliably(carryingSDP: Bool, for incoming: IncomingInvite) -> Bool {
        sendsReliably(
            carryingSDP: carryingSDP, supports: incoming.peerSupports100rel, requires: incoming.peerRequires100rel)
    }

    /// `sendsReliably(carryingSDP:for:)` for an INVITE whose Supported and Require name 100rel or not.
    private func sendsReliably(carryingSDP: Bool, supports: Bool, requires: Bool) -> Bool {
        guard configuration.reliableProvisionalResponses != .disabled, supports else { return false }
        return requires || configuration.reliableProvisionalResponses == .required || carryingSDP
    }

    /// A response to the INVITE that creates the dialog (§12.1.1): Record-Route copied, Contact added.
    /// - Parameter incoming: the INVITE; keeps the fields its responses share for the next one.
    func makeDialogResponse(status: Int, reason: String? = nil, for incoming: inout IncomingInvite) -> SIPResponse {
        // Those of a response above 100 are the same for the next while the configuration stays the same.
        if status > 100, let cached = incoming.responseFields, cached.generation == configurationGeneration {
            return SIPResponse(statusCode: status, reasonPhrase: reason, headerFields: cached.fields)
        }
        // The INVITE read where it is, not copied out of `incoming`.
        var response = SIPResponse(answering: incoming.request, status: status, reason: reason, toTag: localTag)
        // Server and Contact as the configuration wrote them once (read in place, not copied out).
        response.headerFields.appendFields(of: configuration.responseFields.server)
        response.headerFields.appendCopies(of: .recordRoute, from: incoming.request.headerFields)
        response.headerFields.appendFields(of: configuration.responseFields.contact)
        if status > 100 {
            incoming.responseFields = SharedResponseFields(
                fields: response.headerFields, generation: configurationGeneration)
        }
        return response
    }

    /// UAS: answers the call with 200 OK: the answer to the INVITE's offer (again, when it only went in an
    /// unreliable 183), or an offer when the INVITE had none (its answer comes in the ACK). Waits for the
    /// PRACK of a reliable provisional response that carried SDP (RFC 3262 §3). The 2xx is re-sent until the
    /// ACK arrives; the call is `connected` on the ACK.
    /// - Parameter headers: extra header fields.
    public mutating func answer(headers: [SIPField] = []) -> [SessionAction] {
        guard let pending = incomingInvite.map({ $0.reliable?.pending }) else { return [] }
        var actions: [SessionAction] = []
        actions.reserveCapacity(8)  // the 2xx, its timers, the session timer, events: one allocation
        if let pending, pending.carriesSDP {
            modifyIncomingInvite { $0.deferredAnswerHeaders = headers }
            return actions
        }
        sendAnswer(headers: headers, into: &actions)
        finishIfDone(into: &actions)
        return actions
    }

    mutating func sendAnswer(headers: [SIPField], into actions: inout [SessionAction]) {
        // The INVITE's record is read and changed in its box: no copy of it out of the phase.
        guard let box = ownedIncomingInviteBox() else { return }
        var body: SessionDescription?
        var expectsAnswer = false
        do {
            if box.invite.hasOffer {
                if offerAnswer.state == .remoteOfferPending {
                    body = try offerAnswer.makeAnswer().sessionDescription
                } else if box.invite.answerDelivery == .unreliable, let local = offerAnswer.localDescription {
                    body = local
                }
            } else if offerAnswer.state == .stable, offerAnswer.session == nil {
                body = try offerAnswer.makeOffer()
                expectsAnswer = true
            }
        } catch {
            rejectIncoming(
                refuse(box.invite.request, error),
                EndReason(.notAcceptable, statusCode: error.status, reasonPhrase: error.reasonPhrase), into: &actions)
            return
        }
        // The 2xx is the INVITE's last response: once the phase and `incoming` let go of the fields its
        // responses shared, the 2xx takes them over and its own fields go on in place, not on a copy.
        phase = .modifying
        var response = makeDialogResponse(status: 200, for: &box.invite)
        box.invite.responseFields = nil
        // Allow, Supported (and Content-Type) as the configuration wrote them once. The fields so far (those
        // of the dialog's responses) have no Content-Type, so the SDP's goes on the end as `setBody` puts it.
        let written = configuration.responseFields
        if let body {
            response.headerFields.appendFields(of: written.successWithSDP)
            response.body = body.serialized()
        } else {
            response.headerFields.appendFields(of: written.success)
        }
        if let expires = box.invite.sessionExpires {
            // The usual value (the configured interval) as the configuration wrote it once.
            if let fields = written.sessionTimerFields(expires, requiringTimer: box.invite.requiresTimer) {
                response.headerFields.appendFields(of: fields)
            } else {
                response.headerFields.append(.sessionExpires, expires)
                if box.invite.requiresTimer { response.headerFields.append(.require, "timer") }
            }
        }
        for field in headers { response.headerFields.append(field) }
        stopReliableProvisionals(into: &actions)
        dialog?.state = .confirmed
        let sequenceNumber = box.invite.sequenceNumber ?? (try? box.invite.request.cseq)??.sequenceNumber ?? 0
        let token = box.invite.token
        let interval = configuration.t1
        // The INVITE has its final response: what it was kept for ends here.
        phase = .connecting(
            AwaitingACK(
                token: token, response: response, sequenceNumber: sequenceNumber, interval: interval,
                expectsAnswer: expectsAnswer))
        announceDialog(into: &actions)
        // `startRetransmitting` spelt out on the response itself: the action takes it over, where a copy of the
        // record put in the phase was copied again (and both destroyed after).
        actions.append(.sendResponse(response, transaction: token))
        timers.start(.retransmit2xx, after: interval, into: &actions)
        timers.start(.ackTimeout, after: configuration.t1Times64, into: &actions)
        if let expires = box.invite.sessionExpires {
            activateSessionTimer(
                expires, refresher: box.invite.sessionRefresher, localRefresher: .uas, into: &actions)
        }
    }

    /// Sends the 2xx of `waiting` (in the phase already) and re-sends it on T1, 2*T1, ... up to T2 until the
    /// ACK; BYE after 64*T1.
    mutating func startRetransmitting(_ waiting: AwaitingACK, into actions: inout [SessionAction]) {
        actions.append(.sendResponse(waiting.response, transaction: waiting.token))
        timers.start(.retransmit2xx, after: waiting.interval, into: &actions)
        timers.start(.ackTimeout, after: configuration.t1Times64, into: &actions)
    }

    /// UAS: rejects the call with a final response (300-699) and an optional Reason (RFC 3326). The call
    /// ends as `localEnded` with that status.
    /// - Parameters:
    ///   - status: 300...699 (603 Decline by default; 486 Busy Here, 480, 488, ...).
    ///   - reasonPhrase: the reason phrase, the standard one when `nil`.
    ///   - reason: a Reason header field.
    ///   - headers: extra header fields (Retry-After, Contact of a 3xx, Warning, ...).
    public mutating func reject(
        status: Int = 603, reasonPhrase: String? = nil, reason: Reason? = nil, headers: [SIPField] = []
    ) -> [SessionAction] {
        guard (300...699).contains(status), let incoming = incomingInvite else { return [] }
        var actions: [SessionAction] = []
        var response = makeResponse(to: incoming.request, status: status, reason: reasonPhrase)
        if let reason { response.headerFields.append(.reason, reason) }
        for field in headers { response.headerFields.append(field) }
        let ending = EndReason(
            .localEnded, statusCode: status, reasonPhrase: response.reasonPhrase, reasons: reason.map { [$0] } ?? [])
        rejectIncoming(response, ending, into: &actions)
        finishIfDone(into: &actions)
        return actions
    }

    mutating func rejectIncoming(_ response: SIPResponse, _ reason: EndReason, into actions: inout [SessionAction]) {
        guard let incoming = incomingInvite else { return }
        stopReliableProvisionals(into: &actions)
        actions.append(.sendResponse(response, transaction: incoming.token))
        offerAnswer.cancelPendingOffer()
        end(reason, into: &actions)
    }

    /// UAS: the CANCEL of the INVITE arrived (the driver answered it 200, §9.2). Before the final response
    /// the INVITE gets 487 and the call ends as `answeredElsewhere` (`Reason: SIP;cause=200`),
    /// `declinedElsewhere` (cause 603 or 600) or `cancelledByCaller`; after it, nothing happens.
    public mutating func receiveCancel(_ cancel: SIPRequest) -> [SessionAction] {
        guard let incoming = incomingInvite else { return [] }
        var actions: [SessionAction] = []
        rejectIncoming(makeResponse(to: incoming.request, status: 487), EndReason(cancel: cancel), into: &actions)
        finishIfDone(into: &actions)
        return actions
    }

    /// The ACK of a 2xx this side sent (§13.3.1.4): stops its retransmissions, takes the answer it carries
    /// (an offer went in the 2xx), confirms the call (`connected`) or completes a re-INVITE. ACKs that match
    /// no 2xx (retransmissions) are ignored.
    public mutating func receiveACK(_ ack: SIPRequest) -> [SessionAction] {
        guard let number = (try? ack.headerFields.cseqNumber) ?? nil, number == awaitingACKSequenceNumber,
            case (let expectsAnswer, let wait)? = takeAwaitingACK()
        else { return [] }
        var actions: [SessionAction] = []
        actions.reserveCapacity(8)  // the timers cancelled, a queued offer, the events: one allocation
        timers.cancel(.retransmit2xx, into: &actions)
        timers.cancel(.ackTimeout, into: &actions)
        if case .byeAfterACK(let reasons) = wait {
            sendBye(reasons: reasons, into: &actions)
            finishIfDone(into: &actions)
            return actions
        }
        if expectsAnswer {
            let before = offerAnswer.session
            do {
                guard let answer = try ack.sessionDescription() else { throw MissingSessionDescription() }
                let session = try offerAnswer.receiveAnswer(answer)
                if case .reinvite = wait, session != before { actions.append(.event(.mediaUpdated(session))) }
            } catch {
                offerAnswer.cancelPendingOffer()
                let phrase = (error as? SDPError)?.reasonPhrase ?? MissingSessionDescription().reasonPhrase
                let reason = Reason(protocol: "SIP", cause: 488, text: phrase)
                sendBye(reasons: [reason], into: &actions)
                end(EndReason(.notAcceptable, statusCode: 488, reasonPhrase: phrase, reasons: [reason]), into: &actions)
                finishIfDone(into: &actions)
                return actions
            }
        }
        if case .initial = wait { actions.append(.event(.connected(offerAnswer.session))) }
        sendQueuedOffer(into: &actions)
        finishIfDone(into: &actions)
        return actions
    }

    /// Timer: the 2xx goes again, the interval doubles up to T2 (§13.3.1.4).
    mutating func retransmit2xx(into actions: inout [SessionAction]) {
        let t2 = configuration.t2
        let waiting = modifyAwaitingACK { (waiting: inout AwaitingACK) -> AwaitingACK in
            waiting.interval = min(waiting.interval * 2, t2)
            return waiting
        }
        guard let waiting else { return }
        actions.append(.sendResponse(waiting.response, transaction: waiting.token))
        timers.start(.retransmit2xx, after: waiting.interval, into: &actions)
    }

    /// Timer: 64*T1 without ACK. The dialog is confirmed, but the session ends with BYE (§13.3.1.4).
    mutating func ackTimedOut(into actions: inout [SessionAction]) {
        guard case (_, let wait)? = takeAwaitingACK() else { return }
        timers.cancel(.retransmit2xx, into: &actions)
        var reasons: [Reason] = []
        if case .byeAfterACK(let deferred) = wait { reasons = deferred }
        sendBye(reasons: reasons, into: &actions)
        end(EndReason(.timeout, reasonPhrase: "No ACK"), into: &actions)
    }
}
