import Foundation
public import SIPTransport
import Synchronization

/// An event loop whose clock moves only when a test says so. Work posted from any thread runs at once, in
/// the poster's thread, at the current virtual instant; timers fire as `advance(by:)` or `run(until:within:)`
/// carries the clock past their deadlines, in deadline order (and, for equal deadlines, in the order they
/// were armed). Nothing waits on the wall clock, so a scenario runs the same on a busy machine as on an
/// idle one, and the same twice.
///
/// Whoever holds the loop (a test advancing time, a thread posting work) is "on the loop": callbacks,
/// delegate calls included, run there.
public final class VirtualEventLoop: EventLoopProtocol, @unchecked Sendable {
    // @unchecked Sendable: every mutable property is read and written only while `lock` is held; the
    // thread holding it is the loop (`owner` records which thread that is, for `inEventLoop`).

    private let lock = NSRecursiveLock()
    private let owner = Atomic<UInt>(0)
    private var depth = 0
    private let origin: ContinuousClock.Instant
    private var elapsed: Duration = .zero
    private var work: [() -> Void] = []
    private var iterationEnd: [() -> Void] = []
    private var timers = VirtualTimerQueue()
    private var isDraining = false

    /// A loop at virtual time zero.
    public init() {
        origin = ContinuousClock.now
    }

    /// Virtual time since the loop was made.
    public var elapsedTime: Duration { withLoop { elapsed } }

    /// The loop's instant: its creation plus the virtual time elapsed since.
    public var now: ContinuousClock.Instant { withLoop { origin + elapsed } }

    public var inEventLoop: Bool {
        let me = UInt(bitPattern: Int(bitPattern: UInt(pthread_self())))
        return owner.load(ordering: .acquiring) == me
    }

    public func execute(_ body: @escaping @Sendable () -> Void) {
        withLoop {
            work.append(body)
            drain()
        }
    }

    /// Runs `body` on the loop after the work already posted (loop only; `body` need not be Sendable).
    package func post(_ body: @escaping () -> Void) {
        withLoop {
            work.append(body)
            drain()
        }
    }

    public func atIterationEnd(_ body: @escaping () -> Void) {
        withLoop { iterationEnd.append(body) }
    }

    @discardableResult
    public func scheduleTimer(after delay: Duration, _ action: @escaping () -> Void) -> TimerHandle {
        withLoop { TimerHandle(id: timers.add(deadline: elapsed + max(delay, .zero), action)) }
    }

    public func cancelTimer(_ handle: TimerHandle) {
        withLoop { timers.cancel(handle.id) }
    }

    /// The number of timers armed and not cancelled.
    public var armedTimerCount: Int { withLoop { timers.count } }

    /// Moves the clock forward by `duration`, firing every timer due on the way and running the work each
    /// one posts. Not from inside a callback of this loop.
    public func advance(by duration: Duration) {
        withLoop {
            precondition(!isDraining, "advance(by:) from inside a callback of the loop it advances")
            let target = elapsed + max(duration, .zero)
            drain()
            while let next = timers.nextDeadline, next <= target {
                elapsed = next
                drain()
            }
            elapsed = target
            drain()
        }
    }

    /// Moves the clock forward event by event until `condition` holds or `limit` of virtual time has
    /// passed. Returns whether the condition holds.
    @discardableResult
    public func run(until condition: () -> Bool, within limit: Duration) -> Bool {
        withLoop {
            precondition(!isDraining, "run(until:within:) from inside a callback of the loop it runs")
            let deadline = elapsed + max(limit, .zero)
            drain()
            while !condition() {
                guard let next = timers.nextDeadline, next <= deadline else {
                    elapsed = deadline
                    drain()
                    return condition()
                }
                elapsed = next
                drain()
            }
            return true
        }
    }

    // MARK: Running

    /// Runs `body` holding the loop (on it), in the caller's thread.
    package func withLoop<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock.lock()
        depth += 1
        if depth == 1 { owner.store(UInt(bitPattern: Int(bitPattern: UInt(pthread_self()))), ordering: .releasing) }
        defer {
            depth -= 1
            if depth == 0 { owner.store(0, ordering: .releasing) }
            lock.unlock()
        }
        return try body()
    }

    /// Runs posted work, the timers due now and the iteration-end work, until none is left. Re-entrant
    /// posts from inside join the same drain.
    private func drain() {
        guard !isDraining else { return }
        isDraining = true
        defer { isDraining = false }
        while true {
            if !work.isEmpty {
                let batch = work
                work.removeAll()
                for body in batch { body() }
            } else if let action = timers.popDue(at: elapsed) {
                action()
            } else if !iterationEnd.isEmpty {
                let batch = iterationEnd
                iterationEnd.removeAll()
                for body in batch { body() }
            } else {
                return
            }
        }
    }
}

/// The loop runs tasks too: a task that prefers it (`Task(executorPreference: loop)`) runs its jobs on the
/// loop like any posted work, so when a callback resumes it, it continues at that virtual instant, before
/// the clock moves on.
extension VirtualEventLoop: TaskExecutor {
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        post { [unowned self] in job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// Timers by (deadline, order armed): a binary heap of keys with the actions beside it.
struct VirtualTimerQueue {
    private struct Key: Comparable {
        var deadline: Duration
        var id: UInt64

        static func < (a: Key, b: Key) -> Bool { (a.deadline, a.id) < (b.deadline, b.id) }
    }

    private var heap: [Key] = []
    private var actions: [UInt64: () -> Void] = [:]
    private var nextID: UInt64 = 1

    var count: Int { actions.count }

    mutating func add(deadline: Duration, _ action: @escaping () -> Void) -> UInt64 {
        let id = nextID
        nextID += 1
        actions[id] = action
        heap.append(Key(deadline: deadline, id: id))
        siftUp(heap.count - 1)
        return id
    }

    mutating func cancel(_ id: UInt64) { actions[id] = nil }

    /// The earliest deadline of a timer still armed.
    var nextDeadline: Duration? {
        mutating get {
            dropCancelled()
            return heap.first?.deadline
        }
    }

    /// The action of the earliest timer due at `now`, removed.
    mutating func popDue(at now: Duration) -> (() -> Void)? {
        dropCancelled()
        guard let first = heap.first, first.deadline <= now else { return nil }
        removeFirst()
        return actions.removeValue(forKey: first.id)
    }

    private mutating func dropCancelled() {
        while let first = heap.first, actions[first.id] == nil { removeFirst() }
    }

    private mutating func removeFirst() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child] < heap[parent] else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            let right = left + 1
            let smaller = right < heap.count && heap[right] < heap[left] ? right : left
            guard heap[smaller] < heap[parent] else { return }
            heap.swapAt(parent, smaller)
            parent = smaller
        }
    }
}
