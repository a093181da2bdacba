import Foundation
import SDP
import SIPCore
import SIPMessage
import SIPTransport
import SIPUserAgent

/// Runs the provider's calls: files each call's record, places and ends its session, keeps its media in
/// step, and turns what the session reports into provider events (`CallCoordinator+Sessions.swift`).
/// Loop-confined.
final class CallCoordinator: @unchecked Sendable {
    // @unchecked Sendable: loop-confined; the reference crosses threads only to post work back to the loop.

    let engine: Engine
    let configuration: CallProviderConfiguration
    let logger: Logger
    let accounts: AccountBook
    /// Every call the provider knows.
    /// Loop-confined, and a value whose methods call nothing outside it: no run-time exclusivity checks.
    @exclusivity(unchecked) private(set) var table = CallTable()
    /// Whether the calls may grow (the limit, and the wind-down).
    private(set) var admission: CallAdmission
    /// The calls' SIP sessions.
    let sessions: SessionDriver
    /// The calls' media streams.
    var media: CallMedia
    /// Hands an event to the app (at the end of the loop iteration).
    var emit: (CallProviderEvent) -> Void = { _ in }
    /// Calls reported from pushes, waiting for their INVITE.
    var pushed: PushedCalls
    /// A push woke the provider for an account (nil: the payload named none and there is no account):
    /// bring its flow up and register again.
    var onPushWake: (String?) -> Void = { _ in }

    init(
        engine: Engine, configuration: CallProviderConfiguration, accounts: AccountBook, dtls: DTLSCallSettings?,
        logger: Logger
    ) {
        self.engine = engine
        self.configuration = configuration
        self.logger = logger
        self.accounts = accounts
        admission = CallAdmission(maximumCalls: configuration.maximumCalls)
        pushed = PushedCalls(limit: configuration.maximumPendingPushedCalls)
        sessions = SessionDriver(engine: engine, settings: SessionSetup.Settings(configuration, dtls: dtls))
        media = CallMedia(
            engine: engine.media, settings: CallMedia.Settings(configuration, dtls: dtls), logger: logger)
    }

    /// Takes the session driver's reports and opens a stream for each session's SDP.
    func start() {
        sessions.delegate = self
        sessions.openMedia = { [weak self] key, host, setup in self?.openMedia(key, host: host, setup) ?? .unavailable }
    }

    /// Whether the provider is ending its calls (no new call is taken).
    var isWindingDown: Bool { admission.isWindingDown }

    // MARK: Snapshots

    func snapshots() -> [Call] {
        table.inOrder.map { media.withQuality($0) }
    }

    func snapshot(_ uuid: UUID) -> Call? {
        table[uuid].map { media.withQuality($0) }
    }

    // MARK: Outgoing

    /// Files the record of a call the app asked to start (before its action reaches the delegate).
    func prepareOutgoing(_ start: StartCallAction) {
        let entry = accounts.entry(orDefault: start.account)
        let local = entry.map { Handle(uri: .sip($0.addressOfRecord)) } ?? Handle(type: .generic, value: "anonymous")
        let record = CallRecord(
            call: .outgoing(
                start.callUUID, account: entry?.id, local: local, remote: start.handle, date: engine.date))
        record.routing.target = try? start.handle.uri(defaultDomain: entry?.defaultDomain)
        table.add(record)
    }

    /// The start-call action was fulfilled: the INVITE goes out.
    func startSession(_ record: CallRecord, _ start: StartCallAction) {
        guard let target = record.routing.target else {
            finish(record, CallEndDetails(reason: .failed, reasonPhrase: "not a SIP address"))
            return
        }
        placeCall(record, to: target, headers: [SIPField](appHeaders: start.headers))
    }

    /// Sends the INVITE of `record` to `target` (also after a 3xx, or for a REFER).
    func placeCall(
        _ record: CallRecord, to target: URI, headers: [SIPField], replaces: Replaces? = nil,
        referredBy: NameAddress? = nil
    ) {
        let entry = record.call.account.flatMap { accounts[$0] }
        let request = OutgoingRequest(
            target: target, from: entry?.addressOfRecord, displayName: entry?.account.displayName,
            outboundProxy: entry?.outboundProxy, transport: entry?.transport, credentials: entry?.credentials,
            codecs: entry?.account.codecs ?? configuration.codecs, srtp: entry?.account.srtp ?? configuration.srtp,
            ice: ICESettings.resolve(configuration, account: entry?.account), headers: headers, replaces: replaces,
            referredBy: referredBy, offersWebRTCProfile: record.routing.offersWebRTCProfile)
        // The record is bound to the session before its INVITE goes: a session that ends at once (no
        // transaction could be had, no RTP port) reports its end to a record that hears it.
        sessions.startCall(request) { key, callID in
            table.bind(key, to: record)
            record.call.callID = callID
            armOutgoingAnswerTimer(record)
            emit(.startedConnecting(record.call))
        }
    }

    // MARK: Commands

    /// The answer action was fulfilled: the 200 OK goes out.
    func answer(_ record: CallRecord, headers: [(name: String, value: String)]) {
        guard record.state == .ringing else { return }
        guard let key = record.session else {
            // A call reported from a push whose INVITE has not arrived: the answer waits for it.
            if pushed.holdAnswer(record.uuid, headers: headers) { record.state = .answering }
            return
        }
        record.cancelUnansweredTimer()
        record.state = .answering
        sessions.answer(key, headers: [SIPField](appHeaders: headers))
    }

    /// A failed or timed-out answer: the invite is refused with 480.
    func refuseAnswer(_ record: CallRecord) {
        guard let key = record.session, record.state == .ringing || record.state == .answering else { return }
        sessions.reject(key, status: 480)
    }

    /// Holds or resumes the call (re-INVITE).
    func hold(_ record: CallRecord, _ onHold: Bool) {
        guard let key = record.session, record.state == .connected else { return }
        record.call.isOnHold = onHold
        if !onHold { media.prepareToReceive(record) }
        sessions.hold(key, onHold)
    }

    func mute(_ record: CallRecord, _ muted: Bool) {
        record.call.isMuted = muted
        media.setMuted(record, muted)
    }

    /// Sends digits as RFC 4733 events when the peer negotiated telephone-event, else as SIP INFO
    /// (`application/dtmf-relay`).
    func playDigits(_ digits: String, on record: CallRecord) {
        guard let key = record.session, !media.sendDigits(digits, on: record) else { return }
        for digit in digits { sessions.sendDTMF(key, digit: digit) }
    }

    /// Transfers the call (REFER): blind to a handle, or attended, replacing another call's dialog.
    func transfer(_ record: CallRecord, _ transfer: TransferCallAction) {
        guard let key = record.session else { return }
        if let other = transfer.replacingCall, let otherKey = table[other]?.session {
            record.transfer.startTransfer()
            sessions.refer(key, replacing: otherKey)
        } else if let target = transfer.target {
            let entry = record.call.account.flatMap { accounts[$0] }
            guard let uri = try? target.uri(defaultDomain: entry?.defaultDomain) else { return }
            record.transfer.startTransfer()
            sessions.refer(key, to: uri)
        }
    }

    // MARK: Ending

    /// Ends call `uuid` from this side the way its state asks: rejection, CANCEL or BYE; `byeReason` goes in
    /// the BYE as its Reason header field.
    func end(_ uuid: UUID, rejectStatus: Int, reason: CallEndedReason, byeReason: Reason? = nil) {
        guard let record = table[uuid], record.state != .ended else { return }
        record.cancelUnansweredTimer()
        record.localEndReason = reason
        guard let key = record.session else {
            // Declined before its INVITE arrived: that INVITE gets 603, not a second ring.
            if pushed.isWaiting(uuid), !record.call.callID.isEmpty { pushed.declined(record.call.callID) }
            finish(record, CallEndDetails(reason: reason))
            return
        }
        let isRinging = record.call.direction == .incoming && record.state == .ringing
        record.state = .ending
        if isRinging {
            sessions.reject(key, status: rejectStatus)
        } else {
            sessions.end(key, reason: byeReason)
        }
    }

    /// Marks the call ended, tells the app, and forgets it once its session finished.
    func finish(_ record: CallRecord, _ details: CallEndDetails) {
        guard record.state != .ended else { return }
        record.cancelUnansweredTimer()
        pushed.remove(record.uuid)?.cancelTimer?.cancel()
        media.refreshQuality(record)
        let cancelled = record.end(details, at: engine.date)
        table.markEnded(record)
        if record.media.setAudioActive(false, isConnected: false) { emit(.audioDeactivated(record.uuid)) }
        // The call is over: its media stops now (RTCP BYE), not when the session's last transaction ends.
        if let key = record.session { media.close(key) }
        if let cancelled { emit(.inviteCancelled(cancelled)) }
        emit(.ended(record.call, details))
        if let referral = record.transfer.referral {
            sessions.notifyRefer(
                referral.session, id: referral.id, status: details.statusCode ?? 487, phrase: details.reasonPhrase)
        }
        if record.session == nil || !sessions.isLive(record.session) { forget(record) }
    }

    /// Forgets a call whose session finished, and runs what waited for that.
    func forget(_ record: CallRecord) {
        table.remove(record)
        releaseWaiters(of: record)
    }

    /// Takes no new call and ends every call (480 for a ringing invite); `countdown` waits for each call
    /// whose session must still finish.
    func windDown(_ countdown: Countdown) {
        admission.isWindingDown = true
        sessions.isWindingDown = true
        for record in table.inOrder {
            if record.state != .ended { end(record.uuid, rejectStatus: 480, reason: .localEnded) }
            // `end` may have forgotten the record already (a call still resolving); a settled session only
            // absorbs retransmissions, which the reset drops.
            guard table[record.uuid] != nil, !(record.session.map(sessions.isSettled) ?? false) else { continue }
            record.onFinished.append(countdown.expect())
        }
    }

    /// While winding down, a session that owes its peer nothing more releases whoever waits for its call.
    func sessionDriverSettled(_ key: SessionKey) {
        guard let record = table[session: key] else { return }
        releaseWaiters(of: record)
    }

    /// Runs, once, what waited for the call to be done with.
    private func releaseWaiters(of record: CallRecord) {
        let waiting = record.onFinished
        record.onFinished = []
        for body in waiting { body() }
    }

    /// Drops every call and session without sending anything (after `windDown`).
    func reset() {
        for waiting in pushed.waiting { waiting.cancelTimer?.cancel() }
        pushed = PushedCalls(limit: configuration.maximumPendingPushedCalls)
        sessions.reset()
        table.removeAll()
    }

    // MARK: Audio

    func activateAudio(_ uuid: UUID, active: Bool) {
        guard let record = table[uuid], record.state != .ended else { return }
        // Before the answer (CallKit activates audio early for outgoing calls) the wish is kept for later;
        // early media, if there is some, plays from now on.
        record.media.requestAudio(active)
        if record.state != .connected {
            if active { media.startEarlyMedia(record) } else { media.stopEarlyMedia(record) }
        }
        guard record.media.setAudioActive(active, isConnected: record.state == .connected) else { return }
        media.setActive(record, active)
        emit(active ? .audioActivated(uuid) : .audioDeactivated(uuid))
    }

    func setAudio(_ audio: CallAudio, for uuid: UUID) {
        guard let record = table[uuid], record.state != .ended else { return }
        media.setAudio(audio, for: record)
    }

    // MARK: Media events

    /// Opens the media stream of a new session and says what its SDP announces: the stream's address and port,
    /// or (ICE) the candidates once gathered; `.unavailable` when no RTP port pair is free.
    private func openMedia(_ key: SessionKey, host: String, _ setup: MediaSetup) -> MediaOpening {
        let events = MediaStreamEvents { [weak self, engine] event in
            engine.execute { [weak self] in self?.mediaEvent(event, on: key) }
        }
        guard let opened = media.open(key, host: host, events: events) else { return .unavailable }
        let plain = LocalMedia(host: opened.host, port: opened.port)
        guard media.hasStream(key) else { return .ready(plain) }
        switch iceOpening(setup) {
        case .none: return .ready(plain)
        case .mismatch: return .ready(LocalMedia(host: opened.host, port: opened.port, attributes: [.iceMismatch]))
        case .ice(let settings, let isOfferer, let components):
            startICE(key, settings, isOfferer: isOfferer, components: components)
            return .gathering(placeholder: plain)
        }
    }

    private func mediaEvent(_ event: MediaStreamEvent, on key: SessionKey) {
        switch event {
        case .dtmf(let digit): mediaReceivedDigit(key, digit)
        case .timedOut: mediaTimedOut(key)
        case .secured(let suite): mediaSecured(key, suite)
        case .securityFailed(let failure): mediaSecurityFailed(key, failure)
        }
    }

    private func mediaReceivedDigit(_ key: SessionKey, _ digit: Character) {
        guard let record = table[session: key], record.state != .ended else { return }
        emit(.dtmfReceived(record.call, digit: digit))
    }

    private func mediaTimedOut(_ key: SessionKey) {
        guard let record = table[session: key], record.state == .connected else { return }
        logger.warning("no media received: ending the call", metadata: ["call": "\(record.uuid)"])
        // Q.850 cause 102, "recovery on timer expiry": the BYE says why, for the peer's logs and CDRs.
        end(
            record.uuid, rejectStatus: 480, reason: .failed,
            byeReason: Reason(protocol: "Q.850", cause: 102, text: "media timeout"))
    }

    /// Files a call placed by something other than the app's request (a REFER).
    func add(_ record: CallRecord) { table.add(record) }

    /// Files an incoming call on session `key`.
    func add(_ record: CallRecord, on key: SessionKey) {
        table.add(record)
        table.bind(key, to: record)
    }

    /// Binds session `key` to a call filed before its session came (a call reported from a push).
    func bind(_ key: SessionKey, to record: CallRecord) { table.bind(key, to: record) }

    /// Forgets which call session `key` carried; returns that call's record, if it is still filed.
    func unbind(_ key: SessionKey) -> CallRecord? { table.unbind(key) }
}
