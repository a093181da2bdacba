import Foundation
import SDP
import SIPMessage
import SIPTransport

/// Calls reported from a VoIP push before their INVITE (issue 18): the push reports the call at once,
/// wakes the account's registration, and the INVITE that then arrives is bound to the same call UUID.
extension CallCoordinator {
    /// What an incoming INVITE is to the pushed calls.
    enum PushedClaim {
        /// The INVITE of a waiting pushed call.
        case claimed(PushedCalls.Waiting)
        /// The INVITE of a pushed call the user declined before it came.
        case declined
    }

    /// Reports the call `payload` announces (or ends the one it cancels) and returns its UUID: the same UUID
    /// for a second push of the same call, which reports nothing twice.
    func reportPush(_ payload: PushPayload) -> UUID {
        let entry = accounts.entry(orDefault: payload.account)
        if let callID = payload.callID {
            if let uuid = pushed.uuid(forCallID: callID) {
                if payload.kind == .cancel { cancelPushed(uuid, reason: payload.cancelReason) }
                return uuid
            }
            // The INVITE came first: the call rings already (and a cancelled one gets its CANCEL over SIP).
            if let record = table.record(callID: callID), record.state != .ended { return record.uuid }
        }
        let uuid = engine.environment.random.uuid()
        reportPushed(uuid, payload, entry: entry)
        if payload.kind == .cancel {
            // PushKit wants a call reported for every VoIP push, a cancellation too: report it, then end it.
            cancelPushed(uuid, reason: payload.cancelReason)
        } else {
            onPushWake(entry?.id)
        }
        return uuid
    }

    /// Files the pushed call, arms its wait for the INVITE, and tells the app.
    private func reportPushed(_ uuid: UUID, _ payload: PushPayload, entry: AccountEntry?) {
        let local = entry.map { Handle(uri: .sip($0.addressOfRecord)) } ?? Handle(type: .generic, value: "")
        let remote = payload.from ?? Handle(type: .generic, value: "unknown")
        let call = Call(
            uuid: uuid, callID: payload.callID ?? "", account: entry?.id, direction: .incoming, state: .ringing,
            localHandle: local, remoteHandle: remote, remoteDisplayName: payload.callerName, isOnHold: false,
            isRemoteHeld: false, isMuted: false, codec: nil, isSecure: false, quality: nil, startedAt: engine.date,
            connectedAt: nil, endedAt: nil, endDetails: nil)
        add(CallRecord(call: call))
        let timer = engine.loop.scheduleTimer(after: configuration.pushInviteTimeout) { [weak self] in
            self?.pushedInviteMissed(uuid)
        }
        let waiting = PushedCalls.Waiting(
            uuid: uuid, callID: payload.callID, account: entry?.id,
            caller: PushedCalls.Caller(try? payload.from?.uri(defaultDomain: nil)), heldAnswer: nil,
            cancelTimer: TimerHandleBox { [engine] in engine.loop.cancelTimer(timer) })
        emit(
            .invite(
                CallInvite(
                    callUUID: uuid, callID: payload.callID ?? "", from: remote, callerName: payload.callerName,
                    to: local, account: entry?.id, offeredCodecs: [], offersSRTP: false, headers: [])))
        if let pushedOut = pushed.add(waiting), let record = table[pushedOut.uuid] {
            pushedOut.cancelTimer?.cancel()
            finish(record, CallEndDetails(reason: .failed, reasonPhrase: "too many calls waiting for their INVITE"))
        }
    }

    /// The proxy says the pushed call `uuid` is over before its INVITE reached this side.
    private func cancelPushed(_ uuid: UUID, reason: CallEndedReason) {
        guard let record = table[uuid], pushed.isWaiting(uuid) else { return }
        let phrase =
            switch reason {
            case .answeredElsewhere: "answered elsewhere"
            case .declinedElsewhere: "declined elsewhere"
            default: "the caller cancelled"
            }
        finish(record, CallEndDetails(reason: reason, reasonPhrase: phrase))
    }

    /// No INVITE came for pushed call `uuid` in time: it fails, as CallKit requires.
    private func pushedInviteMissed(_ uuid: UUID) {
        guard pushed.isWaiting(uuid), let record = table[uuid] else { return }
        finish(record, CallEndDetails(reason: .failed, reasonPhrase: "no INVITE arrived after the push"))
    }

    /// Whether `request` is the INVITE of a waiting pushed call.
    func isAwaited(_ request: SIPRequest) -> Bool {
        guard !pushed.waiting.isEmpty, let callID = try? request.callID else { return false }
        let account = accounts.matching((try? request.to)?.uri.sipURI)?.id
        return pushed.index(callID: callID, account: account, from: (try? request.from)?.uri) != nil
    }

    /// What an incoming INVITE is to the pushed calls; `nil` when it is a call of its own.
    func claimPushed(_ request: SIPRequest, account: String?) -> PushedClaim? {
        guard let callID = try? request.callID else { return nil }
        if pushed.isDeclined(callID) {
            pushed.forgetDecline(callID)
            return .declined
        }
        guard !pushed.waiting.isEmpty else { return nil }
        return pushed.claim(callID: callID, account: account, from: (try? request.from)?.uri).map { .claimed($0) }
    }

    /// The INVITE of pushed call `waiting` arrived on session `key`: the call takes its details (the app
    /// hears `inviteArrived` and an update), and an answer the user already gave goes out now.
    func bindPushed(
        _ waiting: PushedCalls.Waiting, key: SessionKey, request: SIPRequest, offer: SessionDescription?,
        account: String?
    ) {
        waiting.cancelTimer?.cancel()
        guard let record = table[waiting.uuid] else { return }
        let incoming = IncomingInvite(
            request, offer: offer, uuid: waiting.uuid, account: account ?? record.call.account,
            date: record.call.startedAt)
        record.call.callID = incoming.call.callID
        record.call.account = incoming.call.account
        record.call.localHandle = incoming.call.localHandle
        record.call.remoteHandle = incoming.call.remoteHandle
        record.call.remoteDisplayName = incoming.call.remoteDisplayName
        bind(key, to: record)
        var update = CallUpdate()
        update.remoteHandle = record.call.remoteHandle
        update.localizedCallerName = record.call.remoteDisplayName
        emit(.updated(record.call, update))
        emit(.inviteArrived(incoming.invite))
        if let headers = waiting.heldAnswer {
            // After the session rang (it does once this returns).
            let uuid = record.uuid
            engine.loop.execute { [weak self] in
                guard let self, let record = self.table[uuid], record.state == .answering else { return }
                record.state = .ringing
                self.answer(record, headers: headers)
            }
        } else {
            armUnansweredTimer(record)
        }
    }
}
