public import SIPMessage

/// The INVITE client transaction of RFC 3261 §17.1.1, with the Accepted state of RFC 6026 §8.4.
///
/// Calling: the INVITE is sent, retransmitted on Timer A over unreliable transports, abandoned on Timer B.
/// A 1xx moves it to Proceeding; a 2xx to Accepted, where 2xx retransmissions keep reaching the TU (which
/// sends the ACK for them) until Timer M; a 300-699 to Completed, where the transaction itself sends the
/// ACK and resends it for each retransmitted response until Timer D. Once the INVITE is cancelled, a final
/// response that has not come within 64*T1 never will: the transaction then ends as a timeout (§9.1).
public struct InviteClientTransaction: Sendable {
    /// Figure 5 of RFC 3261 as corrected by RFC 6026 §7.2.
    public enum State: Sendable, Hashable {
        case calling
        case proceeding
        case accepted
        case completed
        case terminated
    }

    public private(set) var state: State = .calling
    /// The INVITE as passed to the transport.
    public let request: SIPRequest
    /// Whether the transport is reliable (TCP, TLS, SCTP, WS): no retransmissions, zero Timer D.
    public let isReliable: Bool
    public let timers: TransactionTimers
    /// The ACK this transaction sent for a non-2xx final response, resent for each retransmission of it.
    public private(set) var ack: SIPRequest?

    private var timerAInterval: Duration
    private var isStarted = false
    /// Whether the CANCEL's wait (`TimerKind.cancelled`) is armed.
    private var isCancelWaitArmed = false

    /// A transaction for `request`, an INVITE whose top Via carries the branch; `start()` sends it.
    public init(request: SIPRequest, isReliable: Bool, timers: TransactionTimers = TransactionTimers()) {
        self.request = request
        self.isReliable = isReliable
        self.timers = timers
        self.timerAInterval = timers.initialValue(of: .a, isReliable: isReliable)
    }

    /// Sends the INVITE and arms Timer A (unreliable transports only) and Timer B (§17.1.1.2). Only the
    /// first call has an effect.
    public mutating func start() -> [TransactionAction] {
        guard !isStarted else { return [] }
        isStarted = true
        var actions = [TransactionAction].reserved()
        actions.append(.sendRequest(request))
        if !isReliable { actions.append(.startTimer(.a, after: timerAInterval)) }
        actions.append(.startTimer(.b, after: timers.initialValue(of: .b, isReliable: isReliable)))
        return actions
    }

    /// A response matched to this transaction (§17.1.3).
    public mutating func receive(_ response: SIPResponse) -> [TransactionAction] {
        let code = response.statusCode
        switch state {
        case .calling, .proceeding:
            var actions = [TransactionAction].reserved()
            if state == .calling { stopCallingTimers(&actions) }
            if (200...699).contains(code), isCancelWaitArmed {
                isCancelWaitArmed = false
                actions.append(.cancelTimer(.cancelled))
            }
            switch code {
            case 100...199:
                state = .proceeding
                actions.append(.passResponse(response))
            case 200...299:
                // RFC 6026 §8.4: no ACK here; the TU acknowledges every 2xx.
                state = .accepted
                actions.append(.passResponse(response))
                actions.append(.startTimer(.m, after: timers.initialValue(of: .m, isReliable: isReliable)))
            case 300...699:
                let ack = makeACK(for: response)
                self.ack = ack
                state = .completed
                actions.append(.sendRequest(ack))
                actions.append(.passResponse(response))
                enterWait(.d, &actions)
            default:
                return []
            }
            return actions
        case .accepted:
            // RFC 6026 §8.4: 2xx retransmissions (and 2xx from other forks) go to the TU; nothing else does.
            return (200...299).contains(code) ? [.passResponse(response)] : []
        case .completed:
            // §17.1.1.2: a retransmitted final response gets the ACK again and is not passed up.
            guard (300...699).contains(code), let ack else { return [] }
            return [.sendRequest(ack)]
        case .terminated:
            return []
        }
    }

    /// A CANCEL of this INVITE went out (§9.1): without a final response within 64*T1 the transaction is
    /// considered cancelled, reports a timeout and ends. Only the first CANCEL arms the wait; nothing once a
    /// final response came.
    public mutating func cancelSent() -> [TransactionAction] {
        guard state == .calling || state == .proceeding, !isCancelWaitArmed else { return [] }
        isCancelWaitArmed = true
        return [.startTimer(.cancelled, after: timers.initialValue(of: .cancelled, isReliable: isReliable))]
    }

    /// One of this transaction's timers fired. Timers that do not apply to the current state are ignored.
    public mutating func timerFired(_ kind: TimerKind) -> [TransactionAction] {
        switch (state, kind) {
        case (.calling, .a):
            timerAInterval = timers.nextInterval(after: timerAInterval, for: .a)
            return [.sendRequest(request), .startTimer(.a, after: timerAInterval)]
        case (.calling, .b), (.calling, .cancelled), (.proceeding, .cancelled):
            var actions = [TransactionAction].reserved()
            if state == .calling {
                if kind == .b {
                    if !isReliable { actions.append(.cancelTimer(.a)) }
                    if isCancelWaitArmed { actions.append(.cancelTimer(.cancelled)) }
                } else {
                    stopCallingTimers(&actions)
                }
            }
            isCancelWaitArmed = false
            state = .terminated
            actions.append(.timeout)
            actions.append(.terminated)
            return actions
        case (.completed, .d), (.accepted, .m):
            state = .terminated
            return [.terminated]
        default:
            return []
        }
    }

    /// The transport could not send the INVITE or the ACK (§17.1.4): the TU is told and the transaction ends.
    public mutating func transportError() -> [TransactionAction] {
        switch state {
        case .calling:
            var actions = [TransactionAction].reserved()
            stopCallingTimers(&actions)
            if isCancelWaitArmed { actions.append(.cancelTimer(.cancelled)) }
            isCancelWaitArmed = false
            state = .terminated
            actions.append(.transportError)
            actions.append(.terminated)
            return actions
        case .completed:
            state = .terminated
            return [.cancelTimer(.d), .transportError, .terminated]
        case .proceeding, .accepted, .terminated:
            // Nothing is being sent in these states.
            return []
        }
    }

    private func stopCallingTimers(_ actions: inout [TransactionAction]) {
        if !isReliable { actions.append(.cancelTimer(.a)) }
        actions.append(.cancelTimer(.b))
    }

    /// Arms a wait timer, or, when it is zero (reliable transports), terminates at once.
    private mutating func enterWait(_ kind: TimerKind, _ actions: inout [TransactionAction]) {
        let value = timers.initialValue(of: kind, isReliable: isReliable)
        if value > .zero {
            actions.append(.startTimer(kind, after: value))
        } else {
            state = .terminated
            actions.append(.terminated)
        }
    }
}
