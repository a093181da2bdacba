/// When a client transaction sends its request and when it gives up (RFC 8489 §6.2.1, §6.2.2): over UDP up to
/// Rc sends, the interval doubling from RTO, and Rm × RTO of waiting after the last; over TCP or TLS one send
/// and Ti. Shared by the Binding transaction and the TURN client's transactions.
struct STUNRetransmissionSchedule: Hashable, Sendable {
    /// What the schedule says when its deadline passes.
    enum Step: Hashable, Sendable {
        /// Send the request again; the next deadline is this instant.
        case retransmit(next: STUNInstant)
        /// No response came in time.
        case timeout
    }

    let isReliable: Bool
    let timers: STUNTransactionTimers
    /// How many times the request has been sent.
    private(set) var sends = 0
    /// When the schedule next needs attention; `nil` before the start and after the timeout.
    private(set) var deadline: STUNInstant?
    private var interval: Duration

    init(isReliable: Bool, timers: STUNTransactionTimers) {
        self.isReliable = isReliable
        self.timers = timers
        self.interval = timers.rto
    }

    /// The first send: returns the first deadline.
    mutating func start(at now: STUNInstant) -> STUNInstant {
        let next = now + (isReliable ? timers.ti : (timers.rc <= 1 ? lastWait : interval))
        sends = 1
        deadline = next
        return next
    }

    /// The deadline passed: retransmit or time out. `nil` if `now` is before the deadline or the schedule is over.
    mutating func fired(at now: STUNInstant) -> Step? {
        guard let current = deadline, now >= current else { return nil }
        if isReliable || sends >= max(timers.rc, 1) {
            deadline = nil
            return .timeout
        }
        interval += interval
        let next = current + (sends + 1 >= timers.rc ? lastWait : interval)
        sends += 1
        deadline = next
        return .retransmit(next: next)
    }

    /// Rm × RTO: how long the client waits after its last send over UDP.
    private var lastWait: Duration { timers.rto * max(timers.rm, 0) }
}
