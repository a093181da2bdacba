/// The events and controller completions of one loop iteration, kept in order until the iteration ends and
/// they are handed to their queues together. Pure: the owner schedules the flush.
struct EventOutbox {
    private var pending: [EventOutlet.Delivery] = []
    private var isFlushScheduled = false

    /// Queues `delivery`; returns true when it is the first since the last flush, so a flush must be
    /// scheduled.
    mutating func append(_ delivery: EventOutlet.Delivery) -> Bool {
        // An iteration's batch is taken whole, so each one starts empty: room for a few up front saves
        // growing it one delivery at a time.
        if pending.isEmpty { pending.reserveCapacity(4) }
        pending.append(delivery)
        guard !isFlushScheduled else { return false }
        isFlushScheduled = true
        return true
    }

    /// Everything queued, in order; the next `append` schedules a flush again.
    mutating func take() -> [EventOutlet.Delivery] {
        isFlushScheduled = false
        defer { pending = [] }
        return pending
    }
}
