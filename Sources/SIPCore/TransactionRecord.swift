import SIPTransaction
import SIPTransport

/// What the core keeps for one live transaction, in one table entry, so that each action costs one look-up
/// and the transaction's end finds everything it must undo (its armed timers included) in one place.
struct TransactionRecord {
    /// The client transaction's handler; `nil` for server transactions.
    var handler: ((ClientTransactionEvent) -> Void)?
    /// Whether the request went out once already (a later send is a retransmission).
    var hasSentRequest = false
    /// The final responses sent so far (the second and later are retransmissions).
    var finalResponses = 0
    /// The timers armed on the loop.
    var timers = ArmedTimers()

    init(handler: ((ClientTransactionEvent) -> Void)? = nil) {
        self.handler = handler
    }
}

/// A transaction's armed timers, held inline: a transaction arms few at once (A and B, E and F, G and H),
/// so three places hold them without an allocation; the core keeps any more elsewhere.
struct ArmedTimers {
    private var first: Armed?
    private var second: Armed?
    private var third: Armed?

    struct Armed {
        var kind: TimerKind
        var handle: TimerHandle
    }

    /// Records `handle` for `kind`. Returns the handle it replaces (to cancel), and whether there was room.
    mutating func insert(_ kind: TimerKind, _ handle: TimerHandle) -> (replaced: TimerHandle?, stored: Bool) {
        let armed = Armed(kind: kind, handle: handle)
        if let old = first, old.kind == kind {
            first = armed
            return (old.handle, true)
        }
        if let old = second, old.kind == kind {
            second = armed
            return (old.handle, true)
        }
        if let old = third, old.kind == kind {
            third = armed
            return (old.handle, true)
        }
        if first == nil {
            first = armed
        } else if second == nil {
            second = armed
        } else if third == nil {
            third = armed
        } else {
            return (nil, false)
        }
        return (nil, true)
    }

    /// Forgets the timer of `kind` and returns its handle, if one is held here.
    mutating func remove(_ kind: TimerKind) -> TimerHandle? {
        if let old = first, old.kind == kind {
            first = nil
            return old.handle
        }
        if let old = second, old.kind == kind {
            second = nil
            return old.handle
        }
        if let old = third, old.kind == kind {
            third = nil
            return old.handle
        }
        return nil
    }

    /// Calls `cancel` with each handle held.
    func forEach(_ cancel: (TimerHandle) -> Void) {
        if let first { cancel(first.handle) }
        if let second { cancel(second.handle) }
        if let third { cancel(third.handle) }
    }
}
