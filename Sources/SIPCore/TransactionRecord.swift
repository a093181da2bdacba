import SIPTransaction
import SIPTransport

/// What the core keeps for one live transaction, in one table entry, so that each action costs one look-up
/// and the transaction's end finds everything it must undo (its armed timers included) in one place. Small
/// (48 bytes): a busy UAS holds one per lingering transaction.
struct TransactionRecord {
    /// The client transaction's handler; `nil` for server transactions.
    var handler: ((ClientTransactionEvent) -> Void)?
    /// The timers armed on the loop.
    var timers = ArmedTimers()
    /// Whether the request went out once already (a later send is a retransmission).
    var hasSentRequest = false
    /// Whether a final response went out once already (a later one is a retransmission).
    var hasSentFinalResponse = false

    init(handler: ((ClientTransactionEvent) -> Void)? = nil) {
        self.handler = handler
    }
}

/// A transaction's armed timers, held inline: a transaction arms few at once (A and B, E and F, G and H),
/// so three places hold them without an allocation; the core keeps any more elsewhere.
struct ArmedTimers {
    private var handles: (UInt64, UInt64, UInt64) = (0, 0, 0)
    private var kinds: (TimerKind?, TimerKind?, TimerKind?) = (nil, nil, nil)

    /// Records `handle` for `kind`. Returns the handle it replaces (to cancel), and whether there was room.
    mutating func insert(_ kind: TimerKind, _ handle: TimerHandle) -> (replaced: TimerHandle?, stored: Bool) {
        if kinds.0 == kind {
            defer { handles.0 = handle.id }
            return (TimerHandle(id: handles.0), true)
        }
        if kinds.1 == kind {
            defer { handles.1 = handle.id }
            return (TimerHandle(id: handles.1), true)
        }
        if kinds.2 == kind {
            defer { handles.2 = handle.id }
            return (TimerHandle(id: handles.2), true)
        }
        if kinds.0 == nil {
            (kinds.0, handles.0) = (kind, handle.id)
        } else if kinds.1 == nil {
            (kinds.1, handles.1) = (kind, handle.id)
        } else if kinds.2 == nil {
            (kinds.2, handles.2) = (kind, handle.id)
        } else {
            return (nil, false)
        }
        return (nil, true)
    }

    /// Forgets the timer of `kind` and returns its handle, if one is held here.
    mutating func remove(_ kind: TimerKind) -> TimerHandle? {
        if kinds.0 == kind {
            kinds.0 = nil
            return TimerHandle(id: handles.0)
        }
        if kinds.1 == kind {
            kinds.1 = nil
            return TimerHandle(id: handles.1)
        }
        if kinds.2 == kind {
            kinds.2 = nil
            return TimerHandle(id: handles.2)
        }
        return nil
    }

    /// Calls `cancel` with each handle held.
    func forEach(_ cancel: (TimerHandle) -> Void) {
        if kinds.0 != nil { cancel(TimerHandle(id: handles.0)) }
        if kinds.1 != nil { cancel(TimerHandle(id: handles.1)) }
        if kinds.2 != nil { cancel(TimerHandle(id: handles.2)) }
    }
}

/// The core's records, filed by the slot the transaction layer gave each transaction: a transaction's
/// identifier carries its kind and slot (`TransactionID.rawValue` is generation << 32 | slot << 2 | kind), so
/// a look-up is an index into one of four arrays and a comparison of the whole identifier, with no hashing.
/// A slot holds at most one record; a record left by an identifier that no longer matches is replaced.
struct TransactionRecords {
    private var kinds: [[Slot]] = [[], [], [], []]
    /// Records held, so the arrays can be given back once a burst has passed.
    private(set) var count = 0
    /// Room kept when the arrays are given back.
    private var reserved = 0

    private struct Slot {
        var id: UInt64 = 0
        var isLive = false
        var record = TransactionRecord()
    }

    /// Makes room for `capacity` transactions split the way the transaction layer splits its own room (kinds
    /// in raw-value order: INVITE clients, other clients, INVITE servers, other servers).
    mutating func reserveCapacity(_ capacity: Int) {
        reserved = capacity
        for (kind, share) in [8, 8, 2, 2].enumerated() { kinds[kind].reserveCapacity(capacity / share) }
    }

    private static func place(_ id: TransactionID) -> (kind: Int, slot: Int) {
        (Int(truncatingIfNeeded: id.rawValue & 3), Int(truncatingIfNeeded: (id.rawValue & 0xFFFF_FFFF) >> 2))
    }

    /// The record of `id`, if one is filed under it.
    subscript(id: TransactionID) -> TransactionRecord? {
        let (kind, slot) = Self.place(id)
        guard slot < kinds[kind].count, kinds[kind][slot].isLive, kinds[kind][slot].id == id.rawValue else {
            return nil
        }
        return kinds[kind][slot].record
    }

    /// Runs `body` on the record of `id` in place, if one is filed under it.
    mutating func update<R>(_ id: TransactionID, _ body: (inout TransactionRecord) -> R) -> R? {
        let (kind, slot) = Self.place(id)
        guard slot < kinds[kind].count, kinds[kind][slot].isLive, kinds[kind][slot].id == id.rawValue else {
            return nil
        }
        return body(&kinds[kind][slot].record)
    }

    /// Forgets the timer `timer` in its transaction's record and returns its handle, if the record holds it.
    mutating func removeTimer(_ timer: TimerID) -> TimerHandle? {
        update(timer.transaction) { $0.timers.remove(timer.kind) } ?? nil
    }

    /// The record of `id`, filed as a new one first when there is none.
    subscript(id: TransactionID, default value: @autoclosure () -> TransactionRecord) -> TransactionRecord {
        get { self[id] ?? value() }
        _modify {
            let (kind, slot) = Self.place(id)
            if slot >= kinds[kind].count {
                kinds[kind].append(contentsOf: repeatElement(Slot(), count: slot + 1 - kinds[kind].count))
            }
            if !kinds[kind][slot].isLive || kinds[kind][slot].id != id.rawValue {
                if !kinds[kind][slot].isLive { count += 1 }
                kinds[kind][slot] = Slot(id: id.rawValue, isLive: true, record: value())
            }
            yield &kinds[kind][slot].record
        }
    }

    /// Files `record` under `id`.
    mutating func insert(_ record: TransactionRecord, for id: TransactionID) {
        self[id, default: record] = record
    }

    /// Takes the record of `id` out, if one is filed under it.
    @discardableResult
    mutating func removeValue(forKey id: TransactionID) -> TransactionRecord? {
        let (kind, slot) = Self.place(id)
        guard slot < kinds[kind].count, kinds[kind][slot].isLive, kinds[kind][slot].id == id.rawValue else {
            return nil
        }
        let record = kinds[kind][slot].record
        kinds[kind][slot] = Slot()
        count -= 1
        if count == 0 { shrinkIfGrown() }
        return record
    }

    /// Gives back arrays a burst grew far past the reserved room, once no record is left (arrays never shrink
    /// by themselves).
    private mutating func shrinkIfGrown() {
        let limit = Swift.max(reserved, 4_096) * 2
        guard kinds.contains(where: { $0.count > limit }) else { return }
        self = TransactionRecords()
        reserveCapacity(limit / 2)
    }

    /// The slots the arrays hold (live or free), for tests.
    var slotCount: Int { kinds.reduce(0) { $0 + $1.count } }
}
