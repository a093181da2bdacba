import CSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One thread that owns file descriptors and timers: an epoll loop with a timer heap. Work from other
/// threads is posted with `execute` (a `Mutex`-guarded queue plus an eventfd); everything else must be
/// called on the loop's own thread. Several loops may run side by side (signalling, media).
///
/// The loop is also a `SerialExecutor`, so an actor can run on it and protocol state stays on one thread.
public final class EventLoop: EventLoopProtocol, @unchecked Sendable {
    // @unchecked Sendable: the mutable state below the `inbox` is read and written only on the loop thread
    // (every public entry point other than `execute`, `enqueue`, `stop` and `inEventLoop` asserts or documents
    // that); the inbox is a Mutex, and the thread handle is written before the thread starts.

    public let name: String
    private let epollFD: Int32
    private let wakeFD: Int32
    private let inbox = Mutex<Inbox>(Inbox())
    private var threadID: pthread_t?
    private let running = Atomic<Bool>(false)

    private struct Inbox: ~Copyable {
        var work: [@Sendable () -> Void] = []
        var jobs: [UnownedJob] = []
        var stopRequested = false
        /// The eventfd was written and the loop has not taken the inbox since: posting more needs no
        /// second write (one syscall, and one wake-up, per batch of posts instead of per post).
        var isWakePending = false
    }

    // Loop-thread state, read and written without run-time exclusivity checks (`@exclusivity(unchecked)`):
    // only the loop thread touches it, and every access is to a value whose methods call nothing outside it
    // (a handler, timer action or iteration-end body is taken out first and run after the access ends), so
    // no two accesses can overlap.
    @exclusivity(unchecked) private var handlers = DescriptorHandlers()
    @exclusivity(unchecked) private var timerHeap = TimerHeap()
    /// Timers due later than `farHorizon` from when they were armed, by coarse bucket (`Self.bucket`),
    /// moved into the heap shortly before they are due. Transactions keep timers of 32 s (Timers J and L)
    /// per call: thousands of them would make every heap operation a long walk through cold memory.
    @exclusivity(unchecked) private var farTimers: [Int64: [TimerHeap.Entry]] = [:]
    /// Every bucket up to this one has been moved into the heap.
    @exclusivity(unchecked) private var migratedBucket: Int64 = 0
    private let origin = EventLoop.clockNanoseconds()
    @exclusivity(unchecked) private var timerActions = TimerSlots()
    @exclusivity(unchecked) private var stopping = false
    @exclusivity(unchecked) private var iterationEnd: [() -> Void] = []
    /// The arrays the loop swaps with `iterationEnd` and with the inbox's lists to run them: each keeps its
    /// capacity from turn to turn, so a busy loop allocates no array per iteration to take its work.
    @exclusivity(unchecked) private var spareIterationEnd: [() -> Void] = []
    @exclusivity(unchecked) private var spareWork: [@Sendable () -> Void] = []
    @exclusivity(unchecked) private var spareJobs: [UnownedJob] = []

    /// Creates the loop's epoll and eventfd descriptors; `start()` runs it on a new thread.
    public init(name: String = "switchboard") throws(TransportError) {
        self.name = name
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw TransportError.system("epoll_create1", errno: sb_errno()) }
        let wake = eventfd(0, sb_EFD_NONBLOCK | sb_EFD_CLOEXEC)
        guard wake >= 0 else {
            close(epoll)
            throw TransportError.system("eventfd", errno: sb_errno())
        }
        self.epollFD = epoll
        self.wakeFD = wake
        var event = epoll_event()
        event.events = sb_EPOLLIN
        event.data.fd = wake
        _ = epoll_ctl(epoll, EPOLL_CTL_ADD, wake, &event)
    }

    deinit {
        close(wakeFD)
        close(epollFD)
    }

    // MARK: Thread

    /// Starts the loop on its own thread. Returns once the thread is running.
    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let box = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { raw in
                guard let raw else { return nil }
                let loop = Unmanaged<EventLoop>.fromOpaque(raw).takeRetainedValue()
                loop.run()
                return nil
            }, box.toOpaque())
        if result != 0 {
            box.release()
            running.store(false, ordering: .releasing)
            return
        }
        threadID = thread
    }

    /// Asks the loop to stop after the work already posted, and waits for its thread to end. Must not be
    /// called on the loop itself.
    public func stop() {
        inbox.withLock { $0.stopRequested = true }
        wake()
        if let thread = threadID, !inEventLoop {
            pthread_join(thread, nil)
            threadID = nil
        }
    }

    /// Whether the caller runs on this loop's thread.
    public var inEventLoop: Bool {
        guard let thread = threadID else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    /// Runs `body` on the loop thread, soon. Callable from any thread.
    public func execute(_ body: @escaping @Sendable () -> Void) {
        let needsWake = inbox.withLock { inbox in
            inbox.work.append(body)
            return Self.takeWake(&inbox)
        }
        if needsWake { wake() }
    }

    /// Marks a wake-up as pending; true when the caller must write the eventfd (none was pending).
    private static func takeWake(_ inbox: inout Inbox) -> Bool {
        guard !inbox.isWakePending else { return false }
        inbox.isWakePending = true
        return true
    }

    /// Runs `body` on the loop thread once the current iteration's events, timers and posted work are done
    /// (loop thread only). Work that would wake another thread (handing events to a queue, posting to
    /// another loop) gathers there into one hand-over per iteration instead of one per item.
    public func atIterationEnd(_ body: @escaping () -> Void) {
        iterationEnd.append(body)
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    // MARK: Descriptors (loop thread only)

    /// Watches `fd` for `events` (EPOLLIN/EPOLLOUT...); `handler` gets the ready events on the loop thread.
    public func register(fd: Int32, events: UInt32, handler: @escaping (UInt32) -> Void) throws(TransportError) {
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else {
            throw TransportError.system("epoll_ctl(ADD)", errno: sb_errno())
        }
        handlers[fd] = handler
    }

    /// Gives an `fd` already watched a new handler (no system call). Returns false when it is not watched.
    public func replaceHandler(fd: Int32, handler: @escaping (UInt32) -> Void) -> Bool {
        guard handlers[fd] != nil else { return false }
        handlers[fd] = handler
        return true
    }

    /// Changes the events watched on `fd`.
    public func modify(fd: Int32, events: UInt32) {
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
    }

    /// Stops watching `fd` (the caller closes it).
    public func deregister(fd: Int32) {
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
        handlers[fd] = nil
    }

    // MARK: Timers (loop thread only)

    /// Runs `action` on the loop after `delay` (monotonic clock). Returns an id for `cancelTimer`.
    @discardableResult
    public func scheduleTimer(after delay: Duration, _ action: @escaping () -> Void) -> TimerHandle {
        let id = timerActions.insert(action)
        let now = nanosecondsNow()
        let entry = TimerHeap.Entry(deadline: now &+ Self.nanoseconds(max(delay, .zero)), id: id)
        let bucket = Self.bucket(entry.deadline)
        if bucket > Self.bucket(now) + Self.nearBuckets {
            farTimers[bucket, default: []].append(entry)
        } else {
            timerHeap.push(entry)
        }
        return TimerHandle(id: id)
    }

    /// Makes room for `count` armed timers, so that a loop that will hold many does not stop to grow its
    /// timer table. Before `start()`, or on the loop.
    public func reserveTimerCapacity(_ count: Int) {
        timerActions.reserveCapacity(max(0, count))
    }

    /// Cancels a timer that has not fired yet; cancelling twice or after it fired does nothing.
    public func cancelTimer(_ handle: TimerHandle) {
        _ = timerActions.remove(handle.id)
    }

    /// The number of timers armed and not cancelled.
    public var armedTimerCount: Int { timerActions.count }

    // MARK: The loop

    private func run() {
        // The thread's name (at most 15 bytes) tells the loops apart in `perf`, `top -H` and /proc.
        _ = sb_set_thread_name(name)
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while !stopping {
            let timeout = millisecondsToNextTimer()
            let count = events.withUnsafeMutableBufferPointer { buffer in
                epoll_wait(epollFD, buffer.baseAddress, Int32(buffer.count), timeout)
            }
            if count < 0, sb_errno() != EINTR { break }
            var i = 0
            while i < Int(count) {
                let event = events[i]
                let fd = event.data.fd
                if fd == wakeFD {
                    drainWake()
                } else if let handler = handlers[fd] {
                    handler(event.events)
                }
                i += 1
            }
            fireDueTimers()
            runInbox()
            runIterationEnd()
        }
        // Stopped: run what is left once so posted cleanups happen, then drop the handlers.
        runInbox()
        runIterationEnd()
        handlers.removeAll()
        timerActions.removeAll()
        farTimers.removeAll()
        running.store(false, ordering: .releasing)
    }

    private func drainWake() {
        var value: UInt64 = 0
        _ = read(wakeFD, &value, 8)
    }

    private func runIterationEnd() {
        while !iterationEnd.isEmpty {
            // Bodies run from the spare array; those they add go to `iterationEnd` (the emptied spare).
            swap(&iterationEnd, &spareIterationEnd)
            for body in spareIterationEnd { body() }
            Self.empty(&spareIterationEnd)
        }
    }

    /// Empties a spare list, keeping its storage unless a burst made it large (a bounded cost when idle).
    private static func empty<T>(_ list: inout [T]) {
        if list.capacity > 1024 { list = [] } else { list.removeAll(keepingCapacity: true) }
    }

    private func runInbox() {
        // The lists change places with the loop's empty spares, which keep their capacity for the next posts.
        var work = spareWork
        var jobs = spareJobs
        spareWork = []
        spareJobs = []
        let stop = inbox.withLock { inbox -> Bool in
            swap(&inbox.work, &work)
            swap(&inbox.jobs, &jobs)
            inbox.isWakePending = false
            return inbox.stopRequested
        }
        for item in work { item() }
        for job in jobs { job.runSynchronously(on: asUnownedSerialExecutor()) }
        Self.empty(&work)
        Self.empty(&jobs)
        spareWork = work
        spareJobs = jobs
        if stop { stopping = true }
    }

    private func millisecondsToNextTimer() -> Int32 {
        let hasWork = inbox.withLock { !$0.work.isEmpty || !$0.jobs.isEmpty || $0.stopRequested }
        if hasWork { return 0 }
        let now = nanosecondsNow()
        migrateFarTimers(now: now)
        while let first = timerHeap.peek(), !timerActions.contains(first.id) { _ = timerHeap.pop() }
        // Far timers move into the heap a bucket ahead: wake up for that at the latest.
        var wait: Int64 = farTimers.isEmpty ? -1 : Self.bucketNanoseconds
        if let first = timerHeap.peek() {
            let remaining = first.deadline - now
            if remaining <= 0 { return 0 }
            wait = wait < 0 ? remaining : min(wait, remaining)
        }
        guard wait >= 0 else { return -1 }
        return Int32(clamping: (wait + 999_999) / 1_000_000)
    }

    private func fireDueTimers() {
        let now = nanosecondsNow()
        migrateFarTimers(now: now)
        while let first = timerHeap.peek(), first.deadline <= now {
            _ = timerHeap.pop()
            if let action = timerActions.remove(first.id) { action() }
        }
    }

    // MARK: Timer time base

    /// Buckets of 2^27 ns (134 ms); a timer further out than `nearBuckets` of them waits in `farTimers`.
    private static let bucketShift: Int64 = 27
    private static let bucketNanoseconds: Int64 = 1 << bucketShift
    private static let nearBuckets: Int64 = 8

    private static func bucket(_ nanoseconds: Int64) -> Int64 { nanoseconds >> bucketShift }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max / 2 }
        return min(whole &+ attoseconds / 1_000_000_000, .max / 2)
    }

    /// The system's monotonic clock.
    public var now: ContinuousClock.Instant { .now }

    /// The monotonic clock in nanoseconds since the loop was made.
    private func nanosecondsNow() -> Int64 { Self.clockNanoseconds() &- origin }

    /// `ContinuousClock`'s clock (CLOCK_BOOTTIME on Linux: monotonic, counting suspended time) in
    /// nanoseconds, read directly: the loop reads it on every iteration and for every timer, and going
    /// through `Instant` and `Duration` costs several times the read itself.
    private static func clockNanoseconds() -> Int64 {
        #if canImport(Glibc) || canImport(Musl)
            var spec = timespec()
            clock_gettime(CLOCK_BOOTTIME, &spec)
            return Int64(spec.tv_sec) &* 1_000_000_000 &+ Int64(spec.tv_nsec)
        #else
            return nanoseconds(ContinuousClock.now - clockOrigin)
        #endif
    }

    #if !canImport(Glibc) && !canImport(Musl)
        private static let clockOrigin = ContinuousClock.now
    #endif

    /// Moves the far timers whose bucket came within `nearBuckets` of now into the heap (cancelled ones are
    /// dropped on the way).
    private func migrateFarTimers(now: Int64) {
        let horizon = Self.bucket(now) + Self.nearBuckets
        guard migratedBucket < horizon else { return }
        if farTimers.isEmpty {
            migratedBucket = horizon
            return
        }
        while migratedBucket < horizon {
            migratedBucket += 1
            guard let entries = farTimers.removeValue(forKey: migratedBucket) else { continue }
            for entry in entries where timerActions.contains(entry.id) { timerHeap.push(entry) }
        }
    }
}

/// Identifies an armed timer.
public struct TimerHandle: Sendable, Hashable {
    package let id: UInt64

    package init(id: UInt64) { self.id = id }
}

extension EventLoop: SerialExecutor {
    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let needsWake = inbox.withLock { inbox in
            inbox.jobs.append(unowned)
            return Self.takeWake(&inbox)
        }
        if needsWake { wake() }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    public func checkIsolated() {
        precondition(inEventLoop, "not on event loop \(name)")
    }
}

/// A binary min-heap of timer deadlines (nanoseconds on the loop's time base).
struct TimerHeap {
    struct Entry {
        var deadline: Int64
        var id: UInt64
    }

    private var items: [Entry] = []

    var count: Int { items.count }

    func peek() -> Entry? { items.first }

    mutating func push(_ entry: Entry) {
        items.append(entry)
        items.withUnsafeMutableBufferPointer { heap in
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard entry.deadline < heap[parent].deadline else { break }
                heap[child] = heap[parent]
                child = parent
            }
            heap[child] = entry
        }
    }

    mutating func pop() -> Entry? {
        guard let first = items.first else { return nil }
        let last = items.removeLast()
        guard !items.isEmpty else { return first }
        items.withUnsafeMutableBufferPointer { heap in
            let count = heap.count
            var parent = 0
            while true {
                let left = 2 * parent + 1
                guard left < count else { break }
                let right = left + 1
                let smaller = right < count && heap[right].deadline < heap[left].deadline ? right : left
                guard heap[smaller].deadline < last.deadline else { break }
                heap[parent] = heap[smaller]
                parent = smaller
            }
            heap[parent] = last
        }
        return first
    }
}

/// The actions of the armed timers, in slots that are reused: a timer's id is its slot (low 32 bits) and the
/// slot's generation (high 32 bits), so that arming, cancelling and firing index an array instead of hashing,
/// and an id kept after its timer fired or was cancelled matches nothing once the slot is reused (the
/// generation moved on; it would have to wrap around 2^32 reuses of that slot to match again).
struct TimerSlots {
    private struct Slot {
        var generation: UInt32 = 0
        var action: (() -> Void)?
    }

    private var slots: [Slot] = []
    /// Free slots, reused last-freed first (a recently used slot is likely still in cache).
    private var free: [UInt32] = []
    private(set) var count = 0

    /// Files `action`; returns its id.
    mutating func insert(_ action: @escaping () -> Void) -> UInt64 {
        let index: Int
        if let reused = free.popLast() {
            index = Int(reused)
        } else {
            index = slots.count
            slots.append(Slot())
        }
        slots[index].action = action
        count += 1
        return UInt64(slots[index].generation) << 32 | UInt64(index)
    }

    /// The slot of `id` while its timer is armed.
    private func index(of id: UInt64) -> Int? {
        let index = Int(truncatingIfNeeded: id & 0xFFFF_FFFF)
        guard index < slots.count, slots[index].generation == UInt32(truncatingIfNeeded: id >> 32),
            slots[index].action != nil
        else { return nil }
        return index
    }

    func contains(_ id: UInt64) -> Bool { index(of: id) != nil }

    /// Takes the action of `id` out (the timer is no longer armed); nil when it fired or was cancelled.
    mutating func remove(_ id: UInt64) -> (() -> Void)? {
        guard let index = index(of: id) else { return nil }
        let action = slots[index].action
        slots[index].action = nil
        slots[index].generation &+= 1
        free.append(UInt32(index))
        count -= 1
        return action
    }

    mutating func reserveCapacity(_ capacity: Int) {
        slots.reserveCapacity(capacity)
        free.reserveCapacity(capacity)
    }

    mutating func removeAll() {
        slots = []
        free = []
        count = 0
    }
}

/// The handlers of the watched descriptors, indexed by descriptor number: the kernel hands out the lowest
/// free number, so the table is as long as the most descriptors open at once (bounded by RLIMIT_NOFILE),
/// and finding the handler of an event is an index, not a hash.
struct DescriptorHandlers {
    private var slots: [((UInt32) -> Void)?] = []

    subscript(fd: Int32) -> ((UInt32) -> Void)? {
        get { fd >= 0 && Int(fd) < slots.count ? slots[Int(fd)] : nil }
        set {
            guard fd >= 0 else { return }
            let index = Int(fd)
            if index >= slots.count {
                guard newValue != nil else { return }
                slots.append(contentsOf: repeatElement(nil, count: index + 1 - slots.count))
            }
            slots[index] = newValue
        }
    }

    mutating func removeAll() { slots = [] }
}
