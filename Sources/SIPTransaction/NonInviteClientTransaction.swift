public import SIPMessage

/// The non-INVITE client transaction of RFC 3261 §17.1.2.
///
/// Trying: the request is sent, retransmitted on Timer E over unreliable transports with intervals that
/// double up to T2, abandoned on Timer F. A 1xx moves it to Proceeding, where Timer E keeps firing every
/// T2. A final response goes to the TU and moves it to Completed, where response retransmissions are
/// absorbed until Timer K.
public struct NonInviteClientTransaction: Sendable {
    /// Figure 6 of RFC 3261.
    public enum State: Sendable, Hashable {
        case trying
        case proceeding
        case completed
        case terminated
    }

    public private(set) var state: State = .trying
    public let request: SIPRequest
    /// Whether the transport is reliable: no Timer E, zero Timer K.
    public let isReliable: Bool
    public let timers: TransactionTimers

    private var timerEInterval: Duration
    private var isStarted = false

    /// A transaction for `request` (neither INVITE nor ACK); `start()` sends it.
    public init(request: SIPRequest, isReliable: Bool, timers: TransactionTimers = TransactionTimers()) {
        self.request = request
        self.isReliable = isReliable
        self.timers = timers
        self.timerEInterval = timers.initialValue(of: .e, isReliable: isReliable)
    }

    /// Sends the request and arms Timer E (unreliable transports only) and Timer F. Only the first call has
    /// an effect.
    public mutating func start() -> [TransactionAction] {
        guard !isStarted else { return [] }
        isStarted = true
        var actions = [TransactionAction].reserved()
        actions.append(.sendRequest(request))
        if !isReliable { actions.append(.startTimer(.e, after: timerEInterval)) }
        actions.append(.startTimer(.f, after: timers.initialValue(of: .f, isReliable: isReliable)))
        return actions
    }

    /// A response matched to this transaction (§17.1.3).
    public mutating func receive(_ response: SIPResponse) -> [TransactionAction] {
        let code = response.statusCode
        switch state {
        case .trying, .proceeding:
            switch code {
            case 100...199:
                state = .proceeding
                return [.passResponse(response)]
            case 200...699:
                state = .completed
                var actions = [TransactionAction].reserved()
                stopTimers(&actions)
                actions.append(.passResponse(response))
                let k = timers.initialValue(of: .k, isReliable: isReliable)
                if k > .zero {
                    actions.append(.startTimer(.k, after: k))
                } else {
                    state = .terminated
                    actions.append(.terminated)
                }
                return actions
            default:
                return []
            }
        case .completed, .terminated:
            // §17.1.2.2: retransmitted responses are absorbed in Completed.
            return []
        }
    }

    /// One of this transaction's timers fired. Timers that do not apply to the current state are ignored.
    public mutating func timerFired(_ kind: TimerKind) -> [TransactionAction] {
        switch (state, kind) {
        case (.trying, .e):
            timerEInterval = timers.nextInterval(after: timerEInterval, for: .e)
            return [.sendRequest(request), .startTimer(.e, after: timerEInterval)]
        case (.proceeding, .e):
            // §17.1.2.2: in Proceeding the request is retransmitted every T2.
            timerEInterval = timers.t2
            return [.sendRequest(request), .startTimer(.e, after: timerEInterval)]
        case (.trying, .f), (.proceeding, .f):
            state = .terminated
            var actions = [TransactionAction].reserved()
            if !isReliable { actions.append(.cancelTimer(.e)) }
            actions.append(.timeout)
            actions.append(.terminated)
            return actions
        case (.completed, .k):
            state = .terminated
            return [.terminated]
        default:
            return []
        }
    }

    /// The transport could not send the request (§17.1.4): the TU is told and the transaction ends.
    public mutating func transportError() -> [TransactionAction] {
        switch state {
        case .trying, .proceeding:
            var actions = [TransactionAction].reserved()
            stopTimers(&actions)
            state = .terminated
            actions.append(.transportError)
            actions.append(.terminated)
            return actions
        case .completed, .terminated:
            return []
        }
    }

    private func stopTimers(_ actions: inout [TransactionAction]) {
        if !isReliable { actions.append(.cancelTimer(.e)) }
        actions.append(.cancelTimer(.f))
    }
}
