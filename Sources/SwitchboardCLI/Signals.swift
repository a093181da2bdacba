import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// SIGINT and SIGTERM as an event: blocked in every thread (call `install` before any thread starts) and
/// taken by `sigwait` on one thread of its own, which calls the latest handler.
enum Signals {
    static func terminationSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        return set
    }

    /// The handler the next SIGINT or SIGTERM goes to (the latest installed).
    private static let handler = Mutex<(@Sendable (Int32) -> Void)?>(nil)
    private static let waiter = Mutex(false)

    /// Blocks SIGINT and SIGTERM and hands them to `handler` from one thread of its own (started once),
    /// never from a dispatch queue's worker, which waiting would take from the shared pool.
    static func install(_ handler: @escaping @Sendable (Int32) -> Void) {
        var set = terminationSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
        Self.handler.withLock { $0 = handler }
        let start = waiter.withLock { started in
            defer { started = true }
            return !started
        }
        guard start else { return }
        Thread.detachNewThread {
            var waitSet = terminationSet()
            while true {
                var signal: Int32 = 0
                guard sigwait(&waitSet, &signal) == 0 else { continue }
                Self.handler.withLock { $0 }?(signal)
            }
        }
    }
}

/// A serial queue for the commands' timers and scripts (`--duration`, `--dtmf`, `--hold-after`): its own
/// thread when needed, so waiting commands elsewhere in the process (tests run several) cannot starve it.
let commandTimers = DispatchQueue(label: "switchboard.cli.timers")
