import SDP
import SIPMessage

@testable import SIPUserAgent

/// One user agent of the harness: its sessions, its dialog table, what its sessions told it.
final class Agent {
    let index: Int
    let name: String
    let host: String
    var configuration: InviteSessionConfiguration
    var media: OfferAnswerConfiguration
    var sessions: [Int: InviteSession] = [:]
    var dialogs = DialogTable<Int>()
    var events: [(session: Int, event: SessionEvent)] = []
    var finished: Set<Int> = []
    /// Whether incoming INVITEs get a session at once (else `pendingInvites` keeps them for the test).
    var acceptsCalls = true
    var nextSession = 1
    /// What the agent sent, in order (for header checks).
    var sentRequests: [SIPRequest] = []
    var sentResponses: [SIPResponse] = []
    var sentACKs: [SIPRequest] = []
    /// Requests outside any dialog other than INVITE (MESSAGE, OPTIONS): answered by this closure.
    var outsideDialog: ((SIPRequest) -> SIPResponse)?
    var receivedOutsideDialog: [SIPRequest] = []

    init(index: Int, name: String) {
        self.index = index
        self.name = name
        self.host = "\(name).example"
        self.configuration = InviteSessionConfiguration(
            contact: NameAddress(
                uri: .sip(
                    SIPURI(
                        user: name, host: SIPHost("\(name).example") ?? SIPHost("localhost").unsafelyUnwrappedForTests))
            ))
        self.media = OfferAnswerConfiguration(address: "192.0.2.\(10 + index)", rtpPort: UInt16(40000 + index * 100))
    }

    /// Every event of `session`, in order.
    func events(of session: Int) -> [SessionEvent] { events.filter { $0.session == session }.map(\.event) }

    /// The first session (the call most tests have).
    var call: InviteSession? { sessions.keys.min().flatMap { sessions[$0] } }
    var callID: Int { sessions.keys.min() ?? 0 }
}

extension Optional {
    /// For fixed test literals that cannot fail; a failure is a bug in the test itself.
    var unsafelyUnwrappedForTests: Wrapped {
        guard let value = self else { preconditionFailure("test literal failed to parse") }
        return value
    }
}

/// Two or more user agents in memory over a fake transaction layer and a virtual clock.
///
/// Requests go to the agent whose host is the next hop's (`fork.example` forks to every agent marked as a
/// fork target, with a tiny forking proxy: a 2xx on one branch cancels the others with `Reason: SIP;cause=200`,
/// and non-2xx finals of branches are held back while another branch may still answer). Each request gets a
/// server transaction token; its responses go back to the client session's token; INVITE transactions end
/// 64*T1 after a 2xx (Timer L/M), others at their final response. The transport is reliable; `drop` loses
/// messages (a lost request times out after 64*T1).
final class Harness {
    enum Delivery {
        case request(SIPRequest, client: Client, to: Int, forkGroup: Int?)
        case response(SIPResponse, server: UInt64)
        case ack(SIPRequest, to: Int)
        case cancel(SIPRequest, client: Client, cancelling: RequestToken)
    }

    struct Client: Hashable {
        var agent: Int
        var session: Int
        var token: RequestToken
    }

    struct ServerRecord {
        var client: Client
        var request: SIPRequest
        var agent: Int
        var session: Int?
        var finalStatus: Int?
        var forkGroup: Int?
    }

    enum Scheduled {
        case timer(agent: Int, session: Int, SessionTimer)
        case transactionEnded(Client)
        case transactionTimeout(Client)
    }

    var now: Duration = .zero
    var agents: [Agent] = []
    var inFlight: [Delivery] = []
    var scheduled: [(at: Duration, order: Int, item: Scheduled)] = []
    var servers: [UInt64: ServerRecord] = [:]
    var nextServer: UInt64 = 100
    var nextOrder = 0
    var nextFork = 0
    var forkTargets: Set<Int> = []
    /// Return `true` to lose a message.
    var drop: (Delivery) -> Bool = { _ in false }
    /// A ladder of what happened, for failure messages.
    var ladder: [String] = []
    var t1: Duration = .milliseconds(500)

    init(_ names: String...) {
        for (index, name) in names.enumerated() { agents.append(Agent(index: index, name: name)) }
    }

    subscript(name: String) -> Agent {
        agents.first { $0.name == name } ?? agents[0]
    }

    // MARK: Starting calls

    /// Starts a call from `caller` to `callee` (or to `fork.example`), returning the caller's session id.
    @discardableResult
    func call(
        from caller: String, to callee: String, offersInInvite: Bool = true, headers: [SIPField] = [],
        configure: (inout InviteSessionConfiguration) -> Void = { _ in }
    ) -> Int {
        let agent = self[caller]
        let target = SIPURI(user: callee, host: SIPHost("\(callee).example").unsafelyUnwrappedForTests)
        let id = agent.nextSession
        agent.nextSession += 1
        let call = OutgoingCall(
            requestURI: .sip(target),
            from: NameAddress(uri: .sip(SIPURI(user: agent.name, host: SIPHost(agent.host).unsafelyUnwrappedForTests))),
            to: NameAddress(uri: .sip(target)), callID: "call-\(agent.name)-\(id)@\(agent.host)",
            localTag: "\(agent.name)tag\(id)", initialSequence: 1, offersInInvite: offersInInvite, headers: headers)
        var configuration = agent.configuration
        configure(&configuration)
        var session = InviteSession(
            outgoing: call, configuration: configuration,
            offerAnswer: OfferAnswer(
                configuration: agent.media, random: SeededRandom(UInt64(id) * 31), keySource: CountingKeys()),
            random: SeededRandom(UInt64(agent.index * 1000 + id)))
        let actions = session.start()
        agent.sessions[id] = session
        process(actions, agent: agent.index, session: id)
        return id
    }

    /// Runs a TU command on a session and processes its actions.
    func command(
        _ name: String, session id: Int? = nil, _ body: (inout InviteSession) -> [SessionAction]
    ) {
        let agent = self[name]
        let sessionID = id ?? agent.callID
        guard var session = agent.sessions[sessionID] else { return }
        let actions = body(&session)
        agent.sessions[sessionID] = session
        process(actions, agent: agent.index, session: sessionID)
    }

    // MARK: Running

    /// Delivers every message in flight (and the ones they cause), without moving the clock.
    func run() {
        var guardCount = 0
        while !inFlight.isEmpty, guardCount < 10_000 {
            guardCount += 1
            let delivery = inFlight.removeFirst()
            deliver(delivery)
        }
    }

    /// Moves the clock by `duration`, firing what is due in order, delivering messages after each.
    func advance(by duration: Duration) {
        let end = now + duration
        run()
        while let next = scheduled.filter({ $0.at <= end }).min(by: { ($0.at, $0.order) < ($1.at, $1.order) }) {
            scheduled.removeAll { $0.order == next.order }
            now = next.at
            fire(next.item)
            run()
        }
        now = end
    }

    private func fire(_ item: Scheduled) {
        switch item {
        case .timer(let agent, let session, let timer):
            ladder.append("\(now) \(agents[agent].name) timer \(timer)")
            withSession(agent, session) { $0.timerFired(timer) }
        case .transactionEnded(let client):
            withSession(client.agent, client.session) { $0.transactionEnded(client.token) }
        case .transactionTimeout(let client):
            ladder.append("\(now) \(agents[client.agent].name) timeout \(client.token)")
            withSession(client.agent, client.session) { $0.transactionFailed(client.token, .timeout) }
        }
    }

    private func schedule(_ item: Scheduled, after delay: Duration) {
        nextOrder += 1
        scheduled.append((now + delay, nextOrder, item))
    }

    func withSession(_ agent: Int, _ id: Int, _ body: (inout InviteSession) -> [SessionAction]) {
        guard var session = agents[agent].sessions[id] else { return }
        let actions = body(&session)
        agents[agent].sessions[id] = session
        process(actions, agent: agent, session: id)
    }

    // MARK: Actions

    func process(_ actions: [SessionAction], agent: Int, session: Int) {
        let who = agents[agent]
        for action in actions {
            switch action {
            case .sendRequest(let request, let token, let nextHop):
                who.sentRequests.append(request)
                ladder.append("\(now) \(who.name) -> \(request.method) \(request.headerFields[.cseq] ?? "")")
                let client = Client(agent: agent, session: session, token: token)
                let targets = route(nextHop)
                let group: Int? = targets.count > 1 ? nextFork : nil
                if targets.count > 1 { nextFork += 1 }
                for target in targets {
                    inFlight.append(.request(request, client: client, to: target, forkGroup: group))
                }
            case .sendCancel(let request, let token, let cancelling):
                who.sentRequests.append(request)
                ladder.append("\(now) \(who.name) -> CANCEL")
                inFlight.append(
                    .cancel(
                        request, client: Client(agent: agent, session: session, token: token), cancelling: cancelling))
            case .sendResponse(let response, let transaction):
                who.sentResponses.append(response)
                ladder.append("\(now) \(who.name) -> \(response.statusCode) \(response.headerFields[.cseq] ?? "")")
                inFlight.append(.response(response, server: transaction.rawValue))
            case .sendACK(let ack, let nextHop):
                who.sentACKs.append(ack)
                ladder.append("\(now) \(who.name) -> ACK \(ack.headerFields[.cseq] ?? "")")
                for target in route(nextHop) { inFlight.append(.ack(ack, to: target)) }
            case .startTimer(let timer, let delay):
                schedule(.timer(agent: agent, session: session, timer), after: delay)
            case .cancelTimer(let timer):
                scheduled.removeAll {
                    if case .timer(agent, session, timer) = $0.item { return true }
                    return false
                }
            case .dialogCreated(let id):
                who.dialogs.insert(session, for: id)
            case .dialogTerminated(let id):
                if who.dialogs[id] == session { who.dialogs.remove(id) }
            case .event(let event):
                who.events.append((session, event))
            case .finished:
                who.finished.insert(session)
            }
        }
    }

    private func route(_ uri: URI) -> [Int] {
        let host = uri.sipURI?.host.text ?? ""
        if host == "fork.example" { return forkTargets.sorted() }
        return agents.filter { $0.host == host }.map(\.index)
    }

    // MARK: Delivering

    private func deliver(_ delivery: Delivery) {
        if drop(delivery) {
            ladder.append("\(now) lost \(describe(delivery))")
            if case .request(_, let client, _, _) = delivery {
                schedule(.transactionTimeout(client), after: t1 * 64)
            }
            return
        }
        switch delivery {
        case .request(let request, let client, let target, let group):
            deliverRequest(request, client: client, to: target, forkGroup: group)
        case .response(let response, let server):
            deliverResponse(response, server: server)
        case .ack(let ack, let target):
            if case .dialog(_, let session) = agents[target].dialogs.match(ack) {
                withSession(target, session) { $0.receiveACK(ack) }
            }
        case .cancel(let cancel, let client, let cancelling):
            for (number, record) in servers
            where record.client.agent == client.agent && record.client.session == client.session
                && record.client.token == cancelling
            {
                let ok = SIPResponse(answering: cancel, status: 200, toTag: "cancel")
                withSession(client.agent, client.session) { $0.receiveResponse(ok, for: client.token) }
                if let session = record.session {
                    withSession(record.agent, session) { $0.receiveCancel(cancel) }
                }
                _ = number
            }
            schedule(.transactionEnded(client), after: .zero)
        }
    }

    private func deliverRequest(_ request: SIPRequest, client: Client, to target: Int, forkGroup: Int?) {
        nextServer += 1
        let token = ServerTransactionToken(rawValue: nextServer)
        var record = ServerRecord(client: client, request: request, agent: target, session: nil, forkGroup: forkGroup)
        let agent = agents[target]
        switch agent.dialogs.match(request) {
        case .dialog(_, let session):
            record.session = session
            servers[nextServer] = record
            withSession(target, session) { $0.receiveRequest(request, transaction: token) }
        case .unknownDialog(let answer):
            servers[nextServer] = record
            if let answer {
                agent.sentResponses.append(answer)
                inFlight.append(.response(answer, server: nextServer))
            }
        case .outsideDialog:
            servers[nextServer] = record
            if request.method == .invite {
                let id = agent.nextSession
                agent.nextSession += 1
                servers[nextServer]?.session = id
                var session = InviteSession(
                    incoming: request, transaction: token, localTag: "\(agent.name)tag\(id)",
                    configuration: agent.configuration,
                    offerAnswer: OfferAnswer(
                        configuration: agent.media, random: SeededRandom(UInt64(id) * 17), keySource: CountingKeys()),
                    random: SeededRandom(UInt64(agent.index * 1000 + id)))
                let actions = session.start()
                agent.sessions[id] = session
                process(actions, agent: target, session: id)
            } else {
                agent.receivedOutsideDialog.append(request)
                let answer = agent.outsideDialog?(request) ?? SIPResponse(answering: request, status: 405, toTag: "x")
                agent.sentResponses.append(answer)
                inFlight.append(.response(answer, server: nextServer))
            }
        }
    }

    private func deliverResponse(_ response: SIPResponse, server: UInt64) {
        guard var record = servers[server] else { return }
        let isInvite = record.request.method == .invite
        if let status = record.finalStatus {
            // A final response went already: only 2xx retransmissions of an INVITE pass (RFC 6026 Accepted).
            guard isInvite, (200...299).contains(status), response.isSuccess else { return }
        }
        if response.isFinal { record.finalStatus = response.statusCode }
        servers[server] = record
        if let group = record.forkGroup, response.isFinal, !forkResponsePasses(response, server: server, group: group) {
            return
        }
        let client = record.client
        withSession(client.agent, client.session) { $0.receiveResponse(response, for: client.token) }
        if response.isFinal, record.finalStatus == response.statusCode {
            if isInvite && response.isSuccess {
                scheduleEndOnce(client, after: t1 * 64)
            } else {
                scheduleEndOnce(client, after: .zero)
            }
        }
        if let group = record.forkGroup, response.isSuccess { cancelOtherBranches(of: group, except: server) }
    }

    private var endsScheduled: Set<Client> = []

    private func scheduleEndOnce(_ client: Client, after delay: Duration) {
        guard !endsScheduled.contains(client) else { return }
        endsScheduled.insert(client)
        schedule(.transactionEnded(client), after: delay)
    }

    /// The forking proxy forwards a branch's non-2xx final only when every other branch is final and none
    /// answered 2xx (the best response rule, simplified).
    private func forkResponsePasses(_ response: SIPResponse, server: UInt64, group: Int) -> Bool {
        if response.isSuccess { return true }
        let branches = servers.filter { $0.value.forkGroup == group }
        let othersDone = branches.allSatisfy { $0.key == server || $0.value.finalStatus != nil }
        let anySuccess = branches.contains { ($0.value.finalStatus ?? 0) / 100 == 2 }
        return othersDone && !anySuccess
    }

    private func cancelOtherBranches(of group: Int, except server: UInt64) {
        for (number, record) in servers where record.forkGroup == group && number != server && record.finalStatus == nil
        {
            guard let session = record.session else { continue }
            var cancel = SIPRequest(method: .cancel, uri: record.request.uri)
            for name in [SIPField.Name.via, .from, .to, .callID] {
                for field in record.request.headerFields[fields: name] { cancel.headerFields.append(field) }
            }
            cancel.headerFields.append(.cseq, CSeq((try? record.request.cseq)??.sequenceNumber ?? 1, .cancel))
            cancel.headerFields.append(.reason, Reason(protocol: "SIP", cause: 200, text: "Call completed elsewhere"))
            ladder.append("\(now) proxy -> CANCEL \(agents[record.agent].name)")
            withSession(record.agent, session) { $0.receiveCancel(cancel) }
        }
    }

    private func describe(_ delivery: Delivery) -> String {
        switch delivery {
        case .request(let r, _, let to, _): "\(r.method) to \(agents[to].name)"
        case .response(let r, _): "\(r.statusCode) \(r.headerFields[.cseq] ?? "")"
        case .ack(_, let to): "ACK to \(agents[to].name)"
        case .cancel: "CANCEL"
        }
    }
}
