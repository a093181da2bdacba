import CSystem
import Dispatch
import Synchronization

/// Gives the memory a burst of calls freed back to the system once the calls are over: glibc keeps freed
/// blocks for reuse, so after a load peak the process would otherwise stay at its peak RSS (issue 20).
/// Every `interval` seconds while `isIdle` says no call is live, it calls `malloc_trim`, for the first
/// `settlingLooks` looks after `activity` last changed: the transactions of ended calls linger 32 s
/// (64*T1) after the calls, and their memory comes free only then. A process-wide policy, so it lives in
/// the command, not in the library.
final class IdleMemoryTrim {
    private let timer: any DispatchSourceTimer

    /// Starts looking every `interval` seconds.
    /// - Parameters:
    ///   - activity: a count that changes whenever calls come or go (e.g. calls seen plus calls ended).
    ///   - isIdle: whether no call is live now.
    init(
        interval: Double = 10, settlingLooks: Int = 6, activity: @escaping @Sendable () -> Int,
        isIdle: @escaping @Sendable () -> Bool
    ) {
        timer = DispatchSource.makeTimerSource(queue: commandTimers)
        let state = Mutex((activity: 0, quietLooks: settlingLooks))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler {
            let count = activity()
            let trims = state.withLock { state -> Bool in
                if state.activity != count { state = (count, 0) }
                guard state.quietLooks < settlingLooks else { return false }
                state.quietLooks += 1
                return true
            }
            guard trims, isIdle() else { return }
            _ = sb_trim_heap()
        }
        timer.resume()
    }

    deinit { timer.cancel() }
}
