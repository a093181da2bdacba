import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// SIGINT and SIGTERM as an event. A real handler is installed (never the default action, which would end
/// the process at once whichever thread the kernel picks): it only writes the signal's number into a pipe,
/// and one thread of its own reads the pipe and calls the latest handler. The signals are also blocked in
/// the installing thread (call `install` before any thread starts), so threads started later leave them to
/// the reader, which unblocks them for itself; a thread that still has them unblocked runs the same
/// harmless handler.
enum Signals {
    /// The pipe's write end for the C handler (-1 before `install`): a lock-free atomic, safe to read in a
    /// signal handler.
    private static let writeEnd = Atomic<Int32>(-1)

    /// The handler the next SIGINT or SIGTERM goes to (the latest installed).
    private static let handler = Mutex<(@Sendable (Int32) -> Void)?>(nil)
    private static let reader = Mutex(false)

    static func terminationSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        return set
    }

    /// Routes SIGINT and SIGTERM to `handler`, called from one thread of its own (started once), never from
    /// a dispatch queue's worker, which waiting would take from the shared pool.
    static func install(_ handler: @escaping @Sendable (Int32) -> Void) {
        Self.handler.withLock { $0 = handler }
        let start = reader.withLock { started in
            defer { started = true }
            return !started
        }
        guard start else { return }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        writeEnd.store(ends[1], ordering: .releasing)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            let fd = Signals.writeEnd.load(ordering: .acquiring)
            guard fd >= 0 else { return }
            let saved = errno
            var byte = UInt8(truncatingIfNeeded: signal)
            _ = write(fd, &byte, 1)
            errno = saved
        }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        var set = terminationSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
        let readEnd = ends[0]
        Thread.detachNewThread {
            var own = terminationSet()
            pthread_sigmask(SIG_UNBLOCK, &own, nil)
            while true {
                var byte: UInt8 = 0
                let count = read(readEnd, &byte, 1)
                if count == 1 {
                    Self.handler.withLock { $0 }?(Int32(byte))
                } else if count == 0 || (count < 0 && errno != EINTR) {
                    return
                }
            }
        }
    }
}

/// A serial queue for the commands' timers and scripts (`--duration`, `--dtmf`, `--hold-after`): its own
/// thread when needed, so waiting commands elsewhere in the process (tests run several) cannot starve it.
let commandTimers = DispatchQueue(label: "switchboard.cli.timers")
