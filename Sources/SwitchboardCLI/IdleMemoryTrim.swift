import CSystem
import Dispatch
import Synchronization

/// Gives the memory a burst of calls freed back to the system once the calls are over: glibc keeps freed
/// blocks for reuse, so after a load peak the process would otherwise stay at its peak RSS (issue 20).
/// Every `interval` seconds, when `activity` changed since the last trim and `isIdle` says no call is live,
/// it calls `malloc_trim`. A process-wide policy, so it lives in the command, not in the library.
final class IdleMemoryTrim {
    private let timer: any DispatchSourceTimer

    /// Starts looking every `interval` seconds.
    /// - Parameters:
    ///   - activity: a count that changes whenever calls come or go (e.g. calls seen plus calls ended).
    ///   - isIdle: whether no call is live now.
    init(interval: Double = 10, activity: @escaping @Sendable () -> Int, isIdle: @escaping @Sendable () -> Bool) {
        timer = DispatchSource.makeTimerSource(queue: commandTimers)
        let trimmedAt = Mutex(0)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler {
            let count = activity()
            guard trimmedAt.withLock({ $0 != count }), isIdle() else { return }
            trimmedAt.withLock { $0 = count }
            _ = sb_trim_heap()
        }
        timer.resume()
    }

    deinit { timer.cancel() }
}
