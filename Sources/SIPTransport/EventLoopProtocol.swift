import Dispatch
import Synchronization

/// What the stack needs from the loop it runs on: posted work, timers and the loop's monotonic time. The
/// system `EventLoop` (epoll on its own thread) conforms, and so does the testing product's virtual-time
/// loop, so the transport, the transaction core and the engine run the same code over either.
///
/// Everything but `execute` and `inEventLoop` is called on the loop.
public protocol EventLoopProtocol: AnyObject, Sendable {
    /// Whether the caller runs on this loop now.
    var inEventLoop: Bool { get }

    /// Runs `body` on the loop, soon. Callable from anywhere.
    func execute(_ body: @escaping @Sendable () -> Void)

    /// Runs `body` once the current iteration's events, timers and posted work are done.
    func atIterationEnd(_ body: @escaping () -> Void)

    /// Runs `action` on the loop after `delay` of the loop's time. Returns an id for `cancelTimer`.
    @discardableResult
    func scheduleTimer(after delay: Duration, _ action: @escaping () -> Void) -> TimerHandle

    /// Cancels a timer that has not fired yet; cancelling twice or after it fired does nothing.
    func cancelTimer(_ handle: TimerHandle)

    /// The loop's monotonic time: the system clock for `EventLoop`, virtual time for a test loop.
    var now: ContinuousClock.Instant { get }
}

extension EventLoopProtocol {
    /// Runs `body` on the loop and waits for its result; runs it directly when already on the loop.
    ///
    /// A caller off the loop blocks its thread until the loop has run `body`; a virtual-time loop runs
    /// posted work at once in the caller, so this never waits on the wall clock there.
    package func run<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        if inEventLoop { return body() }
        let result = ResultSlot<T>()
        execute { result.fill(body()) }
        return result.wait()
    }
}

/// One value handed from the loop to a thread that waits for it.
private final class ResultSlot<T: Sendable>: Sendable {
    private let value = Mutex<T?>(nil)
    private let filled = DispatchSemaphore(value: 0)

    func fill(_ result: T) {
        value.withLock { $0 = result }
        filled.signal()
    }

    func wait() -> T {
        while true {
            if let result = value.withLock({ $0 }) { return result }
            filled.wait()
        }
    }
}
