import Foundation
import SDP
import SIPCore
import SIPMessage
import SIPTransport
import SIPUserAgent

/// Calls: records, the session driver's reports turned into provider events, and the end of a call.
extension ProviderCore: SessionDriverDelegate {
    // MARK: Snapshots

    func callSnapshots() -> [Call] {
        callOrder.compactMap { uuid in
            calls[uuid].map { record in
                refreshQuality(record)
                return record.call
            }
        }
    }

    func snapshot(_ uuid: UUID) -> Call? {
        guard let record = calls[uuid] else { return nil }
        refreshQuality(record)
        return record.call
    }

    // MARK: Outgoing

    func createOutgoingRecord(for start: StartCallAction) {
        let entry = start.account.flatMap { accounts[$0] } ?? accountOrder.first.flatMap { accounts[$0] }
        let local = entry.map { Handle(uri: .sip($0.addressOfRecord)) } ?? Handle(type: .generic, value: "anonymous")
        let call = Call(
            uuid: start.callUUID, callID: "", account: entry?.account.id, direction: .outgoing, state: .connecting,
            localHandle: local, remoteHandle: start.handle, remoteDisplayName: nil, isOnHold: false,
            isRemoteHeld: false, isMuted: false, codec: nil, isSecure: false, quality: nil, startedAt: engine.date,
            connectedAt: nil, endedAt: nil, endDetails: nil)
        let record = CallRecord(call: call)
        record.target = try? start.handle.uri(defaultDomain: entry?.addressOfRecord.host.description)
        add(record)
    }

    func startSession(_ record: CallRecord, _ start: StartCallAction) {
        guard let target = record.target else {
            finishRecord(record, CallEndDetails(reason: .failed, reasonPhrase: "not a SIP address"))
            return
        }
        placeCall(record, to: target, headers: fields(start.headers))
    }

    /// Sends the INVITE of `record` to `target` (also after a 3xx, or for a REFER).
    func placeCall(
        _ record: CallRecord, to target: URI, headers: [SIPField], replaces: Replaces? = nil,
        referredBy: NameAddress? = nil
    ) {
        let entry = record.call.account.flatMap { accounts[$0] }
        let request = OutgoingRequest(
            target: target, from: entry?.addressOfRecord, displayName: entry?.account.displayName,
            outboundProxy: entry?.outboundProxy,
            transport: entry?.account.transport, credentials: entry?.credentials,
            codecs: entry?.account.codecs ?? configuration.codecs, srtp: entry?.account.srtp ?? configuration.srtp,
            headers: headers, replaces: replaces, referredBy: referredBy)
        let (key, callID) = sessions.startCall(request)
        record.session = key
        record.call.callID = callID
        sessionToCall[key] = record.uuid
        emit(.startedConnecting(record.call))
    }

    // MARK: Ending

    /// Ends call `uuid` from this side the way its state asks: rejection, CANCEL or BYE; `byeReason` goes in
    /// the BYE as its Reason header field.
    func end(_ uuid: UUID, rejectStatus: Int, reason: CallEndedReason, byeReason: Reason? = nil) {
        guard let record = calls[uuid], record.state != .ended else { return }
        cancelUnansweredTimer(record)
        record.localEndReason = reason
        guard let key = record.session else {
            finishRecord(record, CallEndDetails(reason: reason))
            return
        }
        switch (record.call.direction, record.state) {
        case (.incoming, .ringing):
            record.state = .ending
            sessions.reject(key, status: rejectStatus)
        default:
            record.state = .ending
            sessions.end(key, reason: byeReason)
        }
    }

    /// Marks the call ended, tells the app, and forgets it once its session finished.
    func finishRecord(_ record: CallRecord, _ details: CallEndDetails) {
        guard record.state != .ended else { return }
        cancelUnansweredTimer(record)
        refreshQuality(record)
        let wasRingingIncoming = record.call.direction == .incoming && record.call.connectedAt == nil
        record.state = .ended
        liveCalls.remove(record.uuid)
        record.call.endedAt = engine.date
        record.call.endDetails = details
        if record.isAudioActive {
            record.isAudioActive = false
            emit(.audioDeactivated(record.uuid))
        }
        // The call is over: its media stops now (RTCP BYE), not when the session's last transaction ends.
        if let key = record.session { closeMedia(key) }
        if wasRingingIncoming, details.reason != .localEnded, details.reason != .failed {
            emit(
                .inviteCancelled(
                    CancelledCallInvite(
                        callUUID: record.uuid, callID: record.call.callID, from: record.call.remoteHandle,
                        reason: details.reason, details: details)))
        }
        emit(.ended(record.call, details))
        if let referral = record.referral {
            sessions.notifyRefer(
                referral.session, id: referral.id, status: details.statusCode ?? 487, phrase: details.reasonPhrase)
        }
        if record.session == nil || !sessions.isLive(record.session) { forget(record) }
    }

    /// Files a new call: O(1), whatever the number of calls (a load test keeps thousands).
    func add(_ record: CallRecord) {
        nextCallSequence &+= 1
        record.sequence = nextCallSequence
        calls[record.uuid] = record
        liveCalls.insert(record.uuid)
    }

    private func forget(_ record: CallRecord) {
        calls[record.uuid] = nil
        liveCalls.remove(record.uuid)
        if let key = record.session { sessionToCall[key] = nil }
        let waiting = record.onFinished
        record.onFinished = []
        for body in waiting { body() }
    }

    func cancelUnansweredTimer(_ record: CallRecord) {
        record.unansweredTimer?.cancel()
        record.unansweredTimer = nil
    }

    // MARK: Audio

    func activateAudio(_ uuid: UUID, active: Bool) {
        guard let record = calls[uuid], record.state != .ended else { return }
        // Before the answer (CallKit activates audio early for outgoing calls) the wish is kept for later;
        // early media, if there is some, plays from now on.
        record.audioRequested = active
        if record.state != .connected {
            if active { startEarlyMedia(record) } else { stopEarlyMedia(record) }
        }
        guard record.state == .connected || !active else { return }
        guard record.isAudioActive != active else { return }
        record.isAudioActive = active
        setMediaActive(record, active)
        emit(active ? .audioActivated(uuid) : .audioDeactivated(uuid))
    }

    // MARK: Messages

    func sendMessage(
        _ message: TextMessage, from id: String?, completion: @escaping @Sendable (Result<Int, CallError>) -> Void
    ) {
        if let id, accounts[id] == nil {
            completion(.failure(.unknownAccount(id)))
            return
        }
        let entry = id.flatMap { accounts[$0] } ?? accountOrder.first.flatMap { accounts[$0] }
        let target: URI
        do throws(CallError) {
            target = try message.to.uri(defaultDomain: entry?.addressOfRecord.host.description)
        } catch {
            completion(.failure(error))
            return
        }
        messages.send(
            OutOfDialogRequest(
                method: .message, target: target, from: entry?.addressOfRecord, outboundProxy: entry?.outboundProxy,
                transport: entry?.account.transport, credentials: entry?.credentials, contentType: message.contentType,
                body: message.body)
        ) { status in completion(.success(status)) }
    }

    /// Sends OPTIONS (RFC 3261 §11) from an account to `handle` outside any call: a qualify.
    func sendOptions(
        to handle: Handle, from id: String?, completion: @escaping @Sendable (Result<Int, CallError>) -> Void
    ) {
        if let id, accounts[id] == nil {
            completion(.failure(.unknownAccount(id)))
            return
        }
        let entry = id.flatMap { accounts[$0] } ?? accountOrder.first.flatMap { accounts[$0] }
        let target: URI
        do throws(CallError) {
            target = try handle.uri(defaultDomain: entry?.addressOfRecord.host.description)
        } catch {
            completion(.failure(error))
            return
        }
        messages.send(
            OutOfDialogRequest(
                method: .options, target: target, from: entry?.addressOfRecord, outboundProxy: entry?.outboundProxy,
                transport: entry?.account.transport, credentials: entry?.credentials)
        ) { status in completion(.success(status)) }
    }

    // MARK: SessionDriverDelegate

    func sessionDriver(incoming key: SessionKey, request: SIPRequest, offer: SessionDescription?) -> Bool {
        guard !isWindingDown, liveCallCount < configuration.maximumCalls else { return false }
        let from = try? request.from
        let to = try? request.to
        let identity = (try? request.pAssertedIdentity)?.first
        let remoteURI = identity?.uri ?? from?.uri
        let remote = remoteURI.map(Handle.init(uri:)) ?? Handle(type: .generic, value: "anonymous")
        let local = to.map { Handle(uri: $0.uri) } ?? Handle(type: .generic, value: "")
        let entry = account(matching: to?.uri.sipURI)
        let uuid = engine.environment.random.uuid()
        let callID = (try? request.callID) ?? ""
        let call = Call(
            uuid: uuid, callID: callID, account: entry?.account.id, direction: .incoming, state: .ringing,
            localHandle: local, remoteHandle: remote, remoteDisplayName: identity?.displayName ?? from?.displayName,
            isOnHold: false, isRemoteHeld: false, isMuted: false, codec: nil, isSecure: false, quality: nil,
            startedAt: engine.date, connectedAt: nil, endedAt: nil, endDetails: nil)
        let record = CallRecord(call: call)
        record.session = key
        add(record)
        sessionToCall[key] = uuid
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(request.headerFields.count)
        for field in request.headerFields {
            let redacted = field.name == .authorization || field.name == .proxyAuthorization
            headers.append((field.name.description, redacted ? "<redacted>" : field.value))
        }
        let audio = offer?.media.first { $0.mediaType.matches(.audio) }
        let invite = CallInvite(
            callUUID: uuid, callID: callID, from: remote, callerName: call.remoteDisplayName, to: local,
            account: entry?.account.id, offeredCodecs: audio.map(Self.codecNames) ?? [],
            offersSRTP: audio.map { $0.transport.matches(.rtpSAVP) || !((try? $0.cryptos) ?? []).isEmpty } ?? false,
            headers: headers)
        if let wait = configuration.unansweredTimeout {
            let handle = engine.loop.scheduleTimer(after: wait) { [weak self] in
                self?.end(uuid, rejectStatus: 480, reason: .unanswered)
            }
            record.unansweredTimer = TimerHandleBox { [engine] in engine.loop.cancelTimer(handle) }
        }
        emit(.invite(invite))
        return true
    }

    func sessionDriver(_ key: SessionKey, event: SessionEvent) {
        guard let uuid = sessionToCall[key], let record = calls[uuid] else { return }
        switch event {
        case .trying:
            break
        case .ringing(let status, let phrase, _):
            record.lastProvisional = status
            if record.state == .connecting { record.state = .ringing }
            // The session reports a provisional's new early answer (`earlyMedia`) just before the provisional.
            let hasEarlyMedia = record.hasNewEarlyMedia
            record.hasNewEarlyMedia = false
            emit(.ringing(record.call, statusCode: status, hasEarlyMedia: hasEarlyMedia))
            if let referral = record.referral {
                sessions.notifyRefer(referral.session, id: referral.id, status: status, phrase: phrase)
            }
        case .earlyMedia(let session):
            apply(session, to: record)
            if record.call.direction == .outgoing {
                record.hasNewEarlyMedia = true
                record.hasEarlyMedia = true
                startEarlyMedia(record)
            }
        case .redirected(let contacts):
            // Followed in `ended` below: the session ends with `redirected`.
            record.redirectTargets = contacts.compactMap(\.nameAddress?.uri)
        case .offerReceived:
            break
        case .connected(let session):
            if let session { apply(session, to: record) }
            record.state = .connected
            record.call.connectedAt = engine.date
            stopEarlyMedia(record)
            emit(.connected(record.call))
            if let referral = record.referral {
                // The transfer worked (RFC 3515 §2.4.5): the final NOTIFY carries the 200.
                record.referral = nil
                sessions.notifyRefer(referral.session, id: referral.id, status: 200, phrase: "OK")
            }
            if !configuration.usesManualAudioActivation || record.audioRequested { activateAudio(uuid, active: true) }
        case .mediaUpdated(let session):
            finishReconnecting(record)
            let before = (record.call.isRemoteHeld, record.call.codec)
            apply(session, to: record)
            guard before != (record.call.isRemoteHeld, record.call.codec) else { return }
            var update = CallUpdate()
            if before.0 != record.call.isRemoteHeld { update.isRemoteHeld = record.call.isRemoteHeld }
            emit(.updated(record.call, update))
        case .remoteHoldChanged(let held):
            guard record.call.isRemoteHeld != held else { return }
            record.call.isRemoteHeld = held
            var update = CallUpdate()
            update.isRemoteHeld = held
            emit(.updated(record.call, update))
        case .offerRejected:
            finishReconnecting(record)
            // A hold or resume that the other side refused: the call stays as it was.
            record.call.isOnHold = record.call.isOnHold ? false : record.call.isOnHold
            emit(.updated(record.call, CallUpdate()))
        case .sessionRefreshed(let interval):
            finishReconnecting(record)
            logger.debug("session refreshed", metadata: ["call": "\(uuid)", "interval": "\(interval)"])
        case .infoReceived:
            break
        case .dtmfReceived(let relay):
            if let digit = relay.signal.first { emit(.dtmfReceived(record.call, digit: digit)) }
        case .messageReceived(let request):
            emit(.message(textMessage(request, account: record.call.account)))
        case .requestCompleted(let method, let status, let phrase):
            logger.debug("\(method) completed \(status) \(phrase)", metadata: ["call": "\(uuid)"])
        case .referReceived(let refer):
            acceptReferral(refer, on: key, from: record)
        case .referAnswered(let status, _):
            if !(200...299).contains(status) { record.isTransferring = false }
        case .referProgress(let status, _, let isFinal):
            if isFinal, record.isTransferring, (200...299).contains(status) {
                record.isTransferring = false
                end(uuid, rejectStatus: 603, reason: .localEnded)
            }
        case .ended(let reason):
            if reason.kind == .redirected, let next = record.redirectTargets.first, record.redirections < 5 {
                record.redirections += 1
                record.redirectTargets.removeFirst()
                record.hasEarlyMedia = false
                record.isEarlyMediaPlaying = false
                sessionToCall[key] = nil
                placeCall(record, to: next, headers: [])
                return
            }
            finishRecord(record, details(reason, state: record))
        }
    }

    func sessionDriverFinished(_ key: SessionKey) {
        closeMedia(key)
        guard let uuid = sessionToCall.removeValue(forKey: key), let record = calls[uuid] else { return }
        if record.state != .ended {
            finishRecord(record, CallEndDetails(reason: .failed, reasonPhrase: "the session ended"))
        }
        if record.session == key { forget(record) }
    }

    /// The connection of a connected call died: tell the app, and re-establish the session with a
    /// re-INVITE over a new connection (its success is `reconnected`; its failure ends the call).
    func sessionDriver(_ key: SessionKey, flowLost flow: FlowID) {
        guard let uuid = sessionToCall[key], let record = calls[uuid], record.state == .connected else { return }
        guard !record.isReconnecting else { return }
        record.isReconnecting = true
        emit(.reconnecting(record.call))
        sessions.refresh(key)
    }

    /// A re-INVITE after a lost connection got its answer: the call is back.
    private func finishReconnecting(_ record: CallRecord) {
        guard record.isReconnecting else { return }
        record.isReconnecting = false
        emit(.reconnected(record.call))
    }

    func sessionDriver(receivedMessageSummary summary: SIPUserAgent.MessageSummary, request: SIPRequest) {
        let to = try? request.to
        let entry = account(matching: to?.uri.sipURI) ?? accountOrder.first.flatMap { accounts[$0] }
        guard let entry else { return }
        let voice = summary.voice
        emit(
            .messageSummary(
                account: entry.account.id,
                summary: MessageSummary(
                    messagesWaiting: summary.messagesWaiting, messageAccount: summary.account,
                    newMessages: voice?.new ?? 0, oldMessages: voice?.old ?? 0)))
    }

    func sessionDriver(receivedMessage request: SIPRequest) {
        let to = try? request.to
        emit(.message(textMessage(request, account: account(matching: to?.uri.sipURI)?.account.id)))
    }

    // MARK: Helpers

    private func textMessage(_ request: SIPRequest, account: String?) -> TextMessage {
        let from = (try? request.from).map { Handle(uri: $0.uri) } ?? Handle(type: .generic, value: "anonymous")
        let to = (try? request.to).map { Handle(uri: $0.uri) } ?? Handle(type: .generic, value: "")
        let type = (try? request.contentType).map { "\($0)" } ?? "text/plain"
        return TextMessage(from: from, to: to, contentType: type, body: Array(request.body), account: account)
    }

    private func apply(_ session: NegotiatedSession, to record: CallRecord) {
        configureMedia(session, for: record)
        record.sendsTelephoneEvents = session.telephoneEvent != nil
        record.call.codec = session.codec.encodingName
        record.call.isSecure = session.srtp != nil
        record.call.isRemoteHeld = session.isRemoteHold
    }

    /// The encoding names of an m= line's payload types, in its order (static types by their RFC 3551
    /// names), without telephone-event and comfort noise.
    static func codecNames(_ media: MediaDescription) -> [String] {
        ((try? media.payloadTypes) ?? []).compactMap { type in
            let map = (try? media.rtpMap(for: type)) ?? nil
            guard let name = (map ?? RTPMap.staticAudio(type))?.encodingName else { return nil }
            let lower = name.lowercased()
            return lower == "telephone-event" || lower == "cn" ? nil : name
        }
    }

    /// The transferee's side of REFER (RFC 3515): accept, place the new call, NOTIFY its progress.
    private func acceptReferral(_ refer: ReferRequest, on key: SessionKey, from record: CallRecord) {
        guard liveCallCount < configuration.maximumCalls else {
            sessions.rejectRefer(key, id: refer.id, status: 603)
            return
        }
        sessions.acceptRefer(key, id: refer.id)
        let uuid = engine.environment.random.uuid()
        let call = Call(
            uuid: uuid, callID: "", account: record.call.account, direction: .outgoing, state: .connecting,
            localHandle: record.call.localHandle, remoteHandle: Handle(uri: refer.target), remoteDisplayName: nil,
            isOnHold: false, isRemoteHeld: false, isMuted: false, codec: nil, isSecure: false, quality: nil,
            startedAt: engine.date, connectedAt: nil, endedAt: nil, endDetails: nil)
        let transferred = CallRecord(call: call)
        transferred.target = refer.target
        transferred.referral = refer.suppressesNotifications ? nil : (key, refer.id)
        add(transferred)
        // The app hears of the transfer before the new call's first event. The old call ends on the
        // transferor's BYE, or on this side's own after the final NOTIFY (InviteSession.transferHangUpDelay).
        emit(.transferred(record.call, to: Handle(uri: refer.target), newCallUUID: uuid))
        placeCall(transferred, to: refer.target, headers: [], replaces: refer.replaces, referredBy: refer.referredBy)
    }

    /// The CallKit-shaped reason for a session's end (CALLKIT.md "Mapping to SIP").
    private func details(_ reason: EndReason, state record: CallRecord) -> CallEndDetails {
        let mapped: CallEndedReason
        switch reason.kind {
        // Transferred away: the other side ended the call by transferring it, even when this side sent the
        // BYE because the transferor did not.
        case .remoteEnded, .replaced, .transferred: mapped = .remoteEnded
        case .localEnded: mapped = record.localEndReason ?? .localEnded
        case .cancelledByCaller: mapped = .unanswered
        case .timeout:
            // Nobody answered an outgoing call (408, Timer B); anything else that timed out (no ACK, no PRACK,
            // the session timer expired) is a failure of a call that was set up.
            let unanswered = record.call.direction == .outgoing && record.call.connectedAt == nil
            mapped = unanswered ? .unanswered : .failed
        case .answeredElsewhere: mapped = .answeredElsewhere
        case .declined, .declinedElsewhere: mapped = .declinedElsewhere
        default: mapped = .failed
        }
        // A call this side ended for a cause (a media timeout) says it in the phrase, as its BYE's Reason did.
        let saysWhy = reason.kind == .localEnded || reason.kind == .transferred
        let phrase = reason.reasonPhrase ?? (saysWhy ? reason.reasons.first?.text : nil)
        return CallEndDetails(
            reason: mapped, statusCode: reason.statusCode, reasonPhrase: phrase,
            reasons: reason.reasons.map(\.description))
    }
}
