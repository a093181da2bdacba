import SIPTransaction

/// Armed timers in virtual time: a binary min-heap of deadlines. Advancing pops the timers that are due,
/// in deadline order (ties in arming order), and moves `now` to each deadline. Cancelled and re-armed
/// timers stay in the heap and are skipped when popped.
struct VirtualScheduler {
    private struct Item {
        var deadline: Duration
        var sequence: UInt64
        var timer: TimerID

        func precedes(_ other: Item) -> Bool {
            (deadline, sequence) < (other.deadline, other.sequence)
        }
    }

    private(set) var now: Duration = .zero
    private var heap: [Item] = []
    /// The arming that is live for each armed timer.
    private var live: [TimerID: Item] = [:]
    private var sequence: UInt64 = 0

    /// Arms (or re-arms) `timer` to fire `delay` from now.
    mutating func arm(_ timer: TimerID, after delay: Duration) {
        sequence += 1
        let item = Item(deadline: now + delay, sequence: sequence, timer: timer)
        live[timer] = item
        push(item)
    }

    /// Disarms `timer`; returns whether it was armed.
    @discardableResult
    mutating func cancel(_ timer: TimerID) -> Bool {
        live.removeValue(forKey: timer) != nil
    }

    func isArmed(_ timer: TimerID) -> Bool { live[timer] != nil }

    /// When `timer` will fire, if armed.
    func deadline(of timer: TimerID) -> Duration? { live[timer]?.deadline }

    /// The earliest deadline among armed timers.
    var nextDeadline: Duration? { live.values.map(\.deadline).min() }

    /// Every armed timer.
    var armed: [TimerID] { Array(live.keys) }

    /// The next live timer due at or before `limit`, with `now` moved to its deadline; `nil` (and `now`
    /// moved to `limit`) when none is due.
    mutating func popDue(until limit: Duration) -> TimerID? {
        while let top = heap.first, top.deadline <= limit {
            pop()
            guard let current = live[top.timer], current.sequence == top.sequence else { continue }
            live[top.timer] = nil
            now = max(now, top.deadline)
            return top.timer
        }
        now = max(now, limit)
        return nil
    }

    private mutating func push(_ item: Item) {
        heap.append(item)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func pop() {
        guard !heap.isEmpty else { return }
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < heap.count, heap[left].precedes(heap[first]) { first = left }
            if right < heap.count, heap[right].precedes(heap[first]) { first = right }
            guard first != parent else { break }
            heap.swapAt(parent, first)
            parent = first
        }
    }
}
