public import SIPMessage

/// The transaction layer of RFC 3261 §17, sans-I/O: it holds the table of transactions, matches incoming
/// messages to them (§17.1.3, §17.2.3) and turns every event into `Action`s for a driver to carry out. It
/// opens no socket, reads no clock and starts no thread.
///
/// A driver owns one layer (on its event loop) and feeds it four kinds of event: messages from the transport
/// (`receive`), requests and responses from the transaction user (`sendRequest`, `sendResponse`), timer
/// expiries (`timerFired`) and transport failures (`transportError`). Each call returns the actions to take,
/// in order. `Address` is whatever the transport uses to name a peer (a socket address, a connection).
///
/// ```swift
/// var layer = TransactionLayer<Peer>()
/// func perform(_ actions: [TransactionLayer<Peer>.Action]) {
///     for action in actions {
///         switch action {
///         case .send(let message, let peer, let id): transport.send(message, to: peer, failure: id)
///         case .startTimer(let timer, let delay): loop.arm(timer, after: delay)  // then timerFired(timer)
///         case .cancelTimer(let timer): loop.disarm(timer)
///         case .deliver(let event): core.handle(event)  // may call layer.sendResponse / sendRequest
///         }
///     }
/// }
/// perform(layer.receive(message, from: peer, isReliable: false))  // likewise timerFired, transportError
/// ```
///
/// A struct: the driver keeps it in one place (a `var` on its loop) and mutates it there. The work is done
/// by a non-generic table compiled in this module; this wrapper only attaches addresses, and is inlinable so
/// that it is specialized for the driver's `Address`. Every call costs O(1) dictionary operations, apart
/// from the RFC 2543 fallback, which scans the transactions of one Call-ID.
public struct TransactionLayer<Address: Hashable & Sendable>: Sendable {
    @usableFromInline var table: TransactionTable
    /// The destination of each client transaction, the source of each server transaction's request, by
    /// `addressIndex(of:)`: slot and kind, so the array is as long as four times the busiest slab.
    @usableFromInline var addresses: [Address?] = []

    public init(configuration: TransactionConfiguration = TransactionConfiguration()) {
        table = TransactionTable(configuration: configuration)
        let slots = table.reservedSlots
        if slots > 0 { addresses.reserveCapacity(4 * slots) }
    }

    public var configuration: TransactionConfiguration { table.configuration }

    /// What was dropped, absorbed or answered by the layer itself since it was created.
    public var statistics: TransactionStatistics { table.statistics }

    /// The number of live transactions.
    public var count: Int { table.count }

    /// A snapshot of the live transaction with this identifier, or `nil` once it has terminated.
    public func transaction(_ id: TransactionID) -> Transaction? { table.transaction(id) }

    // MARK: From the transaction user

    /// Starts a client transaction for `request` and sends it (§17.1): an INVITE client transaction for
    /// INVITE, a non-INVITE one for anything else but ACK.
    ///
    /// The request must be complete: its top Via carries a branch beginning with `z9hG4bK` (§8.1.1.7), which
    /// the TU or transport chose, and its CSeq names its method. A CANCEL reuses its INVITE's branch (§9.1);
    /// the INVITE's transaction then gives up 64*T1 later if no final response came (`TimerKind.cancelled`).
    /// - Parameters:
    ///   - request: the request as it goes on the wire.
    ///   - destination: where the transport sends it and its retransmissions, and the ACK of a non-2xx.
    ///   - isReliable: whether that transport is reliable (no retransmissions, zero Timers D and K).
    /// - Returns: the new transaction's identifier and the actions that send the request and arm its timers.
    @inlinable
    public mutating func sendRequest(
        _ request: SIPRequest, to destination: Address, isReliable: Bool
    ) throws(TransactionError) -> (id: TransactionID, actions: [Action]) {
        let (id, results) = try table.startClient(request, isReliable: isReliable)
        setAddress(destination, for: id)
        var actions = translate(results, for: id)
        if request.method == .cancel, let branch = request.topViaSummary?.branch,
            let (invite, waits) = table.inviteCancelled(branch: branch)
        {
            actions += translate(waits, for: invite)
        }
        return (id, actions)
    }

    /// Sends the TU's response through server transaction `id` (§17.2.1, §17.2.2). A response the
    /// transaction's state does not allow (a second final response; anything but a 2xx once a 2xx was sent)
    /// is discarded: the result is empty.
    @inlinable
    public mutating func sendResponse(_ response: SIPResponse, in id: TransactionID) throws(TransactionError)
        -> [Action]
    {
        translate(try table.respond(response, in: id), for: id)
    }

    // MARK: From the driver

    /// A timer armed by a `.startTimer` action expired. Timers of terminated transactions are ignored.
    @inlinable
    public mutating func timerFired(_ timer: TimerID) -> [Action] {
        let actions = translate(table.timerFired(timer), for: timer.transaction)
        if table.count == 0, addresses.count > 4 * TransactionTable.shrinkThreshold { trimAddresses() }
        return actions
    }

    /// The table emptied and shrank after a burst (lingering transactions end on timers): the address array
    /// it grew goes too, and its reservation is made again.
    @usableFromInline
    mutating func trimAddresses() {
        guard addresses.count > 4 * Swift.max(table.reservedSlots, TransactionTable.shrinkThreshold) else { return }
        addresses = []
        let slots = table.reservedSlots
        if slots > 0 { addresses.reserveCapacity(4 * slots) }
    }

    /// The transport could not send a message of transaction `id` (ICMP error, connection refused or
    /// closed; §17.1.4, §17.2.4). Client transactions tell the TU and terminate; server transactions tell
    /// the TU and, in Completed, terminate.
    @inlinable
    public mutating func transportError(_ id: TransactionID) -> [Action] {
        translate(table.transportError(id), for: id)
    }

    /// A message from the transport, already parsed (and, for requests, checked with
    /// `SIPRequest.validate()`, which answers malformed requests with 400 before they get here).
    /// - Parameters:
    ///   - message: the request or response.
    ///   - source: where it came from; a server transaction sends its responses there.
    ///   - isReliable: whether it came over a reliable transport (used for new server transactions).
    @inlinable
    public mutating func receive(_ message: Message, from source: Address, isReliable: Bool) -> [Action] {
        switch message {
        case .request(let request): receive(request, from: source, isReliable: isReliable)
        case .response(let response): receive(response, from: source)
        }
    }

    /// A response from the transport: passed to the client transaction it matches by §17.1.3 (top Via
    /// branch and CSeq method), or delivered as stray. A response without a usable top Via branch or CSeq,
    /// or with a status outside 100...699, is dropped.
    @inlinable
    public mutating func receive(_ response: SIPResponse, from source: Address) -> [Action] {
        switch table.receive(response) {
        case .dropped: []
        case .stray: [.deliver(.strayResponse(response, source: source))]
        case .matched(let id, let results): translate(results, for: id)
        }
    }

    /// A request from the transport (§17.2.3): a retransmission or an ACK goes to the server transaction it
    /// matches; an ACK that matches none goes to the TU; a merged request is answered 482 (§8.2.2.2); any
    /// other request starts a server transaction and goes to the TU, or is answered 503 when the table is
    /// full. A request without a usable top Via or CSeq gets no transaction and is dropped.
    @inlinable
    public mutating func receive(_ request: SIPRequest, from source: Address, isReliable: Bool) -> [Action] {
        receive(request, from: source, isReliable: isReliable, topVia: nil)
    }

    /// `receive(_:from:isReliable:)` with the top Via summary the transport read when the request arrived,
    /// so it is not read again (used only when it was read from this request's Via bytes).
    @inlinable
    package mutating func receive(
        _ request: SIPRequest, from source: Address, isReliable: Bool, topVia: TopViaSummary?
    ) -> [Action] {
        switch table.receive(request, isReliable: isReliable, topVia: topVia) {
        case .dropped:
            return []
        case .matched(let id, let results):
            return translate(results, for: id)
        case .ack:
            return [.deliver(.ack(request, transaction: nil, source: source))]
        case .rejected(let response):
            return [.send(.response(response), to: source, transaction: nil)]
        case .merged(let id, let results):
            setAddress(source, for: id)
            return translate(results, for: id)
        case .created(let id, let results, let cancelling):
            setAddress(source, for: id)
            // Timers first: a TU that answers while the driver walks these actions finds them armed.
            var actions = translate(results, for: id, extra: 1)
            if let cancelling {
                actions.append(.deliver(.cancel(request, transaction: id, cancelling: cancelling, source: source)))
            } else {
                actions.append(.deliver(.request(request, transaction: id, source: source)))
            }
            return actions
        }
    }

    // MARK: Translation

    /// Turns a machine's actions into the driver's, attaching the transaction's address; forgets the
    /// address when the transaction terminates.
    @inlinable
    mutating func translate(_ results: [TransactionAction], for id: TransactionID, extra: Int = 0) -> [Action] {
        var actions: [Action] = []
        guard !results.isEmpty || extra > 0 else { return actions }
        actions.reserveCapacity(results.count + extra)
        guard let address = address(for: id) else { return actions }
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
                setAddress(nil, for: id)
                actions.append(.deliver(.terminated(id)))
            }
        }
        return actions
    }

    @inlinable
    static func addressIndex(of id: TransactionID) -> Int { Int(truncatingIfNeeded: id.rawValue & 0xFFFF_FFFF) }

    @inlinable
    func address(for id: TransactionID) -> Address? {
        let index = Self.addressIndex(of: id)
        return index < addresses.count ? addresses[index] : nil
    }

    @inlinable
    mutating func setAddress(_ address: Address?, for id: TransactionID) {
        let index = Self.addressIndex(of: id)
        if index >= addresses.count {
            guard address != nil else { return }
            addresses.append(contentsOf: repeatElement(nil, count: index - addresses.count + 1))
        }
        addresses[index] = address
    }
}
