import SIPTransport

/// The armed timers of one state machine (a session, a subscription), by the machine's name for each: at
/// most one per name, a new one replacing the old. Bookkeeping only; the loop runs them.
///
/// A machine arms a handful at most (a call: the 2xx retransmission, the ACK wait, a session refresh), so they
/// sit in a short array searched from the end: cheaper than hashing the name on every start, fire and cancel.
struct LoopTimers<Name: Equatable> {
    private var armed: [(name: Name, handle: TimerHandle)] = []

    /// How many timers are armed.
    var count: Int { armed.count }

    /// How many timers the table has room for without growing: zero once nothing is armed.
    var reservedCapacity: Int { armed.capacity }

    /// Arms `name` to run `fire` after `delay` on `loop`, cancelling the one it replaces. `fire` must call
    /// `fired(_:)` first.
    mutating func start(
        _ name: Name, after delay: Duration, on loop: any EventLoopProtocol, _ fire: @escaping () -> Void
    ) {
        if let index = index(of: name) {
            loop.cancelTimer(armed[index].handle)
            armed[index].handle = loop.scheduleTimer(after: delay, fire)
        } else {
            armed.append((name, loop.scheduleTimer(after: delay, fire)))
        }
    }

    /// `name` fired: it is no longer armed.
    mutating func fired(_ name: Name) {
        guard let index = index(of: name) else { return }
        remove(at: index)
    }

    /// Cancels `name`, if it is armed.
    mutating func cancel(_ name: Name, on loop: any EventLoopProtocol) {
        guard let index = index(of: name) else { return }
        loop.cancelTimer(armed[index].handle)
        remove(at: index)
    }

    /// Cancels every armed timer.
    mutating func cancelAll(on loop: any EventLoopProtocol) {
        for timer in armed { loop.cancelTimer(timer.handle) }
        armed = []
    }

    private func index(of name: Name) -> Int? {
        armed.lastIndex { $0.name == name }
    }

    /// A machine spends most of its life (an idle call: hours) with nothing armed: the storage goes with its
    /// last timer rather than staying at the largest size it reached.
    private mutating func remove(at index: Int) {
        if armed.count == 1 {
            armed = []
        } else {
            armed.remove(at: index)
        }
    }
}
