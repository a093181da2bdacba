public import SIPMessage

/// The non-generic core of `TransactionLayer`: every transaction, the indexes that match messages to them,
/// and the limits. It knows nothing of addresses, so it is compiled (and optimized) once, here; the generic
/// layer only maps its results onto the driver's address type.
///
/// Each kind of transaction lives in its own `Slab`, so an event mutates its machine in place; an
/// identifier carries the kind, the slot and the slot's generation, so an event finds its machine by
/// array indexing, and a stale identifier finds nothing.
@usableFromInline
struct TransactionTable: Sendable {
    enum Kind: UInt64 {
        case inviteClient = 0
        case nonInviteClient = 1
        case inviteServer = 2
        case nonInviteServer = 3
    }

    /// The index entries that lead to one transaction, removed with it.
    struct Keys: Sendable {
        var client: ClientKey?
        var server: ServerKey?
        var legacy: LegacyKey?
        var merge: MergeKey?
    }

    struct Entry<Machine: Sendable>: Sendable {
        var machine: Machine
        var keys: Keys
    }

    let configuration: TransactionConfiguration
    @usableFromInline var statistics = TransactionStatistics()

    var inviteClients = Slab<Entry<InviteClientTransaction>>()
    var nonInviteClients = Slab<Entry<NonInviteClientTransaction>>()
    var inviteServers = Slab<Entry<InviteServerTransaction>>()
    var nonInviteServers = Slab<Entry<NonInviteServerTransaction>>()
    var clientIndex: [ClientKey: TransactionID] = [:]
    var serverIndex: [ServerKey: TransactionID] = [:]
    var legacyIndex: [LegacyKey: [TransactionID]] = [:]
    var mergeIndex: [MergeKey: TransactionID] = [:]
    /// The room `reserve` made (see `currentRoom`).
    private var reservedRoom: [Int] = []

    @usableFromInline
    init(configuration: TransactionConfiguration) {
        self.configuration = configuration
        reserve(configuration.reservedCapacity)
    }

    /// Room for `capacity` transactions: server transactions are the many that linger (a UAS under load);
    /// clients get a quarter. Remembers the room made, so `shrinkIfOversized` can tell what grew.
    private mutating func reserve(_ capacity: Int) {
        if capacity > 0 {
            serverIndex.reserveCapacity(capacity)
            inviteServers.reserveCapacity(capacity / 2)
            nonInviteServers.reserveCapacity(capacity / 2)
            clientIndex.reserveCapacity(capacity / 4)
            inviteClients.reserveCapacity(capacity / 8)
            nonInviteClients.reserveCapacity(capacity / 8)
        }
        reservedRoom = currentRoom
    }

    /// The room of each slab and index: invite servers, non-invite servers, invite clients, non-invite
    /// clients, the server index, the client index.
    private var currentRoom: [Int] {
        [
            inviteServers.capacity, nonInviteServers.capacity, inviteClients.capacity, nonInviteClients.capacity,
            serverIndex.capacity, clientIndex.capacity,
        ]
    }

    /// Below this many slots a table that grew is left as it is: shrinking it would save little.
    @usableFromInline static let shrinkThreshold = 4_096

    /// The table emptied after a burst grew one of its slabs or indexes past the room reserved for it (and past
    /// `shrinkThreshold`): its storage goes back to the system and the reservation is made again, so the memory
    /// a burst took does not stay (issue 20). Dictionaries and arrays never shrink by themselves.
    private mutating func shrinkIfOversized() {
        guard count == 0 else { return }
        let reserved = configuration.reservedCapacity
        // Arrays and dictionaries double when they grow: one past its reservation (and the threshold) is at
        // least twice what it needs once the burst is over.
        let grew = zip(currentRoom, reservedRoom).contains { now, made in now > Swift.max(made, Self.shrinkThreshold) }
        guard grew else { return }
        inviteServers.reset(reservingCapacity: 0)
        nonInviteServers.reset(reservingCapacity: 0)
        inviteClients.reset(reservingCapacity: 0)
        nonInviteClients.reset(reservingCapacity: 0)
        clientIndex = [:]
        serverIndex = [:]
        legacyIndex = [:]
        mergeIndex = [:]
        reserve(reserved)
        statistics.shrinks &+= 1
    }

    /// Room for the transactions of every kind, up to `initialCapacity` (one slot of the busiest kind each).
    var reservedSlots: Int {
        Swift.max(
            inviteServers.capacity, nonInviteServers.capacity, inviteClients.capacity, nonInviteClients.capacity)
    }

    @usableFromInline
    var count: Int { inviteClients.count + nonInviteClients.count + inviteServers.count + nonInviteServers.count }

    var isFull: Bool { count >= configuration.maximumTransactions }

    // MARK: Identifiers: generation << 32 | slot << 2 | kind

    static func makeID(_ kind: Kind, slot: Int, generation: UInt32) -> TransactionID {
        TransactionID(UInt64(generation) << 32 | UInt64(slot) << 2 | kind.rawValue)
    }

    static func kind(of id: TransactionID) -> Kind? { Kind(rawValue: id.rawValue & 3) }

    /// The slot of `id` in `slab` if it names a live transaction there.
    static func slot<M>(of id: TransactionID, in slab: Slab<Entry<M>>) -> Int? {
        slab.slot(Int(truncatingIfNeeded: (id.rawValue & 0xFFFF_FFFF) >> 2), generation: UInt32(id.rawValue >> 32))
    }

    /// Runs `event` on the machine `id` names in `slab`, in place; `nil` when it names none.
    static func run<M>(
        _ slab: inout Slab<Entry<M>>, _ id: TransactionID, _ event: (inout M) -> [TransactionAction]
    ) -> [TransactionAction]? {
        guard let slot = slot(of: id, in: slab) else { return nil }
        return slab[slot]?.apply(event)
    }

    /// The request that created server transaction `id`, read in place.
    func request(of id: TransactionID) -> SIPRequest? {
        switch Self.kind(of: id) {
        case .inviteServer: Self.slot(of: id, in: inviteServers).flatMap { inviteServers[$0]?.machine.request }
        case .nonInviteServer:
            Self.slot(of: id, in: nonInviteServers).flatMap { nonInviteServers[$0]?.machine.request }
        case .inviteClient, .nonInviteClient, nil: nil
        }
    }

    /// The last response server transaction `id` sent.
    func lastResponse(of id: TransactionID) -> SIPResponse? {
        switch Self.kind(of: id) {
        case .inviteServer: Self.slot(of: id, in: inviteServers).flatMap { inviteServers[$0]?.machine.lastResponse }
        case .nonInviteServer:
            Self.slot(of: id, in: nonInviteServers).flatMap { nonInviteServers[$0]?.machine.lastResponse }
        case .inviteClient, .nonInviteClient, nil: nil
        }
    }

    /// A snapshot of transaction `id`.
    @usableFromInline
    func transaction(_ id: TransactionID) -> Transaction? {
        switch TransactionTable.kind(of: id) {
        case .inviteClient:
            Self.slot(of: id, in: inviteClients).flatMap { inviteClients[$0]?.machine }.map(Transaction.inviteClient)
        case .nonInviteClient:
            Self.slot(of: id, in: nonInviteClients).flatMap { nonInviteClients[$0]?.machine }.map(
                Transaction.nonInviteClient)
        case .inviteServer:
            Self.slot(of: id, in: inviteServers).flatMap { inviteServers[$0]?.machine }.map(Transaction.inviteServer)
        case .nonInviteServer:
            Self.slot(of: id, in: nonInviteServers).flatMap { nonInviteServers[$0]?.machine }.map(
                Transaction.nonInviteServer)
        case nil:
            nil
        }
    }

    // MARK: Events for one transaction

    /// Starts a client transaction (see `TransactionLayer.sendRequest`).
    @usableFromInline
    mutating func startClient(
        _ request: SIPRequest, isReliable: Bool
    ) throws(TransactionError) -> (id: TransactionID, actions: [TransactionAction]) {
        guard request.method != .ack else { throw TransactionError(.ackWithoutTransaction) }
        guard let via = request.topViaSummary, via.hasMagicCookie, let branch = via.branch else {
            throw TransactionError(.invalidRequest, "the top Via needs a branch beginning with z9hG4bK")
        }
        guard let cseq = try? request.cseq, cseq.method == request.method else {
            throw TransactionError(.invalidRequest, "CSeq is missing or names another method")
        }
        let key = ClientKey(branch: branch, method: request.method)
        guard clientIndex[key] == nil else { throw TransactionError(.duplicateTransaction, branch) }
        guard !isFull else {
            throw TransactionError(.tooManyTransactions, "\(configuration.maximumTransactions) live")
        }
        let timers = configuration.timers
        let keys = Keys(client: key)
        let id: TransactionID
        var actions: [TransactionAction]
        if request.method == .invite {
            var machine = InviteClientTransaction(request: request, isReliable: isReliable, timers: timers)
            actions = machine.start()
            let (slot, generation) = inviteClients.insert(Entry(machine: consume machine, keys: keys))
            id = Self.makeID(.inviteClient, slot: slot, generation: generation)
        } else {
            var machine = NonInviteClientTransaction(request: request, isReliable: isReliable, timers: timers)
            actions = machine.start()
            let (slot, generation) = nonInviteClients.insert(Entry(machine: consume machine, keys: keys))
            id = Self.makeID(.nonInviteClient, slot: slot, generation: generation)
        }
        clientIndex[key] = id
        finish(id, actions)
        return (id, actions)
    }

    /// A CANCEL with `branch` went out: the INVITE client transaction it cancels (same branch, §9.1) starts
    /// its wait for a final response. `nil` when no such INVITE transaction lives.
    @usableFromInline
    mutating func inviteCancelled(branch: String) -> (id: TransactionID, actions: [TransactionAction])? {
        guard let id = clientIndex[ClientKey(branch: branch, method: .invite)],
            let actions = Self.run(&inviteClients, id, { $0.cancelSent() })
        else { return nil }
        return (id, actions)
    }

    /// The TU's response for server transaction `id`.
    @usableFromInline
    mutating func respond(_ response: SIPResponse, in id: TransactionID) throws(TransactionError) -> [TransactionAction]
    {
        guard (100...699).contains(response.statusCode) else {
            throw TransactionError(.invalidResponse, String(response.statusCode))
        }
        let result: [TransactionAction]?
        switch Self.kind(of: id) {
        case .inviteServer:
            result = Self.run(&inviteServers, id) { $0.send(response) }
        case .nonInviteServer:
            result = Self.run(&nonInviteServers, id) { $0.send(response) }
        case .inviteClient, .nonInviteClient:
            if transaction(id) != nil { throw TransactionError(.notAServerTransaction, "\(id)") }
            result = nil
        case nil:
            result = nil
        }
        guard let actions = result else { throw TransactionError(.unknownTransaction, "\(id)") }
        finish(id, actions)
        return actions
    }

    @usableFromInline
    mutating func timerFired(_ timer: TimerID) -> [TransactionAction] {
        let id = timer.transaction
        let kind = timer.kind
        let actions: [TransactionAction]?
        switch Self.kind(of: id) {
        case .inviteClient: actions = Self.run(&inviteClients, id) { $0.timerFired(kind) }
        case .nonInviteClient: actions = Self.run(&nonInviteClients, id) { $0.timerFired(kind) }
        case .inviteServer: actions = Self.run(&inviteServers, id) { $0.timerFired(kind) }
        case .nonInviteServer: actions = Self.run(&nonInviteServers, id) { $0.timerFired(kind) }
        case nil: actions = nil
        }
        return finish(id, actions ?? [])
    }

    @usableFromInline
    mutating func transportError(_ id: TransactionID) -> [TransactionAction] {
        let actions: [TransactionAction]?
        switch Self.kind(of: id) {
        case .inviteClient: actions = Self.run(&inviteClients, id) { $0.transportError() }
        case .nonInviteClient: actions = Self.run(&nonInviteClients, id) { $0.transportError() }
        case .inviteServer: actions = Self.run(&inviteServers, id) { $0.transportError() }
        case .nonInviteServer: actions = Self.run(&nonInviteServers, id) { $0.transportError() }
        case nil: actions = nil
        }
        return finish(id, actions ?? [])
    }

    /// A matched response handed to client transaction `id`.
    mutating func deliver(_ response: SIPResponse, to id: TransactionID) -> [TransactionAction] {
        let actions: [TransactionAction]?
        switch Self.kind(of: id) {
        case .inviteClient: actions = Self.run(&inviteClients, id) { $0.receive(response) }
        case .nonInviteClient: actions = Self.run(&nonInviteClients, id) { $0.receive(response) }
        case .inviteServer, .nonInviteServer, nil: actions = nil
        }
        return finish(id, actions ?? [])
    }

    /// A matched request handed to server transaction `id`.
    mutating func deliver(_ request: SIPRequest, to id: TransactionID) -> [TransactionAction] {
        let actions: [TransactionAction]?
        switch Self.kind(of: id) {
        case .inviteServer: actions = Self.run(&inviteServers, id) { $0.receive(request) }
        case .nonInviteServer: actions = Self.run(&nonInviteServers, id) { $0.receive(request) }
        case .inviteClient, .nonInviteClient, nil: actions = nil
        }
        return finish(id, actions ?? [])
    }

    /// A transaction whose machine reached Terminated leaves every table at once (§17.1.1.2: "destroyed
    /// the instant it enters the Terminated state"). `.terminated` is always a machine's last action.
    @discardableResult
    private mutating func finish(_ id: TransactionID, _ actions: [TransactionAction]) -> [TransactionAction] {
        if case .terminated? = actions.last { remove(id) }
        return actions
    }

    /// Forgets transaction `id` and every index entry that leads to it.
    mutating func remove(_ id: TransactionID) {
        let keys: Keys?
        switch Self.kind(of: id) {
        case .inviteClient: keys = Self.take(id, from: &inviteClients)
        case .nonInviteClient: keys = Self.take(id, from: &nonInviteClients)
        case .inviteServer: keys = Self.take(id, from: &inviteServers)
        case .nonInviteServer: keys = Self.take(id, from: &nonInviteServers)
        case nil: keys = nil
        }
        guard let keys else { return }
        // One hash lookup per index in the usual case (the entry is this transaction's); an entry that another
        // transaction took over is put back.
        if let key = keys.client, let owner = clientIndex.removeValue(forKey: key), owner != id {
            clientIndex[key] = owner
        }
        if let key = keys.server, let owner = serverIndex.removeValue(forKey: key), owner != id {
            serverIndex[key] = owner
        }
        if let key = keys.merge, let owner = mergeIndex.removeValue(forKey: key), owner != id {
            mergeIndex[key] = owner
        }
        if let key = keys.legacy, var ids = legacyIndex[key] {
            ids.removeAll { $0 == id }
            legacyIndex[key] = ids.isEmpty ? nil : ids
        }
        if count == 0 { shrinkIfOversized() }
    }

    private static func take<M>(_ id: TransactionID, from slab: inout Slab<Entry<M>>) -> Keys? {
        guard let slot = slot(of: id, in: slab) else { return nil }
        return slab.remove(at: slot)?.keys
    }
}

extension TransactionTable.Entry {
    mutating func apply(_ event: (inout Machine) -> [TransactionAction]) -> [TransactionAction] {
        event(&machine)
    }
}
