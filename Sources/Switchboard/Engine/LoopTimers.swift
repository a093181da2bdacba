import SIPTransport

/// The armed timers of one state machine (a session, a subscription), by the machine's name for each: at
/// most one per name, a new one replacing the old. Bookkeeping only; the loop runs them.
struct LoopTimers<Name: Hashable> {
    private var handles: [Name: TimerHandle] = [:]

    /// How many timers are armed.
    var count: Int { handles.count }

    /// How many timers the table has room for without growing: zero once nothing is armed.
    var reservedCapacity: Int { handles.capacity }

    /// Arms `name` to run `fire` after `delay` on `loop`, cancelling the one it replaces. `fire` must call
    /// `fired(_:)` first.
    mutating func start(
        _ name: Name, after delay: Duration, on loop: any EventLoopProtocol, _ fire: @escaping () -> Void
    ) {
        if let old = handles[name] { loop.cancelTimer(old) }
        handles[name] = loop.scheduleTimer(after: delay, fire)
    }

    /// `name` fired: it is no longer armed.
    mutating func fired(_ name: Name) {
        handles[name] = nil
        releaseIfEmpty()
    }

    /// Cancels `name`, if it is armed.
    mutating func cancel(_ name: Name, on loop: any EventLoopProtocol) {
        if let handle = handles.removeValue(forKey: name) { loop.cancelTimer(handle) }
        releaseIfEmpty()
    }

    /// A machine spends most of its life (an idle call: hours) with nothing armed: the table's storage goes
    /// with its last timer rather than staying at the largest size it reached.
    private mutating func releaseIfEmpty() {
        if handles.isEmpty { handles = [:] }
    }

    /// Cancels every armed timer.
    mutating func cancelAll(on loop: any EventLoopProtocol) {
        for handle in handles.values { loop.cancelTimer(handle) }
        handles = [:]
    }
}
