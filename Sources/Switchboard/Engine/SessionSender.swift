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
    /// A client transaction's event for session `key`'s request `token`, on the loop.
    var onEvent: (SessionKey, RequestToken, ClientTransactionEvent) -> Void = { _, _, _ in }

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
            try core.sendRequest(request, to: destination) { [weak self] event in
                if case .terminated = event { entry.sentInvites[token] = nil }
                self?.onEvent(key, token, event)
            }
        } catch {
            onEvent(key, token, .transportError(nil))
        }
    }
}
