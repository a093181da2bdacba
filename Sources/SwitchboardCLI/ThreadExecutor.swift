import Dispatch
import Foundation
import Synchronization

/// A task executor with one thread of its own, for a stream reader that another thread waits on with a
/// semaphore (`SessionViews.finish`). On Swift's cooperative pool such a reader needs a free thread of the
/// pool, which a busy process (a test run whose tasks hold both of a 2-core machine's threads, an app that
/// blocks in its tasks) may not have for seconds; here it always has its own.
final class ThreadExecutor: TaskExecutor {
    private let state = Mutex<(jobs: [UnownedJob], isStopping: Bool)>(([], false))
    private let wake = DispatchSemaphore(value: 0)

    /// Starts the thread, named `name`.
    init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        state.withLock { $0.jobs.append(job) }
        wake.signal()
    }

    /// Lets the thread end once the jobs enqueued so far have run (call it from the last job).
    func stop() {
        state.withLock { $0.isStopping = true }
        wake.signal()
    }

    private func run() {
        while true {
            wake.wait()
            let (jobs, isStopping) = state.withLock { state in
                defer { state.jobs = [] }
                return (state.jobs, state.isStopping)
            }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
            if isStopping, jobs.isEmpty { return }
        }
    }
}
