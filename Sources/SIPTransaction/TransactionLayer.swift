import SIPMessage

/// The transaction layer of RFC 3261 §17, sans-I/O: it holds the table of transactions, matches incoming
/// messages to them (§17.1.3, §17.2.3) and turns every event into `Action`s for a driver to carry out. It
/// opens no socket, reads no clock and starts no thread.
///
/// A driver owns one layer (on its event loop) and feeds it four kinds of event: messages from the transport
/// (`receive`), requests and responses from the transaction user (`sendRequest`, `sendResponse`), timer
/// expiries (`timerFired`) and transport failures (`transportError`). Each call returns the actions to take,
/// in order. `Address` is whatever the transport uses to name a peer (a socket address, a connection).
///
/// A struct, so it is copied when shared: the driver keeps it in one place (a `var` on its loop) and
/// mutates it there. The table and its indexes are dictionaries, so a call costs O(1) apart from the rare
/// RFC 2543 fallback.
public struct TransactionLayer<Address: Hashable & Sendable>: Sendable {
    struct Entry: Sendable {
        var transaction: Transaction
        /// The destination of a client transaction, the source of a server transaction's request.
        let address: Address
        var clientKey: ClientKey?
        var serverKey: ServerKey?
        var legacyKey: LegacyKey?
        var mergeKey: MergeKey?
    }

    public let configuration: TransactionConfiguration
    /// What was dropped or answered by the layer itself since it was created.
    public internal(set) var statistics = Statistics()

    var table: [TransactionID: Entry] = [:]
    var clientIndex: [ClientKey: TransactionID] = [:]
    var serverIndex: [ServerKey: TransactionID] = [:]
    var legacyIndex: [LegacyKey: [TransactionID]] = [:]
    var mergeIndex: [MergeKey: TransactionID] = [:]
    private var lastID: UInt64 = 0

    public init(configuration: TransactionConfiguration = TransactionConfiguration()) {
        self.configuration = configuration
    }

    /// The number of live transactions.
    public var count: Int { table.count }

    /// The live transaction with this identifier, or `nil` once it has terminated.
    public func transaction(_ id: TransactionID) -> Transaction? { table[id]?.transaction }

    // MARK: From the transaction user

    /// Starts a client transaction for `request` and sends it (§17.1): an INVITE client transaction for
    /// INVITE, a non-INVITE one for anything else but ACK.
    ///
    /// The request must be complete: its top Via carries a branch beginning with `z9hG4bK` (§8.1.1.7), which
    /// the TU or transport chose, and its CSeq names its method. A CANCEL reuses its INVITE's branch (§9.1).
    /// - Parameters:
    ///   - request: the request as it goes on the wire.
    ///   - destination: where the transport sends it and its retransmissions, and the ACK of a non-2xx.
    ///   - isReliable: whether that transport is reliable (no retransmissions, zero Timers D and K).
    /// - Returns: the new transaction's identifier and the actions that send the request and arm its timers.
    public mutating func sendRequest(
        _ request: SIPRequest, to destination: Address, isReliable: Bool
    ) throws(TransactionError) -> (id: TransactionID, actions: [Action]) {
        guard request.method != .ack else { throw TransactionError(.ackWithoutTransaction) }
        guard let via = try? request.topVia, via.hasMagicCookie, let branch = via.branch else {
            throw TransactionError(.invalidRequest, "the top Via needs a branch beginning with z9hG4bK")
        }
        guard let cseq = try? request.cseq, cseq.method == request.method else {
            throw TransactionError(.invalidRequest, "CSeq is missing or names another method")
        }
        let key = ClientKey(branch: branch, method: request.method)
        guard clientIndex[key] == nil else { throw TransactionError(.duplicateTransaction, branch) }
        guard table.count < configuration.maximumTransactions else {
            throw TransactionError(.tooManyTransactions, "\(configuration.maximumTransactions) live")
        }
        let id = makeID()
        let timers = configuration.timers
        let transaction: Transaction =
            request.method == .invite
            ? .inviteClient(InviteClientTransaction(request: request, isReliable: isReliable, timers: timers))
            : .nonInviteClient(NonInviteClientTransaction(request: request, isReliable: isReliable, timers: timers))
        table[id] = Entry(transaction: transaction, address: destination, clientKey: key)
        clientIndex[key] = id
        var actions: [Action] = []
        update(id, into: &actions) { $0.start() }
        return (id, actions)
    }

    /// Sends the TU's response through server transaction `id` (§17.2.1, §17.2.2). A response the
    /// transaction's state does not allow (a second final response; anything but a 2xx once a 2xx was sent)
    /// is discarded: the result is empty.
    public mutating func sendResponse(
        _ response: SIPResponse, in id: TransactionID
    ) throws(TransactionError) -> [Action] {
        guard (100...699).contains(response.statusCode) else {
            throw TransactionError(.invalidResponse, String(response.statusCode))
        }
        guard let index = table.index(forKey: id) else { throw TransactionError(.unknownTransaction, "\(id)") }
        guard !table.values[index].transaction.isClient else {
            throw TransactionError(.notAServerTransaction, "\(id)")
        }
        var actions: [Action] = []
        update(id, into: &actions) { $0.send(response) }
        return actions
    }

    // MARK: From the driver

    /// A timer armed by a `.startTimer` action expired. Timers of terminated transactions are ignored.
    public mutating func timerFired(_ timer: TimerID) -> [Action] {
        var actions: [Action] = []
        update(timer.transaction, into: &actions) { $0.timerFired(timer.kind) }
        return actions
    }

    /// The transport could not send a message of transaction `id` (ICMP error, connection refused or
    /// closed; §17.1.4, §17.2.4). Client transactions tell the TU and terminate; server transactions tell
    /// the TU and, in Completed, terminate.
    public mutating func transportError(_ id: TransactionID) -> [Action] {
        var actions: [Action] = []
        update(id, into: &actions) { $0.transportError() }
        return actions
    }

    // MARK: The table

    mutating func makeID() -> TransactionID {
        lastID &+= 1
        return TransactionID(lastID)
    }

    /// Runs `event` on transaction `id` and appends its actions, translated for the driver, to `actions`;
    /// a transaction that terminates leaves every table at once (§17.1.1.2: "destroyed the instant it
    /// enters the Terminated state").
    mutating func update(
        _ id: TransactionID, into actions: inout [Action], _ event: (inout Transaction) -> [TransactionAction]
    ) {
        guard let index = table.index(forKey: id) else { return }
        let results = event(&table.values[index].transaction)
        let address = table.values[index].address
        for result in results {
            switch result {
            case .sendRequest(let request):
                actions.append(.send(.request(request), to: address, transaction: id))
            case .sendResponse(let response):
                actions.append(.send(.response(response), to: address, transaction: id))
            case .startTimer(let kind, let duration):
                actions.append(.startTimer(TimerID(id, kind), after: duration))
            case .cancelTimer(let kind):
                actions.append(.cancelTimer(TimerID(id, kind)))
            case .passResponse(let response):
                actions.append(.deliver(.response(response, transaction: id)))
            case .passRequest(let request):
                actions.append(.deliver(.ack(request, transaction: id, source: address)))
            case .timeout:
                actions.append(.deliver(.timeout(id)))
            case .transportError:
                actions.append(.deliver(.transportError(id)))
            case .terminated:
                remove(id)
                actions.append(.deliver(.terminated(id)))
            }
        }
    }

    /// Forgets transaction `id` and every index entry that leads to it.
    mutating func remove(_ id: TransactionID) {
        guard let entry = table.removeValue(forKey: id) else { return }
        if let key = entry.clientKey, clientIndex[key] == id { clientIndex[key] = nil }
        if let key = entry.serverKey, serverIndex[key] == id { serverIndex[key] = nil }
        if let key = entry.mergeKey, mergeIndex[key] == id { mergeIndex[key] = nil }
        if let key = entry.legacyKey, var ids = legacyIndex[key] {
            ids.removeAll { $0 == id }
            legacyIndex[key] = ids.isEmpty ? nil : ids
        }
    }
}
