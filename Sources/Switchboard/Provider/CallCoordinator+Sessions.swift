import Foundation
import SDP
import SIPCore
import SIPMessage
import SIPTransport
import SIPUserAgent

/// What the calls' sessions report, turned into record changes and provider events.
extension CallCoordinator: SessionDriverDelegate {
    func sessionDriverAdmitsIncoming(_ request: SIPRequest) -> Bool {
        // The INVITE of a call reported from a push already counts among the live calls.
        if isAwaited(request) { return true }
        return admission.admitsIncoming(liveCalls: table.liveCount)
    }

    func sessionDriver(incoming key: SessionKey, request: SIPRequest, callID: String, offer: SessionDescription?)
        -> Int?
    {
        let account = accounts.matching((try? request.to)?.uri.sipURI)?.id
        switch claimPushed(request, account: account) {
        case .declined: return 603
        case .claimed(let waiting):
            bindPushed(waiting, key: key, request: request, offer: offer, account: account)
            return nil
        case .none: break
        }
        let uuid = engine.environment.random.uuid()
        let incoming = IncomingInvite(
            request, callID: callID, offer: offer, uuid: uuid, account: account, date: engine.date)
        let record = CallRecord(call: incoming.call)
        add(record, on: key)
        armUnansweredTimer(record)
        emit(.invite(incoming.invite))
        return nil
    }

    func sessionDriver(_ key: SessionKey, event: SessionEvent) {
        guard let record = table[session: key] else { return }
        switch event {
        case .trying, .infoReceived:
            break
        case .offerReceived(let offer):
            // Only ICE calls' re-offers wait for the provider (the initial offer came before the record).
            iceReoffer(key, offer)
        case .ringing(let status, let phrase, _):
            if record.state == .connecting { record.state = .ringing }
            // A far end that keeps sending provisional responses is alive (RFC 3261 §13.3.1.1 asks a UAS that
            // rings long to send one a minute): like a proxy's Timer C (§16.6), the wait starts over.
            if record.call.direction == .outgoing, record.unansweredTimer != nil { armOutgoingAnswerTimer(record) }
            // The session reports a provisional's new early answer (`earlyMedia`) just before the provisional.
            emit(.ringing(record.call, statusCode: status, hasEarlyMedia: record.media.takeNewEarlyMedia()))
            if let referral = record.transfer.referral {
                sessions.notifyRefer(referral.session, id: referral.id, status: status, phrase: phrase)
            }
        case .earlyMedia(let session):
            apply(session, to: record)
            if record.call.direction == .outgoing {
                record.media.earlyAnswerArrived()
                media.startEarlyMedia(record)
            }
        case .redirected(let contacts):
            // Followed in `ended` below: the session ends with `redirected`.
            record.routing.redirected(to: contacts.compactMap(\.nameAddress?.uri))
        case .connected(let session):
            connected(record, session)
        case .mediaUpdated(let session):
            finishReconnecting(record)
            media.configure(session, for: record)
            iceNegotiated(key, session)
            if let update = record.mediaUpdated(session) { emit(.updated(record.call, update)) }
        case .remoteHoldChanged(let held):
            if let update = record.remoteHoldChanged(held) { emit(.updated(record.call, update)) }
        case .offerRejected:
            finishReconnecting(record)
            // A hold or resume that the other side refused: the call stays as it was.
            record.call.isOnHold = record.call.isOnHold ? false : record.call.isOnHold
            emit(.updated(record.call, CallUpdate()))
        case .sessionRefreshed(let interval):
            finishReconnecting(record)
            // A re-offer whose answer changed only ICE attributes (a restart) refreshes the session.
            if let negotiated = sessions.negotiatedSession(key) { iceNegotiated(key, negotiated) }
            logger.debug("session refreshed", metadata: ["call": "\(record.uuid)", "interval": "\(interval)"])
        case .dtmfReceived(let relay):
            if let digit = relay.signal.first { emit(.dtmfReceived(record.call, digit: digit)) }
        case .messageReceived(let request):
            emit(.message(TextMessage(request, account: record.call.account)))
        case .requestCompleted(let method, let status, let phrase):
            logger.debug("\(method) completed \(status) \(phrase)", metadata: ["call": "\(record.uuid)"])
        case .referReceived(let refer):
            acceptReferral(refer, on: key, from: record)
        case .referAnswered(let status, _):
            record.transfer.referAnswered(status: status)
        case .referProgress(let status, _, let isFinal):
            if record.transfer.referProgress(status: status, isFinal: isFinal) {
                end(record.uuid, rejectStatus: 603, reason: .localEnded)
            }
        case .ended(let reason):
            if reason.kind == .redirected, let next = record.routing.nextRedirection() {
                record.media.forgetEarlyMedia()
                _ = unbind(key)
                placeCall(record, to: next, headers: [])
                return
            }
            if reason.kind == .notAcceptable, retriesWithoutWebRTC(record) {
                record.media.forgetEarlyMedia()
                _ = unbind(key)
                if let target = record.routing.target { placeCall(record, to: target, headers: []) }
                return
            }
            var details = CallEndDetails(
                reason, direction: record.call.direction, wasConnected: record.call.connectedAt != nil,
                localEndReason: record.localEndReason)
            details.mediaSecurityFailure = record.mediaSecurityFailure
            if reason.kind == .unreachable, let error = sessions.transportError(key) {
                details.transportFailure = TransportFailure(error)
                details.reasonPhrase = details.transportFailure?.reasonPhrase ?? details.reasonPhrase
            }
            finish(record, details)
        }
    }

    func sessionDriverFinished(_ key: SessionKey) {
        media.close(key)
        guard let record = unbind(key) else { return }
        if record.state != .ended {
            finish(record, CallEndDetails(reason: .failed, reasonPhrase: "the session ended"))
        }
        if record.session == key { forget(record) }
    }

    /// The connection of a connected call died: tell the app, and re-establish the session with a
    /// re-INVITE over a new connection (its success is `reconnected`; its failure ends the call).
    func sessionDriver(_ key: SessionKey, flowLost flow: FlowID) {
        guard let record = table[session: key], record.startReconnecting() else { return }
        emit(.reconnecting(record.call))
        sessions.refresh(key)
    }

    // MARK: Helpers

    /// Rejects the invite with 480 when nobody answers it within `unansweredTimeout`.
    func armUnansweredTimer(_ record: CallRecord) {
        armUnanswered(record, after: configuration.unansweredTimeout)
    }

    /// Cancels the outgoing call when it has no answer within `outgoingAnswerTimeout`; each INVITE it sends
    /// (a redirect's too) and each provisional response other than 100 starts the wait again.
    func armOutgoingAnswerTimer(_ record: CallRecord) {
        armUnanswered(record, after: configuration.outgoingAnswerTimeout)
    }

    /// Ends the call `unanswered` (an incoming one with 480, an outgoing one with CANCEL) after `wait`, in
    /// place of the wait armed before; nothing when `wait` is nil.
    private func armUnanswered(_ record: CallRecord, after wait: Duration?) {
        record.cancelUnansweredTimer()
        guard let wait else { return }
        let uuid = record.uuid
        let handle = engine.loop.scheduleTimer(after: wait) { [weak self] in
            self?.end(uuid, rejectStatus: 480, reason: .unanswered)
        }
        record.unansweredTimer = TimerHandleBox { [engine] in engine.loop.cancelTimer(handle) }
    }

    private func connected(_ record: CallRecord, _ session: NegotiatedSession?) {
        record.cancelUnansweredTimer()
        if let session { apply(session, to: record) }
        // With ICE the app hears `connected` with the media path, once a pair is selected.
        if holdsConnectForICE(record) || holdsConnectForDTLS(record) { return }
        finishConnecting(record)
    }

    /// The call is up: its record, the app's `connected` event, the transfer it completes, its audio.
    func finishConnecting(_ record: CallRecord) {
        if let key = record.session, let transport = sessions.transport(key) {
            record.call.transport = SIPTransportKind(transport)
        }
        record.connected(at: engine.date)
        media.stopEarlyMedia(record)
        emit(.connected(record.call))
        if let referral = record.transfer.takeReferral() {
            // The transfer worked (RFC 3515 §2.4.5): the final NOTIFY carries the 200.
            sessions.notifyRefer(referral.session, id: referral.id, status: 200, phrase: "OK")
        }
        if record.media.mayPlay(manualActivation: configuration.usesManualAudioActivation) {
            activateAudio(record.uuid, active: true)
        }
    }

    /// A re-INVITE after a lost connection got its answer: the call is back.
    private func finishReconnecting(_ record: CallRecord) {
        if record.finishReconnecting() { emit(.reconnected(record.call)) }
    }

    /// Applies a negotiated session to the call's stream, then to its snapshot.
    private func apply(_ session: NegotiatedSession, to record: CallRecord) {
        media.configure(session, for: record)
        record.apply(session)
        if let key = record.session { iceNegotiated(key, session) }
    }

    /// The transferee's side of REFER (RFC 3515): accept, place the new call, NOTIFY its progress.
    private func acceptReferral(_ refer: ReferRequest, on key: SessionKey, from record: CallRecord) {
        guard admission.admitsReferral(liveCalls: table.liveCount) else {
            sessions.rejectRefer(key, id: refer.id, status: 603)
            return
        }
        sessions.acceptRefer(key, id: refer.id)
        let uuid = engine.environment.random.uuid()
        let transferred = CallRecord(
            call: .outgoing(
                uuid, account: record.call.account, local: record.call.localHandle, remote: Handle(uri: refer.target),
                date: engine.date))
        transferred.routing.target = refer.target
        transferred.transfer.referral = refer.suppressesNotifications ? nil : (key, refer.id)
        add(transferred)
        // The app hears of the transfer before the new call's first event. The old call ends on the
        // transferor's BYE, or on this side's own after the final NOTIFY (InviteSession.transferHangUpDelay).
        emit(.transferred(record.call, to: Handle(uri: refer.target), newCallUUID: uuid))
        placeCall(transferred, to: refer.target, headers: [], replaces: refer.replaces, referredBy: refer.referredBy)
    }
}
