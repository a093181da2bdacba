import SDP
import SIPAuthentication
import SIPCore
import SIPMessage
import SIPTransaction
import SIPTransport
import SIPUserAgent

/// What the session driver reports, on the loop.
protocol SessionDriverDelegate: AnyObject {
    /// Whether a new INVITE may become a call, asked before anything is built for it (no session, no
    /// media): `false` refuses it with 486.
    func sessionDriverAdmitsIncoming(_ request: SIPRequest) -> Bool
    /// A new INVITE arrived and its session was created (100 Trying and 180 Ringing are on their way);
    /// return the final status that refuses it (486, 603), or `nil` to let it ring. `callID` is the
    /// session's (the request's, in the storage the session keeps).
    func sessionDriver(incoming key: SessionKey, request: SIPRequest, callID: String, offer: SessionDescription?)
        -> Int?
    /// A session event.
    func sessionDriver(_ key: SessionKey, event: SessionEvent)
    /// The session has nothing left to do and was dropped.
    func sessionDriverFinished(_ key: SessionKey)
    /// While winding down: the session owes the peer nothing more (`InviteSession.isSettled`), though it
    /// has not finished; may come more than once.
    func sessionDriverSettled(_ key: SessionKey)
    /// The stream connection the session arrived on closed or died.
    func sessionDriver(_ key: SessionKey, flowLost flow: FlowID)
}

/// Runs `InviteSession`s over the engine: creates them for outgoing calls and incoming INVITEs, routes
/// responses, in-dialog requests, ACKs and CANCELs to them, and carries out their actions (sends through
/// `SessionSender`, timers, dialog routing); what belongs to no session gets `OutsideDialogResponder`'s
/// answer. Loop-confined.
final class SessionDriver {
    let engine: Engine
    /// Builds each new session's configuration and offer/answer engine.
    private var setup: SessionSetup
    /// Read and written without run-time exclusivity checks: loop-confined, and a value whose methods call
    /// nothing outside it, so no two accesses to it can overlap.
    @exclusivity(unchecked) private var directory = SessionDirectory()
    private let hops: HopResolver
    private let sender: SessionSender
    private let responder: OutsideDialogResponder
    private var flowObserver: Int?
    /// `localURI(user:_:)`'s last result.
    private var lastLocalURI: (user: String?, local: SocketAddress, uri: SIPURI)?
    /// Set once, read (a load) on the loop: no run-time exclusivity checks.
    @exclusivity(unchecked) weak var delegate: (any SessionDriverDelegate)? {
        didSet { wire() }
    }
    /// Opens a new session's media and says what its SDP announces (`SessionSetup.openMedia`).
    var openMedia: (SessionKey, String, MediaSetup) -> MediaOpening {
        get { setup.openMedia }
        set { setup.openMedia = newValue }
    }
    /// A MESSAGE arrived outside any dialog (it was answered 200).
    var onMessage: ((SIPRequest) -> Void)?
    /// A message-summary NOTIFY arrived outside any subscription (Asterisk's unsolicited MWI; it was
    /// answered 200).
    var onMessageSummary: ((SIPUserAgent.MessageSummary, SIPRequest) -> Void)?

    init(engine: Engine, settings: SessionSetup.Settings) {
        self.engine = engine
        setup = SessionSetup(settings: settings, random: engine.environment.random)
        setup.webSocketClientHost = engine.transport.webSocketClientHost
        hops = HopResolver(engine: engine)
        sender = SessionSender(engine: engine, hops: hops)
        responder = OutsideDialogResponder(userAgent: settings.userAgent)
        sender.onEvent = { [weak self] key, token, event in self?.clientEvent(event, token: token, key: key) }
    }

    var core: SIPCore { engine.core }

    /// How many server transactions the directory holds filed (for tests).
    var filedServerTransactionCount: Int { directory.filedServerTransactionCount }

    private func wire() {
        core.onRequest = { [weak self] request in self?.receive(request) }
        core.onCancel = { [weak self] cancel, transaction in self?.receiveCancel(cancel, transaction) }
        core.onACK = { [weak self] ack, _ in self?.receiveACK(ack) }
        core.onServerTimeout = { [weak self] transaction in self?.serverTransactionFailed(transaction) }
        core.onServerTerminated = { [weak self] transaction in self?.directory.serverTransactionEnded(transaction) }
        if flowObserver == nil {
            flowObserver = core.addFlowObserver { [weak self] event in self?.flowEvent(event) }
        }
    }

    /// A stream connection a session arrived on closed or stopped answering keep-alives: the sessions on
    /// it hear `flowLost`, and their next request opens a new connection to the remote target.
    private func flowEvent(_ event: FlowEvent) {
        let flow: FlowID
        switch event {
        case .closed(let id, _), .dead(let id): flow = id
        }
        for key in directory.sessions(on: flow) {
            engine.transport.release(flow: flow)
            directory.setFlow(nil, for: key)
            delegate?.sessionDriver(key, flowLost: flow)
        }
    }

    /// How many sessions the driver holds.
    var sessionCount: Int { directory.entries.count }

    /// Whether `key` names a session that has not finished.
    func isLive(_ key: SessionKey?) -> Bool {
        guard let key, let entry = directory[key] else { return false }
        return !entry.isFinished
    }

    /// The transport the session's INVITE went out or came in on, once known.
    func transport(_ key: SessionKey) -> SIPTransport.TransportProtocol? { directory[key]?.transport }

    /// The last transport error a request of session `key` met, if any (while the session lives).
    func transportError(_ key: SessionKey) -> TransportError? { directory[key]?.transportError }

    /// Drops every session without sending anything (the provider is going away).
    /// Set when the provider winds down: sessions that settle are reported (`sessionDriverSettled`).
    @exclusivity(unchecked) var isWindingDown = false

    /// Whether the session owes its peer nothing more (`InviteSession.isSettled`); true when it is gone.
    func isSettled(_ key: SessionKey) -> Bool {
        directory[key]?.withSession { $0.isSettled } ?? true
    }

    func reset() {
        sender.reset()
        for entry in directory.removeAll() {
            entry.timers.cancelAll(on: engine.loop)
            if let flow = entry.flow { engine.transport.release(flow: flow) }
        }
    }

    // MARK: Outgoing calls

    /// Places a call: resolves the first hop, builds the session with a Contact and media address for
    /// that route, and sends the INVITE. Returns at once with the session's key and Call-ID.
    /// Starts an outgoing session. `bind` hears its key and Call-ID first, before anything is sent: a session
    /// can end at once (no transaction to be had, no RTP port, no route), and its end is then reported for
    /// that key within this call.
    func startCall(_ request: OutgoingRequest, bind: (SessionKey, String) -> Void) {
        let (key, _) = directory.add()
        let callID = core.makeCallID()
        bind(key, callID)
        let target = TransportForm.uri(request.target, for: request.transport?.transportProtocol)
        let firstHop: URI = request.outboundProxy.map { .sip($0) } ?? target
        // The account's transport reaches the outbound proxy too (a transport parameter in its URI wins).
        hops.resolve(firstHop, transport: request.transport?.transportProtocol) {
            [weak self] (destination: Destination?) in
            guard let self, let entry = self.directory[key] else { return }
            guard let destination, !entry.isAbandoned else {
                self.report(key, .ended(EndReason(.unreachable, statusCode: 503, reasonPhrase: "Unreachable")))
                self.finish(key)
                return
            }
            self.begin(key, entry, request, target: target, callID: callID, toward: destination)
        }
    }

    /// The From URI of a call without an address of record: the Contact user at the local address. The last
    /// one is kept, so that a run of calls from one address does not format and parse the address each time.
    private func localURI(user: String?, _ local: SocketAddress) -> SIPURI {
        if let last = lastLocalURI, last.user == user, last.local == local { return last.uri }
        let uri = SIPURI(user: user, host: HopResolver.host(local))
        lastLocalURI = (user, local, uri)
        return uri
    }

    private func begin(
        _ key: SessionKey, _ entry: SessionEntry, _ request: OutgoingRequest, target: URI, callID: String,
        toward destination: Destination
    ) {
        entry.transport = destination.transport
        hops.ensureListening(for: destination)
        let local = hops.localAddress(toward: destination)
        var generator = engine.environment.random.generator
        let tag = core.makeTag()
        let call = SessionSetup.outgoingCall(
            request, requestURI: target, callID: callID, localTag: tag,
            initialSequence: UInt32.random(in: 1...0x7FFF, using: &generator),
            from: request.from ?? localURI(user: request.contactUser, local))
        let authenticator = request.credentials.map { DigestAuthenticator(credentials: $0) }
        let opening = setup.openMedia(key, local.host, .outgoing(request.ice))
        var configuration = setup.configuration(contactUser: request.contactUser, local: local, destination)
        // ICE: re-offers are answered by the provider (an ICE restart changes this side's credentials first).
        if case .gathering = opening { configuration.answersOffersAutomatically = false }
        let place = { [weak self, configuration] (media: LocalMedia) in
            guard let self, let entry = self.directory[key], !entry.isAbandoned else { return }
            let offerAnswer = self.setup.offerAnswer(
                media, codecs: request.codecs, srtp: request.srtp, offersWebRTCProfile: request.offersWebRTCProfile)
            entry.session = InviteSession(
                outgoing: call, configuration: configuration, offerAnswer: offerAnswer, random: generator,
                authenticator: authenticator)
            guard let actions = entry.withSession({ $0.start() }) else { return }
            self.run(key, entry, actions)
        }
        switch opening {
        case .ready(let media): place(media)
        case .gathering:
            // The INVITE goes once the candidates are in the offer.
            entry.awaitingMedia = .outgoing(place)
        case .unavailable:
            // No RTP port pair: an offer with port 0 would be a call without audio. Nothing was sent.
            report(key, .ended(EndReason(.failed, statusCode: 503, reasonPhrase: "No free RTP port")))
            finish(key)
        }
    }

    /// ICE gathered a session's candidates: an outgoing call's INVITE goes with them, an incoming call's
    /// answer (and what waited for it) is made with them. `nil`: no candidate could be had, and the call
    /// fails (503).
    func mediaReady(_ key: SessionKey, _ media: LocalMedia?) {
        guard let entry = directory[key], let waiting = entry.awaitingMedia else { return }
        entry.awaitingMedia = nil
        switch waiting {
        case .outgoing(let place):
            guard let media else {
                report(key, .ended(EndReason(.failed, statusCode: 503, reasonPhrase: "No ICE candidate")))
                finish(key)
                return
            }
            place(media)
        case .incoming(let steps):
            guard let media else {
                perform(key) { $0.reject(status: 503) }
                return
            }
            setLocalMedia(key, media)
            for step in steps { perform(key, step) }
        }
    }

    /// What the session's next offers or answers announce (an ICE restart's credentials, the selected pair).
    func setLocalMedia(_ key: SessionKey, _ media: LocalMedia) {
        directory[key]?.withSession { session in
            session.offerAnswerConfiguration.address = media.host
            session.offerAnswerConfiguration.rtpPort = media.port
            session.offerAnswerConfiguration.mediaAttributes = media.attributes
        }
    }

    /// The other side's last description the session accepted (offer or answer).
    func remoteDescription(_ key: SessionKey) -> SessionDescription? {
        directory[key]?.withSession { $0.offerAnswer.remoteDescription } ?? nil
    }

    /// The session in force, once negotiated.
    func negotiatedSession(_ key: SessionKey) -> NegotiatedSession? {
        directory[key]?.withSession { $0.negotiatedSession } ?? nil
    }

    /// Answers the re-offer the session reported with `offerReceived`, from its current configuration.
    func answerOffer(_ key: SessionKey) { perform(key) { $0.answerOffer() } }

    // MARK: Commands

    /// Answers the incoming call (once ICE gathered its candidates, when it is gathering).
    func answer(_ key: SessionKey, headers: [SIPField]) {
        if let entry = directory[key], case .incoming(let steps) = entry.awaitingMedia {
            entry.awaitingMedia = .incoming(steps + [{ $0.answer(headers: headers) }])
            return
        }
        perform(key) { $0.answer(headers: headers) }
    }

    func reject(_ key: SessionKey, status: Int) { perform(key) { $0.reject(status: status) } }

    /// CANCEL before the final response, BYE after; a call still resolving is dropped.
    func end(_ key: SessionKey, reason: Reason? = nil) {
        guard let entry = directory[key] else { return }
        guard let (role, state) = entry.withSession({ ($0.role, $0.state) }) else {
            entry.isAbandoned = true
            report(key, .ended(EndReason(.localEnded)))
            finish(key)
            return
        }
        switch (role, state) {
        case (.uac, .idle), (.uac, .calling), (.uac, .early):
            perform(key) { $0.cancel() }
        case (.uas, .incoming), (.uas, .early):
            perform(key) { $0.reject(status: 480) }
        default:
            perform(key) { $0.hangUp(reason: reason) }
        }
    }

    func hold(_ key: SessionKey, _ onHold: Bool) { perform(key) { onHold ? $0.hold() : $0.resume() } }

    /// Re-offers with the session's current configuration (new ICE credentials, say).
    func renegotiate(_ key: SessionKey) { perform(key) { $0.renegotiate() } }

    /// Asks for a new DTLS association with a re-offer (RFC 8842 §5.2); why not, when the session refuses.
    func renewDTLSAssociation(_ key: SessionKey) -> ReofferError? {
        var refusal: ReofferError?
        perform(key) { session in
            do throws(ReofferError) {
                return try session.renewDTLSAssociation()
            } catch {
                refusal = error
                return []
            }
        }
        return refusal
    }

    /// Refreshes a session with a re-INVITE (after its connection was lost, say).
    func refresh(_ key: SessionKey) { perform(key) { $0.refreshSession() } }

    func sendDTMF(_ key: SessionKey, digit: Character) {
        guard let relay = DTMFRelay(signal: String(digit)) else { return }
        perform(key) { $0.sendDTMF(relay) }
    }

    /// Blind transfer: REFER to `target`.
    func refer(_ key: SessionKey, to target: URI) { perform(key) { $0.refer(to: target) } }

    /// Attended transfer: REFER with the other session's dialog in Replaces (RFC 3891).
    func refer(_ key: SessionKey, replacing other: SessionKey) {
        guard let dialog = directory[other]?.withSession({ $0.dialog }) ?? nil else { return }
        let replaces = Replaces(callID: dialog.id.callID, toTag: dialog.id.remoteTag, fromTag: dialog.id.localTag)
        perform(key) { $0.refer(to: dialog.remoteTarget, replaces: replaces) }
    }

    func acceptRefer(_ key: SessionKey, id: UInt32) { perform(key) { $0.acceptRefer(id) } }

    func rejectRefer(_ key: SessionKey, id: UInt32, status: Int) { perform(key) { $0.rejectRefer(id, status: status) } }

    func notifyRefer(_ key: SessionKey, id: UInt32, status: Int, phrase: String?) {
        perform(key) { $0.notifyRefer(id, status: status, reasonPhrase: phrase) }
    }

    private func perform(_ key: SessionKey, _ step: (inout InviteSession) -> [SessionAction]) {
        guard let entry = directory[key], let actions = entry.withSession(step) else { return }
        run(key, entry, actions)
    }

    // MARK: Actions

    /// Carries out `actions` of session `key`, filed as `entry`. An action can end the session (`.finished`,
    /// or a delegate that ends it from an event): the rest are then dropped, as the entry says.
    private func run(_ key: SessionKey, _ entry: SessionEntry, _ actions: [SessionAction]) {
        defer { if isWindingDown, isSettled(key) { delegate?.sessionDriverSettled(key) } }
        for action in actions {
            guard !entry.isFinished else { return }
            switch action {
            case .sendRequest(let request, let token, let nextHop):
                sender.send(request, token: token, nextHop: nextHop, for: key, entry)
            case .sendCancel(let request, let token, let cancelling):
                sender.sendCancel(request, token: token, cancelling: cancelling, for: key, entry)
            case .sendResponse(let response, let transaction):
                core.respond(response, to: TransactionID(transaction.rawValue))
            case .sendACK(let request, let nextHop):
                sender.sendACK(request, nextHop: nextHop, for: entry)
            case .startTimer(let timer, let after):
                entry.timers.start(timer, after: after, on: engine.loop) { [weak self] in
                    guard let self, let entry = self.directory[key] else { return }
                    entry.timers.fired(timer)
                    self.perform(key) { $0.timerFired(timer) }
                }
            case .cancelTimer(let timer):
                entry.timers.cancel(timer, on: engine.loop)
            case .dialogCreated(let id):
                directory.addDialog(id, for: key)
            case .dialogTerminated(let id):
                directory.removeDialog(id, of: key)
            case .event(let event):
                report(key, event)
            case .finished:
                finish(key)
            }
        }
    }

    private func report(_ key: SessionKey, _ event: SessionEvent) {
        delegate?.sessionDriver(key, event: event)
    }

    private func finish(_ key: SessionKey) {
        guard let entry = directory.remove(key) else { return }
        entry.timers.cancelAll(on: engine.loop)
        if let flow = entry.flow { engine.transport.release(flow: flow) }
        // The call goes now, though its INVITE transaction may stay Accepted for 64*T1: the sender keeps only
        // the ACKs that transaction's 2xx retransmissions get, until it ends.
        if let lingering = entry.withSession({ $0.lingeringACKs }), !lingering.isEmpty {
            sender.keep(lingering, for: key, transport: entry.transport)
        }
        delegate?.sessionDriverFinished(key)
    }

    private func clientEvent(_ event: ClientTransactionEvent, token: RequestToken, key: SessionKey) {
        switch event {
        case .response(let response):
            perform(key) { $0.receiveResponse(response, for: token) }
        case .timeout:
            perform(key) { $0.transactionFailed(token, .timeout) }
        case .transportError(let error):
            if let error { directory[key]?.transportError = error }
            perform(key) { $0.transactionFailed(token, .transportError) }
        case .terminated:
            perform(key) { $0.transactionEnded(token) }
        }
    }

    // MARK: Incoming

    private func receive(_ server: ServerRequest) {
        let request = server.request
        let token = ServerTransactionToken(rawValue: server.transaction.rawValue)
        switch directory.match(request) {
        case .dialog(_, let key):
            if request.method == .invite { directory.addServerInvite(server.transaction, for: key) }
            perform(key) { $0.receiveRequest(request, transaction: token) }
        case .unknownDialog(let response):
            if let response { core.respond(response, to: server.transaction) }
        case .outsideDialog:
            receiveOutsideDialog(server)
        }
    }

    private func receiveOutsideDialog(_ server: ServerRequest) {
        switch responder.outcome(for: server.request, tag: core.makeTag) {
        case .invite:
            receiveInvite(server)
        case .respond(let response):
            core.respond(response, to: server.transaction)
        case .message(let response):
            core.respond(response, to: server.transaction)
            onMessage?(server.request)
        case .messageSummary(let response, let summary):
            core.respond(response, to: server.transaction)
            onMessageSummary?(summary, server.request)
        }
    }

    private func receiveInvite(_ server: ServerRequest) {
        let request = server.request
        let transaction = server.transaction
        // Overload (RFC 3261 §21.5.4, RFC 6357 §4): the loop is behind its input, so a new call would only
        // be answered after the caller gave up, and would slow the calls in progress. Refuse it cheaply
        // (no session, no media) and say when to come back.
        if engine.transport.isReceiveBacklogged {
            refuseForNow(request, transaction)
            return
        }
        // Past the call limit the INVITE costs one response: no session, no dialog, no media (issue 20).
        guard delegate?.sessionDriverAdmitsIncoming(request) == true else {
            core.respond(core.makeResponse(486, to: request), to: transaction)
            return
        }
        var replaced: SessionKey?
        if let replaces = try? request.replaces {
            guard let other = directory.match(replaces), let session = directory[other]?.session else {
                core.respond(core.makeResponse(481, to: request), to: transaction)
                return
            }
            if let refusal = session.replacementRefusal(for: replaces) {
                core.respond(core.makeResponse(refusal, to: request), to: transaction)
                return
            }
            replaced = other
        }
        let destination = server.peer.destination
        let local =
            engine.transport.localAddress(for: destination)
            ?? engine.transport.listeningAddress(server.peer.transport == .tls ? .tls : server.peer.transport)
            ?? .loopback()
        let (key, entry) = directory.add()
        let media: LocalMedia
        var configuration = setup.configuration(contactUser: user(of: request), local: local, destination)
        switch setup.openMedia(key, local.host, .incoming(request)) {
        case .ready(let ready): media = ready
        case .gathering(let placeholder):
            media = placeholder
            entry.awaitingMedia = .incoming([])
            configuration.answersOffersAutomatically = false
        case .unavailable:
            // No RTP port pair is free: refuse now and say when to come back, rather than answer with
            // port 0 (a call without audio). A shortage is one more reason to refuse, never a state.
            _ = directory.remove(key)
            refuseForNow(request, transaction)
            return
        }
        let offerAnswer = setup.offerAnswer(media)
        // The new call takes the old one's place once it is set up; the old one ends now (RFC 3891 §3).
        if let replaced { perform(replaced) { $0.endReplaced() } }
        entry.transport = server.peer.transport
        if let flow = server.peer.flow {
            engine.transport.retain(flow: flow)
            directory.setFlow(flow, for: key)
        }
        directory.addInvite(transaction, for: key)
        entry.session = InviteSession(
            incoming: request, transaction: ServerTransactionToken(rawValue: transaction.rawValue),
            localTag: core.makeTag(), configuration: configuration, offerAnswer: offerAnswer,
            random: engine.environment.random.generator)
        guard let actions = entry.withSession({ $0.start() }) else { return }
        run(key, entry, actions)
        guard let entry = directory[key],
            let (state, parsedOffer, callID) = entry.withSession({
                ($0.state, $0.offerAnswer.pendingRemoteOffer ?? $0.offerAnswer.remoteDescription, $0.callID)
            }),
            state != .terminated
        else { return }
        // The session parsed the offer already (when it took it); parse only what it did not take.
        let offer =
            parsedOffer ?? (request.body.isEmpty ? nil : try? SessionDescription(parsing: Array(request.body)))
        // Without a delegate nobody could answer: busy.
        if let refusal = delegate.map({
            $0.sessionDriver(incoming: key, request: request, callID: callID, offer: offer)
        }) ?? 486 {
            perform(key) { $0.reject(status: refusal) }
            return
        }
        perform(key) { $0.ring() }
    }

    /// The user part of the Contact of an incoming INVITE's session: the To URI's.
    private func user(of request: SIPRequest) -> String { (try? request.to)?.uri.sipURI?.user ?? "switchboard" }

    /// 503 with `Retry-After: 1` (RFC 3261 §21.5.4): this side cannot take the call now, but soon may.
    private func refuseForNow(_ request: SIPRequest, _ transaction: TransactionID) {
        var response = core.makeResponse(503, to: request)
        response.headerFields.append(.retryAfter, "1")
        core.respond(response, to: transaction)
    }

    private func receiveCancel(_ cancel: ServerRequest, _ cancelling: TransactionID?) {
        guard let cancelling, let key = directory.session(invitedBy: cancelling) else { return }
        perform(key) { $0.receiveCancel(cancel.request) }
    }

    private func receiveACK(_ ack: SIPRequest) {
        guard case .dialog(_, let key) = directory.match(ack) else { return }
        perform(key) { $0.receiveACK(ack) }
    }

    /// A server transaction timed out or hit a transport error. Only a session's INVITE transactions matter to
    /// it; refusals sent before any session existed (486, 503) time out here in their thousands after a burst,
    /// so the owner is looked up, never searched for.
    private func serverTransactionFailed(_ transaction: TransactionID) {
        guard let key = directory.session(withServerInvite: transaction) else { return }
        let token = ServerTransactionToken(rawValue: transaction.rawValue)
        perform(key) { $0.serverTransactionFailed(token) }
    }
}
