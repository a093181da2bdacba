import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// SIGINT and SIGTERM as an event: blocked in every thread (call `install` before any thread starts) and
/// taken by `sigwait` on a thread of their own, which calls `handler` once.
enum Signals {
    static func terminationSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        return set
    }

    static func install(_ handler: @escaping @Sendable (Int32) -> Void) {
        var set = terminationSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
        DispatchQueue.global().async {
            var waitSet = terminationSet()
            var signal: Int32 = 0
            sigwait(&waitSet, &signal)
            handler(signal)
        }
    }
}
