import COpenSSL
import SDP
import SIPAuthentication
import SIPCore
import SIPMessage
import SIPTransaction
import SIPTransport
import SIPUserAgent

/// Names one INVITE session in the driver.
struct SessionKey: Hashable, Sendable, CustomStringConvertible {
    let raw: UInt64
    var description: String { "session-\(raw)" }
}

/// What the session driver reports, on the loop.
protocol SessionDriverDelegate: AnyObject {
    /// A new INVITE arrived and its session was created (100 Trying and 180 Ringing are on their way);
    /// return `false` to refuse it with 486.
    func sessionDriver(incoming key: SessionKey, request: SIPRequest, offer: SessionDescription?) -> Bool
    /// A session event.
    func sessionDriver(_ key: SessionKey, event: SessionEvent)
    /// The session has nothing left to do and was dropped.
    func sessionDriverFinished(_ key: SessionKey)
    /// A MESSAGE arrived outside any dialog (it was answered 200).
    func sessionDriver(receivedMessage request: SIPRequest)
    /// The stream connection the session arrived on closed or died.
    func sessionDriver(_ key: SessionKey, flowLost flow: FlowID)
    /// A message-summary NOTIFY arrived outside any subscription (Asterisk's unsolicited MWI; it was
    /// answered 200).
    func sessionDriver(receivedMessageSummary summary: SIPUserAgent.MessageSummary, request: SIPRequest)
}

/// Runs `InviteSession`s over the engine: creates them for outgoing calls and incoming INVITEs, routes
/// responses, in-dialog requests, ACKs and CANCELs to them, carries out their actions (client transactions
/// with Via, CANCEL with the INVITE's Via, 2xx ACKs without a transaction, responses, timers, dialog
/// routing), and answers what belongs to no session (OPTIONS, 481, 405). Loop-confined.
final class SessionDriver {
    struct Settings {
        var userAgent: String
        var t1: Duration
        var t2: Duration
        var reliableProvisionals: ReliableProvisionalPolicy
        var sessionInterval: UInt32?
        var codecs: [Codec]
        var srtp: SRTPPolicy

        init(_ configuration: CallProviderConfiguration) {
            userAgent = configuration.localizedName
            t1 = configuration.t1
            t2 = configuration.t2
            reliableProvisionals = configuration.supportsReliableProvisionals ? .supported : .disabled
            sessionInterval = configuration.sessionInterval
            codecs = configuration.codecs
            srtp = configuration.srtp
        }
    }

    /// An outgoing call to place.
    struct OutgoingRequest {
        var target: URI
        var from: SIPURI?
        var displayName: String?
        var outboundProxy: SIPURI?
        var transport: SIPTransportKind?
        var credentials: (@Sendable (String) -> DigestCredentials?)?
        var codecs: [Codec]
        var srtp: SRTPPolicy
        var headers: [SIPField]
        var replaces: Replaces?
        var referredBy: NameAddress?
    }

    /// One session and the driver's bookkeeping around it.
    final class Entry {
        var session: InviteSession?
        /// Client transactions by the session's token.
        var clients: [RequestToken: TransactionID] = [:]
        /// The INVITE's top Via and destination per token, for its CANCEL (§9.1).
        var sentInvites: [RequestToken: (via: String, destination: Destination)] = [:]
        var timers: [SessionTimer: TimerHandle] = [:]
        /// Where the initial INVITE went or came from: in-dialog requests reuse its transport.
        var transport: SIPTransport.TransportProtocol?
        /// The flow an incoming INVITE arrived on, held while the session lives.
        var flow: FlowID?
        /// The server transaction of an incoming INVITE (its key in `invitesByTransaction`).
        var inviteTransaction: TransactionID?
        /// Ended before the session existed (while resolving).
        var isAbandoned = false
        var isFinished = false

        /// Runs `body` on the session where it is stored, if there is one. The session is a large value:
        /// copying it out and back (or reading a property through a copy) costs more than the step.
        func withSession<T>(_ body: (inout InviteSession) -> T) -> T? {
            session?.inPlace(body)
        }
    }

    let engine: Engine
    var settings: Settings
    weak var delegate: (any SessionDriverDelegate)? {
        didSet { wire() }
    }
    /// The media address and RTP port the offer/answer engine writes for a new session, given the
    /// signalling address the session uses.
    var mediaAddress: (SessionKey, String) -> (host: String, port: UInt16) = { _, host in (host, 0) }
    private(set) var entries: [SessionKey: Entry] = [:]
    private var dialogs = DialogTable<SessionKey>()
    /// Incoming INVITE server transactions, for their CANCELs.
    private var invitesByTransaction: [TransactionID: SessionKey] = [:]
    private var nextKey: UInt64 = 0
    /// The SDP codec list last built by `offerAnswer`: sessions with the same codecs share its storage.
    var codecListCache: (codecs: [Codec], list: [SDP.Codec])?
    let capabilities = UserAgentCapabilities()
    private var allowHeader: String { capabilities.allowedMethods.map(\.description).joined(separator: ", ") }

    init(engine: Engine, settings: Settings) {
        self.engine = engine
        self.settings = settings
    }

    var core: SIPCore { engine.core }

    private func wire() {
        core.onRequest = { [weak self] request in self?.receive(request) }
        core.onCancel = { [weak self] cancel, transaction in self?.receiveCancel(cancel, transaction) }
        core.onACK = { [weak self] ack, _ in self?.receiveACK(ack) }
        core.onServerTimeout = { [weak self] transaction in self?.serverTransactionFailed(transaction) }
        if flowObserver == nil {
            flowObserver = core.addFlowObserver { [weak self] event in self?.flowEvent(event) }
        }
    }

    private var flowObserver: Int?

    /// A stream connection a session arrived on closed or stopped answering keep-alives: the sessions on
    /// it hear `flowLost`, and their next request opens a new connection to the remote target.
    private func flowEvent(_ event: FlowEvent) {
        let flow: FlowID
        switch event {
        case .closed(let id, _), .dead(let id): flow = id
        }
        for (key, entry) in entries where entry.flow == flow {
            engine.transport.release(flow: flow)
            entry.flow = nil
            delegate?.sessionDriver(key, flowLost: flow)
        }
    }

    /// Whether `key` names a session that has not finished.
    func isLive(_ key: SessionKey?) -> Bool {
        guard let key, let entry = entries[key] else { return false }
        return !entry.isFinished
    }

    /// Drops every session without sending anything (the provider is going away).
    func reset() {
        for entry in entries.values {
            for handle in entry.timers.values { engine.loop.cancelTimer(handle) }
            if let flow = entry.flow { engine.transport.release(flow: flow) }
        }
        entries = [:]
        dialogs = DialogTable()
        invitesByTransaction = [:]
    }

    private func makeKey() -> SessionKey {
        nextKey += 1
        return SessionKey(raw: nextKey)
    }

    // MARK: Outgoing calls

    /// Places a call: resolves the first hop, builds the session with a Contact and media address for
    /// that route, and sends the INVITE. Returns at once with the session's key and Call-ID.
    func startCall(_ request: OutgoingRequest) -> (SessionKey, String) {
        let key = makeKey()
        let entry = Entry()
        entries[key] = entry
        let callID = core.makeCallID()
        let target = TransportForm.uri(request.target, for: request.transport?.transportProtocol)
        let firstHop: URI = request.outboundProxy.map { .sip($0) } ?? target
        // The account's transport reaches the outbound proxy too (a transport parameter in its URI wins).
        resolve(firstHop, transport: request.transport?.transportProtocol) { [weak self] (destination: Destination?) in
            guard let self, let entry = self.entries[key] else { return }
            guard let destination, !entry.isAbandoned else {
                self.report(key, .ended(EndReason(.unreachable, statusCode: 503, reasonPhrase: "Unreachable")))
                self.finish(key)
                return
            }
            self.begin(key, request, target: target, callID: callID, toward: destination)
        }
        return (key, callID)
    }

    private func begin(
        _ key: SessionKey, _ request: OutgoingRequest, target: URI, callID: String, toward destination: Destination
    ) {
        guard let entry = entries[key] else { return }
        entry.transport = destination.transport
        ensureListening(for: destination)
        let local = engine.transport.localAddress(for: destination) ?? .loopback()
        let user = request.from?.user ?? "switchboard"
        let fromURI = request.from ?? SIPURI(user: user, host: Self.host(local))
        var from = NameAddress(uri: .sip(fromURI))
        from.displayName = request.displayName
        // To names the callee as given; the Request-URI carries the transport's form (TransportForm).
        var to = NameAddress(uri: request.target)
        if case .sip(var sip) = request.target {
            sip.parameters = Parameters()
            to = NameAddress(uri: .sip(sip))
        }
        var routeSet: [NameAddress] = []
        if var proxy = request.outboundProxy {
            if !proxy.isLooseRouter { proxy.parameters.set("lr", to: nil) }
            routeSet.append(NameAddress(uri: .sip(proxy)))
        }
        var headers = request.headers
        if let replaces = request.replaces { headers.append(SIPField(name: .replaces, value: replaces.description)) }
        if let referredBy = request.referredBy {
            headers.append(SIPField(name: .referredBy, value: referredBy.description))
        }
        var generator = engine.environment.random.generator
        let call = OutgoingCall(
            requestURI: target, from: from, to: to, callID: callID, localTag: core.makeTag(),
            initialSequence: UInt32.random(in: 1...0x7FFF, using: &generator), routeSet: routeSet, headers: headers)
        let authenticator = request.credentials.map { DigestAuthenticator(credentials: $0) }
        entry.session = InviteSession(
            outgoing: call, configuration: sessionConfiguration(contactUser: user, local: local, destination),
            offerAnswer: offerAnswer(key, local: local, codecs: request.codecs, srtp: request.srtp),
            random: generator, authenticator: authenticator)
        guard let actions = entry.withSession({ $0.start() }) else { return }
        run(key, actions)
    }

    // MARK: Commands

    func answer(_ key: SessionKey, headers: [SIPField]) { perform(key) { $0.answer(headers: headers) } }

    func reject(_ key: SessionKey, status: Int) { perform(key) { $0.reject(status: status) } }

    /// CANCEL before the final response, BYE after; a call still resolving is dropped.
    func end(_ key: SessionKey, reason: Reason? = nil) {
        guard let entry = entries[key] else { return }
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
        guard let dialog = entries[other]?.withSession({ $0.dialog }) ?? nil else { return }
        let replaces = Replaces(callID: dialog.id.callID, toTag: dialog.id.remoteTag, fromTag: dialog.id.localTag)
        perform(key) { $0.refer(to: dialog.remoteTarget, replaces: replaces) }
    }

    func acceptRefer(_ key: SessionKey, id: UInt32) { perform(key) { $0.acceptRefer(id) } }

    func rejectRefer(_ key: SessionKey, id: UInt32, status: Int) { perform(key) { $0.rejectRefer(id, status: status) } }

    func notifyRefer(_ key: SessionKey, id: UInt32, status: Int, phrase: String?) {
        perform(key) { $0.notifyRefer(id, status: status, reasonPhrase: phrase) }
    }

    private func perform(_ key: SessionKey, _ step: (inout InviteSession) -> [SessionAction]) {
        guard let actions = entries[key]?.withSession(step) else { return }
        run(key, actions)
    }

    // MARK: Actions

    private func run(_ key: SessionKey, _ actions: [SessionAction]) {
        for action in actions {
            guard let entry = entries[key] else { return }
            switch action {
            case .sendRequest(let request, let token, let nextHop):
                send(request, token: token, nextHop: nextHop, key: key, entry: entry)
            case .sendCancel(let request, let token, let cancelling):
                guard let sent = entry.sentInvites[cancelling] else { continue }
                var cancel = request
                cancel.headerFields.insert(SIPField(name: .via, value: sent.via), at: 0)
                startClient(cancel, token: token, destination: sent.destination, key: key, entry: entry)
            case .sendResponse(let response, let transaction):
                core.respond(response, to: TransactionID(transaction.rawValue))
            case .sendACK(let request, let nextHop):
                resolve(nextHop, transport: entry.transport) { [weak self] (destination: Destination?) in
                    guard let self, let destination else { return }
                    self.core.sendWithoutTransaction(request, to: destination)
                }
            case .startTimer(let timer, let after):
                if let old = entry.timers[timer] { engine.loop.cancelTimer(old) }
                entry.timers[timer] = engine.loop.scheduleTimer(after: after) { [weak self] in
                    guard let self, let entry = self.entries[key] else { return }
                    entry.timers[timer] = nil
                    self.perform(key) { $0.timerFired(timer) }
                }
            case .cancelTimer(let timer):
                if let handle = entry.timers.removeValue(forKey: timer) { engine.loop.cancelTimer(handle) }
            case .dialogCreated(let id):
                dialogs.insert(key, for: id)
            case .dialogTerminated(let id):
                if dialogs[id] == key { dialogs.remove(id) }
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
        guard let entry = entries.removeValue(forKey: key) else { return }
        entry.isFinished = true
        for handle in entry.timers.values { engine.loop.cancelTimer(handle) }
        if let flow = entry.flow { engine.transport.release(flow: flow) }
        if let ids = entry.withSession({ $0.dialogIDs }) {
            for id in ids where dialogs[id] == key { dialogs.remove(id) }
        }
        if let transaction = entry.inviteTransaction, invitesByTransaction[transaction] == key {
            invitesByTransaction[transaction] = nil
        }
        delegate?.sessionDriverFinished(key)
    }

    /// Resolves the next hop and sends `request` in a client transaction.
    private func send(_ request: SIPRequest, token: RequestToken, nextHop: URI, key: SessionKey, entry: Entry) {
        resolve(nextHop, transport: entry.transport) { [weak self] (destination: Destination?) in
            guard let self, let entry = self.entries[key] else { return }
            guard let destination else {
                self.perform(key) { $0.transactionFailed(token, .transportError) }
                return
            }
            var request = request
            if request.method == .invite {
                guard let via = self.engine.transport.makeVia(for: destination, branch: self.core.makeBranch()) else {
                    self.perform(key) { $0.transactionFailed(token, .transportError) }
                    return
                }
                request.headerFields.insert(.via, via, at: 0)
                entry.sentInvites[token] = (via.description, destination)
            }
            self.startClient(request, token: token, destination: destination, key: key, entry: entry)
        }
    }

    private func startClient(
        _ request: SIPRequest, token: RequestToken, destination: Destination, key: SessionKey, entry: Entry
    ) {
        do {
            let id = try core.sendRequest(request, to: destination) { [weak self] event in
                self?.clientEvent(event, token: token, key: key)
            }
            entry.clients[token] = id
        } catch {
            perform(key) { $0.transactionFailed(token, .transportError) }
        }
    }

    private func clientEvent(_ event: ClientTransactionEvent, token: RequestToken, key: SessionKey) {
        switch event {
        case .response(let response):
            perform(key) { $0.receiveResponse(response, for: token) }
        case .timeout:
            perform(key) { $0.transactionFailed(token, .timeout) }
        case .transportError:
            perform(key) { $0.transactionFailed(token, .transportError) }
        case .terminated:
            entries[key]?.clients[token] = nil
            entries[key]?.sentInvites[token] = nil
            perform(key) { $0.transactionEnded(token) }
        }
    }

    // MARK: Incoming

    private func receive(_ server: ServerRequest) {
        let request = server.request
        let token = ServerTransactionToken(rawValue: server.transaction.rawValue)
        switch dialogs.match(request) {
        case .dialog(_, let key):
            perform(key) { $0.receiveRequest(request, transaction: token) }
        case .unknownDialog(let response):
            if let response { core.respond(response, to: server.transaction) }
        case .outsideDialog:
            receiveOutsideDialog(server)
        }
    }

    private func receiveOutsideDialog(_ server: ServerRequest) {
        let request = server.request
        switch request.method {
        case .invite:
            receiveInvite(server)
        case .options:
            var response = capabilities.optionsResponse(to: request, toTag: core.makeTag())
            response.headerFields.append(.server, settings.userAgent)
            core.respond(response, to: server.transaction)
        case .message:
            core.respond(core.makeResponse(200, to: request), to: server.transaction)
            delegate?.sessionDriver(receivedMessage: request)
        case .register:
            var response = core.makeResponse(405, to: request)
            response.headerFields.append(.allow, allowHeader)
            core.respond(response, to: server.transaction)
        case .subscribe:
            var response = core.makeResponse(489, to: request)
            response.headerFields.append(.allowEvents, "refer")
            core.respond(response, to: server.transaction)
        case .notify:
            // Unsolicited message-waiting (RFC 3842 §6, as Asterisk sends it by default); any other NOTIFY
            // outside a subscription matches nothing.
            guard (try? request.event)??.package.lowercased() == "message-summary",
                let summary = SIPUserAgent.MessageSummary(parsing: request.body)
            else {
                core.respond(core.makeResponse(481, to: request), to: server.transaction)
                return
            }
            core.respond(core.makeResponse(200, to: request), to: server.transaction)
            delegate?.sessionDriver(receivedMessageSummary: summary, request: request)
        case .bye, .info, .update, .prack, .refer:
            core.respond(core.makeResponse(481, to: request), to: server.transaction)
        default:
            var response = core.makeResponse(501, to: request)
            response.headerFields.append(.allow, allowHeader)
            core.respond(response, to: server.transaction)
        }
    }

    private func receiveInvite(_ server: ServerRequest) {
        let request = server.request
        let transaction = server.transaction
        // Overload (RFC 3261 §21.5.4, RFC 6357 §4): the loop is behind its input, so a new call would only
        // be answered after the caller gave up, and would slow the calls in progress. Refuse it cheaply
        // (no session, no media) and say when to come back.
        if engine.transport.isReceiveBacklogged {
            var response = core.makeResponse(503, to: request)
            response.headerFields.append(.retryAfter, "1")
            core.respond(response, to: transaction)
            return
        }
        if let replaces = try? request.replaces {
            guard let (_, other) = dialogs.match(replaces), let session = entries[other]?.session else {
                core.respond(core.makeResponse(481, to: request), to: transaction)
                return
            }
            if let refusal = session.replacementRefusal(for: replaces) {
                core.respond(core.makeResponse(refusal, to: request), to: transaction)
                return
            }
            // The new call takes the old one's place once it is set up; the old one ends now (RFC 3891 §3).
            perform(other) { $0.endReplaced() }
        }
        let key = makeKey()
        let entry = Entry()
        entries[key] = entry
        entry.transport = server.peer.transport
        if let flow = server.peer.flow {
            engine.transport.retain(flow: flow)
            entry.flow = flow
        }
        invitesByTransaction[transaction] = key
        entry.inviteTransaction = transaction
        let destination = server.peer.destination
        let local =
            engine.transport.localAddress(for: destination)
            ?? engine.transport.listeningAddress(server.peer.transport == .tls ? .tls : server.peer.transport)
            ?? .loopback()
        let user = (try? request.to)?.uri.sipURI?.user ?? "switchboard"
        entry.session = InviteSession(
            incoming: request, transaction: ServerTransactionToken(rawValue: transaction.rawValue),
            localTag: core.makeTag(),
            configuration: sessionConfiguration(contactUser: user, local: local, destination),
            offerAnswer: offerAnswer(key, local: local, codecs: settings.codecs, srtp: settings.srtp),
            random: engine.environment.random.generator)
        guard let actions = entry.withSession({ $0.start() }) else { return }
        run(key, actions)
        guard let entry = entries[key],
            let (state, parsedOffer) = entry.withSession({
                ($0.state, $0.offerAnswer.pendingRemoteOffer ?? $0.offerAnswer.remoteDescription)
            }),
            state != .terminated
        else { return }
        // The session parsed the offer already (when it took it); parse only what it did not take.
        let offer =
            parsedOffer ?? (request.body.isEmpty ? nil : try? SessionDescription(parsing: Array(request.body)))
        guard delegate?.sessionDriver(incoming: key, request: request, offer: offer) == true else {
            perform(key) { $0.reject(status: 486) }
            return
        }
        perform(key) { $0.ring() }
    }

    private func receiveCancel(_ cancel: ServerRequest, _ cancelling: TransactionID?) {
        guard let cancelling, let key = invitesByTransaction[cancelling] else { return }
        perform(key) { $0.receiveCancel(cancel.request) }
    }

    private func receiveACK(_ ack: SIPRequest) {
        guard case .dialog(_, let key) = dialogs.match(ack) else { return }
        perform(key) { $0.receiveACK(ack) }
    }

    private func serverTransactionFailed(_ transaction: TransactionID) {
        let token = ServerTransactionToken(rawValue: transaction.rawValue)
        for (key, entry) in entries where entry.session != nil {
            perform(key) { $0.serverTransactionFailed(token) }
        }
    }
}

extension InviteSession {
    /// `body` applied to the session in place (through optional chaining on its storage).
    fileprivate mutating func inPlace<T>(_ body: (inout InviteSession) -> T) -> T { body(&self) }
}
