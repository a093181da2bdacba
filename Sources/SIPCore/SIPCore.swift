public import SIPMessage
public import SIPTransaction
public import SIPTransport

/// The peer of a transaction as the transport names it: where requests go, or where a request came from
/// (with its connection, so responses return over it, RFC 3261 §18.2.2).
public struct Peer: Sendable, Hashable, CustomStringConvertible {
    public var transport: TransportProtocol
    public var address: SocketAddress
    public var serverName: String?
    public var flow: FlowID?

    public init(transport: TransportProtocol, address: SocketAddress, serverName: String? = nil, flow: FlowID? = nil) {
        self.transport = transport
        self.address = address
        self.serverName = serverName
        self.flow = flow
    }

    public init(_ destination: Destination) {
        self.init(transport: destination.transport, address: destination.address, serverName: destination.serverName)
    }

    public var destination: Destination {
        Destination(transport: transport, address: address, serverName: serverName)
    }

    public var description: String { "\(transport.rawValue):\(address)" }
}

/// What happens to a client transaction, told to the handler given to `sendRequest`.
public enum ClientTransactionEvent: Sendable {
    /// A provisional or final response (and, for INVITE, 2xx retransmissions while Accepted).
    case response(SIPResponse)
    /// Timer B or F fired: no final response in 64*T1.
    case timeout
    /// The transport could not deliver the request (refused, TLS verification, closed).
    case transportError(TransportError?)
    /// The transaction is gone; no more events.
    case terminated
}

/// A request that started a server transaction.
public struct ServerRequest: Sendable {
    public var request: SIPRequest
    public var transaction: TransactionID
    public var peer: Peer
}

/// The signalling core on one event loop: the RFC 3261 §17 transaction layer driven over the transport
/// layer, with its timers on the loop. Requests are validated (RFC 3261 §8.2) before they reach the
/// transaction user, and answered with the prescribed error when they fail.
///
/// Loop-confined: call it on `loop` (use `loop.execute` from elsewhere); callbacks run on the loop.
public final class SIPCore: @unchecked Sendable {
    // @unchecked Sendable: all state is confined to `loop`'s thread, like the transport layer's.

    public let loop: any EventLoopProtocol
    public let transport: SIPTransportLayer
    // The state below is read and written without run-time exclusivity checks (`@exclusivity(unchecked)`):
    // it is confined to the loop, and every access to it is to a value whose methods call nothing outside
    // it (no handler, loop or transport runs while one lasts), so no two accesses can overlap.
    @exclusivity(unchecked) private var layer: TransactionLayer<Peer>
    /// Each live transaction's handler, counts and armed timers.
    @exclusivity(unchecked) private var records = TransactionRecords()
    /// Timers beyond the few a record holds inline (no machine arms that many at once).
    @exclusivity(unchecked) private var extraTimers: [TimerID: TimerHandle] = [:]
    /// Timers started while a received message is handled, armed on the loop once its handling ends: the
    /// transaction user mostly answers at once, so the INVITE's Trying timer (§17.2.1), stopped by that
    /// answer, never reaches the loop. The delays count from the end of the handling, a few microseconds
    /// later (no clock moves within a handling in virtual time).
    @exclusivity(unchecked) private var deferredTimers: [(timer: TimerID, delay: Duration)] = []
    /// How deep in `receive` the core is (a handler may make the transport deliver another message).
    @exclusivity(unchecked) private var receiveDepth = 0
    @exclusivity(unchecked) private var tokens: RandomTokens

    /// Checks applied to every incoming request; `nil` checks syntax only.
    public var capabilities: Capabilities?
    /// New requests (each with a server transaction to answer through `respond`).
    public var onRequest: ((ServerRequest) -> Void)?
    /// A CANCEL (answered 200 by the stack) and the INVITE transaction it cancels, if any.
    public var onCancel: ((ServerRequest, TransactionID?) -> Void)?
    /// ACKs for 2xx (they belong to the dialog, not to a transaction).
    public var onACK: ((SIPRequest, Peer) -> Void)?
    /// Responses that match no transaction (2xx retransmissions after the INVITE transaction ended, ...).
    public var onStrayResponse: ((SIPResponse, Peer) -> Void)?
    /// A server transaction timed out (Timer H: no ACK for a final response).
    public var onServerTimeout: ((TransactionID) -> Void)?
    /// A server transaction terminated (an INVITE's after its Accepted state or its ACK wait, any other's
    /// after its wait for retransmissions): whoever filed it under its identifier can let it go.
    public var onServerTerminated: ((TransactionID) -> Void)?

    public struct Statistics: Sendable {
        /// Requests sent again by client transactions (Timers A, E).
        public var requestRetransmissions = 0
        /// Responses sent again by server transactions (Timer G, or a retransmitted request).
        public var responseRetransmissions = 0
        /// Requests refused by validation.
        public var rejectedRequests = 0
    }

    @exclusivity(unchecked) public private(set) var statistics = Statistics()

    /// A core over `transport`; branches, tags and Call-IDs come from `random`.
    public init(
        transport: SIPTransportLayer, configuration: TransactionConfiguration = TransactionConfiguration(),
        random: any RandomByteSource = SystemRandomBytes.shared
    ) {
        self.loop = transport.loop
        self.transport = transport
        self.tokens = RandomTokens(source: random)
        self.layer = TransactionLayer(configuration: configuration)
        // The table that holds an entry per live transaction gets the same room up front as the transaction
        // layer's.
        let capacity = configuration.reservedCapacity
        if capacity > 0 { records.reserveCapacity(capacity) }
    }

    /// Starts taking messages and flow events from the transport layer.
    public func start() {
        transport.onMessage = { [weak self] incoming in self?.receive(incoming) }
        transport.onFlowEvent = { [weak self] event in
            guard let self else { return }
            for observer in self.flowObservers.values { observer(event) }
        }
    }

    private var flowObservers: [Int: (FlowEvent) -> Void] = [:]
    private var nextObserver = 0

    /// Registers `observer` for connection closes and keep-alive deaths; returns a key for
    /// `removeFlowObserver`. Registrations and dialogs watch the flows they use this way.
    public func addFlowObserver(_ observer: @escaping (FlowEvent) -> Void) -> Int {
        nextObserver += 1
        flowObservers[nextObserver] = observer
        return nextObserver
    }

    public func removeFlowObserver(_ key: Int) {
        flowObservers[key] = nil
    }

    /// The transaction layer's own counters (absorbed retransmissions, strays, 482s, 503s).
    public var transactionStatistics: TransactionStatistics { layer.statistics }

    /// The number of live transactions.
    public var transactionCount: Int { layer.count }

    public var configuration: TransactionConfiguration { layer.configuration }

    // MARK: Identifiers

    /// A new Via branch (z9hG4bK + 95 random bits).
    public func makeBranch() -> String { tokens.branch() }
    /// A new tag.
    public func makeTag() -> String { tokens.tag() }
    /// A new Call-ID.
    public func makeCallID() -> String { tokens.callID() }

    // MARK: Client transactions

    /// Sends `request` in a new client transaction to `destination` (over TCP instead when it is too large
    /// for UDP, RFC 3261 §18.1.1). If the request has no Via, one is added for the route to the destination
    /// with a new branch and `rport`. `handler` hears the responses and
    /// the outcome on the loop.
    @discardableResult
    public func sendRequest(
        _ request: SIPRequest, to requested: Destination, handler: @escaping (ClientTransactionEvent) -> Void
    ) throws(TransactionError) -> TransactionID {
        var request = request
        if !request.headerFields.contains(.via), let via = transport.makeVia(for: requested, branch: makeBranch()) {
            request.headerFields.insert(.via, via, at: 0)
        }
        let destination: Destination
        (request, destination) = transport.sizedForTransport(request, to: requested)
        let (id, actions) = try layer.sendRequest(
            request, to: Peer(destination), isReliable: destination.transport.isReliable)
        records.insert(TransactionRecord(handler: handler), for: id)
        run(actions)
        return id
    }

    /// Sends `request` with no transaction (the ACK of a 2xx, RFC 3261 §13.2.2.4): a Via with a new branch
    /// is added when it has none; the transport reports nothing back.
    public func sendWithoutTransaction(_ request: SIPRequest, to destination: Destination) {
        var request = request
        if !request.headerFields.contains(.via), let via = transport.makeVia(for: destination, branch: makeBranch()) {
            request.headerFields.insert(.via, via, at: 0)
        }
        transport.send(request: request, to: destination) { _ in }
    }

    // MARK: Server transactions

    /// Sends `response` through server transaction `transaction`.
    public func respond(_ response: SIPResponse, to transaction: TransactionID) {
        guard let actions = try? layer.sendResponse(response, in: transaction) else { return }
        run(actions)
    }

    /// A response to `request` with the headers RFC 3261 §8.2.6.2 copies (Via, From, To with `toTag` added
    /// when the request's To has none, Call-ID, CSeq), ready for more fields.
    public func makeResponse(_ status: Int, reason: String? = nil, to request: SIPRequest, toTag: String? = nil)
        -> SIPResponse
    {
        // Above 100 a tag is at hand; SIPResponse(answering:) uses it only when the request's To has none.
        SIPResponse(
            answering: request, status: status, reason: reason, toTag: toTag ?? (status > 100 ? makeTag() : nil))
    }

    // MARK: Driving

    private func receive(_ incoming: IncomingMessage) {
        receiveDepth += 1
        defer {
            receiveDepth -= 1
            if receiveDepth == 0, !deferredTimers.isEmpty { armDeferredTimers() }
        }
        let peer = Peer(transport: incoming.transport, address: incoming.source, flow: incoming.flow)
        switch incoming.message {
        case .response(let response):
            guard (try? response.validate()) != nil else { return }
            run(layer.receive(response, from: peer))
        case .request(let request):
            lastRequestTopVia = incoming.topVia
            run(layer.receive(request, from: peer, isReliable: incoming.transport.isReliable, topVia: incoming.topVia))
        }
    }

    private func run(_ actions: [TransactionLayer<Peer>.Action]) {
        for action in actions {
            switch action {
            case .send(let message, let peer, let transaction):
                send(message, to: peer, transaction: transaction)
            case .startTimer(let timer, let delay):
                if receiveDepth > 0 {
                    deferredTimers.removeAll { $0.timer == timer }
                    deferredTimers.append((timer, delay))
                } else {
                    startTimer(timer, after: delay)
                }
            case .cancelTimer(let timer):
                if let index = deferredTimers.firstIndex(where: { $0.timer == timer }) {
                    deferredTimers.remove(at: index)
                    continue
                }
                let handle =
                    records.removeTimer(timer) ?? (extraTimers.isEmpty ? nil : extraTimers.removeValue(forKey: timer))
                if let handle { loop.cancelTimer(handle) }
            case .deliver(let event):
                deliver(event)
            }
        }
    }

    /// Arms the timers started while messages were being handled, in the order they were started.
    private func armDeferredTimers() {
        let timers = deferredTimers
        deferredTimers.removeAll(keepingCapacity: true)
        for (timer, delay) in timers { startTimer(timer, after: delay) }
    }

    private func startTimer(_ timer: TimerID, after delay: Duration) {
        let handle = loop.scheduleTimer(after: delay) { [weak self] in
            guard let self else { return }
            if self.records.removeTimer(timer) == nil, !self.extraTimers.isEmpty {
                self.extraTimers[timer] = nil
            }
            self.run(self.layer.timerFired(timer))
        }
        let (replaced, stored) = records[timer.transaction, default: TransactionRecord()].timers.insert(
            timer.kind, handle)
        let old =
            stored
            ? (replaced ?? (extraTimers.isEmpty ? nil : extraTimers.removeValue(forKey: timer)))
            : extraTimers.updateValue(handle, forKey: timer)
        if let old { loop.cancelTimer(old) }
    }

    private func send(_ message: Message, to peer: Peer, transaction: TransactionID?) {
        switch message {
        case .request(let request):
            if let transaction, request.method != .ack {
                let wasSent = records[transaction, default: TransactionRecord()].hasSentRequest
                if wasSent {
                    statistics.requestRetransmissions += 1
                } else {
                    records[transaction, default: TransactionRecord()].hasSentRequest = true
                }
            }
            transport.send(request: request, to: peer.destination) { [weak self] error in
                guard let self else { return }
                guard let error, let transaction else { return }
                self.lastTransportErrors[transaction] = error
                self.run(self.layer.transportError(transaction))
            }
        case .response(let response):
            if let transaction, response.statusCode >= 200 {
                if records[transaction, default: TransactionRecord()].hasSentFinalResponse {
                    statistics.responseRetransmissions += 1
                } else {
                    records[transaction, default: TransactionRecord()].hasSentFinalResponse = true
                }
            }
            var incoming = IncomingMessage(
                message: .response(response), transport: peer.transport, source: peer.address,
                local: peer.address, flow: peer.flow)
            // Most responses copy the Via of the request received last; the transport checks that it did.
            incoming.topVia = lastRequestTopVia
            transport.send(response: response, toRequest: incoming) { [weak self] error in
                guard let self else { return }
                guard error != nil, let transaction else { return }
                self.run(self.layer.transportError(transaction))
            }
        }
    }

    /// The top Via summary of the request received last, for the responses that copy its Via (one slot:
    /// a hint that `SIPTransportLayer` checks against the response's bytes before using it).
    private var lastRequestTopVia: TopViaSummary?

    @exclusivity(unchecked) private var lastTransportErrors: [TransactionID: TransportError] = [:]

    private func deliver(_ event: TransactionLayer<Peer>.Event) {
        switch event {
        case .request(let request, let transaction, let source):
            if let status = reject(request) {
                statistics.rejectedRequests += 1
                var response = makeResponse(status.status ?? 400, reason: status.reasonPhrase, to: request)
                if status.code == .badExtension {
                    response.headerFields.append(.unsupported, status.detail.joined(separator: ", "))
                }
                // §21.4.13: a 415 lists what is acceptable (Accept-Encoding when the coding was the problem).
                if status.code == .unsupportedMediaType, let capabilities {
                    if status.fieldName == "content-encoding" {
                        response.headerFields.append(
                            .acceptEncoding, (["identity"] + capabilities.acceptedEncodings).joined(separator: ", "))
                    } else if !capabilities.acceptedBodyTypes.isEmpty {
                        response.headerFields.append(
                            .accept, capabilities.acceptedBodyTypes.map(\.description).joined(separator: ", "))
                    }
                }
                respond(response, to: transaction)
                return
            }
            onRequest?(ServerRequest(request: request, transaction: transaction, peer: source))
        case .cancel(let request, let transaction, let cancelling, let source):
            // §9.2: 200 to the CANCEL, or 481 when it matches no transaction.
            respond(makeResponse(cancelling == nil ? 481 : 200, to: request), to: transaction)
            if cancelling != nil {
                onCancel?(ServerRequest(request: request, transaction: transaction, peer: source), cancelling)
            }
        case .ack(let request, _, let source):
            onACK?(request, source)
        case .response(let response, let transaction):
            let handler = records[transaction]?.handler
            handler?(.response(response))
        case .strayResponse(let response, let source):
            onStrayResponse?(response, source)
        case .timeout(let transaction):
            if let handler = records[transaction]?.handler {
                handler(.timeout)
            } else {
                onServerTimeout?(transaction)
            }
        case .transportError(let transaction):
            let handler = records[transaction]?.handler
            handler?(.transportError(lastTransportErrors.removeValue(forKey: transaction)))
        case .terminated(let transaction):
            let record = records.removeValue(forKey: transaction)
            if !deferredTimers.isEmpty { deferredTimers.removeAll { $0.timer.transaction == transaction } }
            if !lastTransportErrors.isEmpty { lastTransportErrors[transaction] = nil }
            record?.timers.forEach { loop.cancelTimer($0) }
            if !extraTimers.isEmpty {
                for kind in TimerKind.allCases {
                    if let handle = extraTimers.removeValue(forKey: TimerID(transaction, kind)) {
                        loop.cancelTimer(handle)
                    }
                }
            }
            if let handler = record?.handler {
                handler(.terminated)
            } else {
                onServerTerminated?(transaction)
            }
        }
    }

    /// The error a request gets from validation, if any.
    private func reject(_ request: SIPRequest) -> MessageError? {
        do {
            try request.validate(capabilities: capabilities)
            return nil
        } catch {
            return error
        }
    }
}
