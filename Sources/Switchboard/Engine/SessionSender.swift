import SIPCore
import SIPMessage
import SIPTransaction
import SIPTransport
import SIPUserAgent

/// Sends what an INVITE session asks to send: each request in a client transaction toward its resolved
/// next hop (the INVITE's Via added here and kept for its CANCEL, RFC 3261 §9.1), CANCELs with that Via,
/// and 2xx ACKs without a transaction (§13.2.2.4). What the transactions report comes back through
/// `onEvent`, a failure to send as `.transportError`. Loop-confined.
final class SessionSender {
    private let core: SIPCore
    private let transport: SIPTransportLayer
    private let hops: HopResolver
    /// A client transaction's event for session `key`'s request `token`, on the loop. Set once and read
    /// (a load, over before the call) on the loop: no run-time exclusivity checks.
    @exclusivity(unchecked) var onEvent: (SessionKey, RequestToken, ClientTransactionEvent) -> Void = { _, _, _ in }
    /// The ACKs of finished sessions whose INVITE client transactions linger in RFC 6026's Accepted state, by
    /// transaction; each goes with its transaction's end (Timer M), so there are at most as many as live
    /// transactions.
    private var lingering: [LingeringTransaction: Lingering] = [:]

    /// A client transaction of a finished session.
    private struct LingeringTransaction: Hashable {
        let key: SessionKey
        let token: RequestToken
    }

    /// What a lingering transaction's 2xx retransmissions need: the ACKs sent for them, and the transport.
    private struct Lingering {
        var acks: [LingeringACK]
        let transport: SIPTransport.TransportProtocol?
    }

    init(engine: Engine, hops: HopResolver) {
        core = engine.core
        transport = engine.transport
        self.hops = hops
    }

    /// Resolves the next hop and sends `request` in a client transaction.
    func send(_ request: SIPRequest, token: RequestToken, nextHop: URI, for key: SessionKey, _ entry: SessionEntry) {
        if let destination = flowDestination(entry) {
            return sendResolved(request, token: token, destination: destination, for: key, entry)
        }
        if let known = hops.known(nextHop, transport: entry.transport) {
            guard let destination = known else { return onEvent(key, token, .transportError(nil)) }
            return sendResolved(request, token: token, destination: destination, for: key, entry)
        }
        hops.resolve(nextHop, transport: entry.transport) { [weak self] (destination: Destination?) in
            guard let self, !entry.isFinished else { return }
            guard let destination else { return self.onEvent(key, token, .transportError(nil)) }
            self.sendResolved(request, token: token, destination: destination, for: key, entry)
        }
    }

    /// A WebSocket client's Contact names no address it can be reached at (RFC 7118 §8: a `.invalid` host),
    /// so requests in a call that came in over a WebSocket go back over its connection while it is open.
    private func flowDestination(_ entry: SessionEntry) -> Destination? {
        guard let transport = entry.transport, transport.isWebSocket, let flow = entry.flow,
            let (_, remote) = self.transport.addresses(of: flow)
        else { return nil }
        return Destination(transport: transport, address: remote)
    }

    private func sendResolved(
        _ request: SIPRequest, token: RequestToken, destination: Destination, for key: SessionKey,
        _ entry: SessionEntry
    ) {
        var request = request
        if request.method == .invite {
            guard let via = transport.makeVia(for: destination, branch: core.makeBranch()) else {
                return onEvent(key, token, .transportError(nil))
            }
            request.headerFields.insert(.via, via, at: 0)
            entry.sentInvites[token] = (via.description, destination)
        }
        start(request, token: token, destination: destination, for: key, entry)
    }

    /// Sends the CANCEL of the INVITE `cancelling` (with its top Via, to its destination); nothing when that
    /// INVITE never went out.
    func sendCancel(
        _ request: SIPRequest, token: RequestToken, cancelling: RequestToken, for key: SessionKey, _ entry: SessionEntry
    ) {
        guard let sent = entry.sentInvites[cancelling] else { return }
        var cancel = request
        cancel.headerFields.insert(SIPField(name: .via, value: sent.via), at: 0)
        start(cancel, token: token, destination: sent.destination, for: key, entry)
    }

    /// Sends a 2xx's ACK to its next hop, without a transaction.
    func sendACK(_ request: SIPRequest, nextHop: URI, for entry: SessionEntry) {
        if let destination = flowDestination(entry) {
            return core.sendWithoutTransaction(request, to: destination)
        }
        if let known = hops.known(nextHop, transport: entry.transport) {
            if let destination = known { core.sendWithoutTransaction(request, to: destination) }
            return
        }
        hops.resolve(nextHop, transport: entry.transport) { [weak self] (destination: Destination?) in
            guard let self, let destination else { return }
            self.core.sendWithoutTransaction(request, to: destination)
        }
    }

    private func start(
        _ request: SIPRequest, token: RequestToken, destination: Destination, for key: SessionKey,
        _ entry: SessionEntry
    ) {
        do {
            // The entry is held weakly: a session that finished with a transaction left lets it go at once.
            try core.sendRequest(request, to: destination) { [weak self, weak entry] event in
                guard let entry, !entry.isFinished else {
                    self?.lingeringEvent(event, token: token, key: key)
                    return
                }
                if case .terminated = event { entry.sentInvites[token] = nil }
                self?.onEvent(key, token, event)
            }
        } catch {
            onEvent(key, token, .transportError(nil))
        }
    }

    /// Keeps the ACKs of session `key`, which finished while the INVITE client transactions they answered
    /// linger: their 2xx retransmissions get them again (RFC 3261 §13.2.2.4).
    func keep(_ acks: [LingeringACK], for key: SessionKey, transport: SIPTransport.TransportProtocol?) {
        for ack in acks {
            lingering[
                LingeringTransaction(key: key, token: ack.token), default: Lingering(acks: [], transport: transport)
            ]
            .acks.append(ack)
        }
    }

    /// Forgets every kept ACK (the provider is going away).
    func reset() { lingering = [:] }

    /// An event of a transaction that outlived its session (an INVITE's, Accepted for 64*T1 after its 2xx):
    /// each retransmission of a 2xx the session ACKed gets the same ACK again; a 2xx from another fork gets
    /// an ACK, kept the same way, and a BYE (RFC 3261 §13.2.2.4). The ACKs go with the transaction.
    private func lingeringEvent(_ event: ClientTransactionEvent, token: RequestToken, key: SessionKey) {
        guard !lingering.isEmpty else { return }
        let id = LingeringTransaction(key: key, token: token)
        switch event {
        case .response(let response):
            guard let kept = lingering[id], response.isSuccess else { return }
            if let ack = kept.acks.first(where: { $0.acknowledges(response, for: token) }) {
                return send(ack.request, to: ack.nextHop, transport: kept.transport, inTransaction: false)
            }
            // Bounded like the ACKs: a fork's ACK is kept once, its retransmissions then match it.
            guard kept.acks.count < Self.forksPerTransaction,
                let ending = kept.acks.first?.endingAnotherFork(response, for: token)
            else { return }
            lingering[id]?.acks.append(ending.ack)
            send(ending.ack.request, to: ending.ack.nextHop, transport: kept.transport, inTransaction: false)
            send(ending.bye, to: ending.ack.nextHop, transport: kept.transport, inTransaction: true)
        case .terminated, .timeout, .transportError:
            lingering[id] = nil
        }
    }

    /// The most 2xx-answering forks one lingering INVITE transaction keeps ACKs for.
    static let forksPerTransaction = 16

    /// Sends a request of a finished session: an ACK without a transaction, a BYE in one whose outcome
    /// nobody waits for.
    private func send(
        _ request: SIPRequest, to nextHop: URI, transport: SIPTransport.TransportProtocol?, inTransaction: Bool
    ) {
        hops.resolve(nextHop, transport: transport) { [weak self] (destination: Destination?) in
            guard let self, let destination else { return }
            if inTransaction {
                _ = try? self.core.sendRequest(request, to: destination) { _ in }
            } else {
                self.core.sendWithoutTransaction(request, to: destination)
            }
        }
    }
}
