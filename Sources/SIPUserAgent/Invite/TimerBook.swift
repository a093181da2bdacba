/// An action type that can arm and disarm timers (sessions' and subscriptions').
protocol TimerActions {
    static func startTimer(_ timer: SessionTimer, after delay: Duration) -> Self
    static func cancelTimer(_ timer: SessionTimer) -> Self
}

extension SessionAction: TimerActions {}

/// The timers a session or subscription has armed: at most one per kind, each arm a new generation, so a
/// late expiry of a cancelled timer is told apart from the live one.
struct TimerBook: Sendable, Hashable {
    private(set) var armed: [SessionTimer] = []
    private var generation: UInt32 = 0

    var isEmpty: Bool { armed.isEmpty }

    func isArmed(_ kind: SessionTimer.Kind) -> Bool { armed.contains { $0.kind == kind } }

    /// Arms `kind` (disarming the previous one of that kind) and appends the actions.
    mutating func start<Action: TimerActions>(
        _ kind: SessionTimer.Kind, after delay: Duration, into actions: inout [Action]
    ) {
        cancel(kind, into: &actions)
        generation &+= 1
        let timer = SessionTimer(kind: kind, generation: generation)
        // A call arms two or three at once (the 2xx's retransmission and ACK wait, the session timer).
        if armed.isEmpty { armed.reserveCapacity(4) }
        armed.append(timer)
        actions.append(.startTimer(timer, after: max(delay, .zero)))
    }

    /// Disarms `kind` if it is armed.
    mutating func cancel<Action: TimerActions>(_ kind: SessionTimer.Kind, into actions: inout [Action]) {
        guard let index = armed.firstIndex(where: { $0.kind == kind }) else { return }
        actions.append(.cancelTimer(armed.remove(at: index)))
        releaseIfEmpty()
    }

    /// Disarms every timer but `keeping`.
    mutating func cancelAll<Action: TimerActions>(keeping: [SessionTimer.Kind] = [], into actions: inout [Action]) {
        // The usual end keeps none: every timer goes, without a test per timer.
        if keeping.isEmpty {
            for timer in armed { actions.append(.cancelTimer(timer)) }
            armed = []
            return
        }
        for timer in armed where !keeping.contains(timer.kind) { actions.append(.cancelTimer(timer)) }
        armed.removeAll { !keeping.contains($0.kind) }
        releaseIfEmpty()
    }

    /// Takes an expiry: `true` when `timer` is the live arm of its kind (it is then disarmed).
    mutating func fire(_ timer: SessionTimer) -> Bool {
        guard let index = armed.firstIndex(of: timer) else { return false }
        armed.remove(at: index)
        releaseIfEmpty()
        return true
    }

    /// An idle session (hours of a call) has nothing armed: the list's storage goes with its last timer.
    private mutating func releaseIfEmpty() {
        if armed.isEmpty { armed = [] }
    }
}

/// SplitMix64, seeded once from the random source the owner injects: the glare back-off (RFC 3261 §14.1),
/// RSeq start values and Retry-After values need no more than that, and the session stays a small value.
struct SessionRandom: Sendable, Hashable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `range`, uniform enough for back-off.
    mutating func value(in range: ClosedRange<Int>) -> Int {
        let width = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(next() % width)
    }
}
