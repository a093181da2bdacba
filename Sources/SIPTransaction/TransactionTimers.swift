/// The timer values of RFC 3261 §17 (Table 4), computed from T1, T2 and T4.
///
/// T1 is the round-trip estimate (500 ms), T2 the longest retransmission interval for non-INVITE requests
/// and INVITE responses (4 s), T4 the time a message can stay in the network (5 s). Tests use a small T1;
/// a deployment on a high-latency network raises it (§17.1.1.1).
public struct TransactionTimers: Sendable, Hashable {
    /// RTT estimate, 500 ms by default.
    public var t1: Duration
    /// The maximum retransmission interval for non-INVITE requests and INVITE responses, 4 s by default.
    public var t2: Duration
    /// The maximum time a message remains in the network, 5 s by default.
    public var t4: Duration
    /// Timer D on unreliable transports: "at least 32 seconds" (§17.1.1.2), so a constant, not a multiple of T1.
    public var timerD: Duration
    /// How long an INVITE server transaction waits for the TU's first response before it sends 100 Trying
    /// itself (§17.2.1: 200 ms). Zero or less sends 100 Trying at once, as a stateful proxy does (§16.2).
    public var tryingDelay: Duration

    public init(
        t1: Duration = .milliseconds(500), t2: Duration = .seconds(4), t4: Duration = .seconds(5),
        timerD: Duration = .seconds(32), tryingDelay: Duration = .milliseconds(200)
    ) {
        self.t1 = t1
        self.t2 = t2
        self.t4 = t4
        self.timerD = timerD
        self.tryingDelay = tryingDelay
    }

    /// 64*T1: Timers B, F, H, J (unreliable), L and M.
    public var transactionTimeout: Duration {
        // Six doublings: Duration's generic `*` goes through a 128-bit conversion that costs more than the rest
        // of arming a timer, and this is read for most timers. Exact, and traps on overflow, as `*` does.
        var value = t1
        for _ in 0..<6 { value += value }
        return value
    }

    /// The value a timer is armed with when its state is entered. For the retransmission timers A, E and G
    /// this is the first interval; later intervals come from `nextInterval(after:for:)`. On reliable
    /// transports D, I, J and K are zero (the state is left at once) and A, E and G are never armed.
    public func initialValue(of kind: TimerKind, isReliable: Bool) -> Duration {
        switch kind {
        case .a, .e, .g: t1
        case .b, .f, .h, .l, .m, .cancelled: transactionTimeout
        case .d: isReliable ? .zero : timerD
        case .i, .k: isReliable ? .zero : t4
        case .j: isReliable ? .zero : transactionTimeout
        case .trying: tryingDelay
        }
    }

    /// The retransmission interval that follows `interval`: Timer A doubles without bound (§17.1.1.2);
    /// Timers E and G double up to T2 (§17.1.2.2, §17.2.1).
    public func nextInterval(after interval: Duration, for kind: TimerKind) -> Duration {
        let doubled = interval + interval
        switch kind {
        case .a: return doubled
        default: return min(doubled, t2)
        }
    }
}
