/// Counts what a wind-down waits for and runs `done` once the last of it finished (and the starter said it
/// expects nothing more). Loop-confined.
final class Countdown {
    private var pending = 1
    private let done: () -> Void

    init(_ done: @escaping () -> Void) { self.done = done }

    /// One more piece of work to wait for; the returned closure says it finished (call it once).
    func expect() -> () -> Void {
        pending += 1
        return { [self] in finishOne() }
    }

    /// Nothing more will be expected: `done` runs now if nothing is pending, else after the last finishes.
    func start() { finishOne() }

    private func finishOne() {
        pending -= 1
        if pending == 0 { done() }
    }
}
