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
