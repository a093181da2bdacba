public import SIPMessage

/// The INVITE server transaction of RFC 3261 §17.2.1, with the Accepted state of RFC 6026 §8.7.
///
/// Proceeding: the INVITE is with the TU; 100 Trying goes out if the TU has not answered within
/// `TransactionTimers.tryingDelay`, and INVITE retransmissions get the last provisional response again.
/// A 2xx from the TU moves it to Accepted, where INVITE retransmissions are absorbed, further 2xx from the
/// TU are sent and ACKs go to the TU, until Timer L. A 300-699 moves it to Completed, where the response is
/// retransmitted on Timer G over unreliable transports until the ACK arrives (Confirmed, absorbing ACKs
/// until Timer I) or Timer H gives up.
public struct InviteServerTransaction: Sendable {
    /// Figure 7 of RFC 3261 as corrected by RFC 6026 §7.1.
    public enum State: Sendable, Hashable {
        case proceeding
        case completed
        case confirmed
        case accepted
        case terminated
    }

    public private(set) var state: State = .proceeding
    /// The INVITE that created the transaction.
    public let request: SIPRequest
    /// Whether the transport is reliable: no Timer G, zero Timer I.
    public let isReliable: Bool
    public let timers: TransactionTimers
    /// The last response sent (by the TU, or the transaction's own 100 Trying), while the transaction may
    /// send it again. In Accepted it sends nothing again (the TU retransmits its 2xx, RFC 6026 §8.7), so the
    /// 2xx is not kept for the 64*T1 the state lasts, unless `keepsResponseWhenAccepted`.
    public private(set) var lastResponse: SIPResponse?
    /// Keep the 2xx in Accepted: the owner sets it for an RFC 2543 INVITE (no branch cookie), whose ACK is
    /// matched by the To tag of that 2xx (§17.2.3).
    var keepsResponseWhenAccepted = false

    private var timerGInterval: Duration
    private var isTryingTimerArmed = false
    private var isStarted = false

    /// A transaction for `request`, a received INVITE; `start()` arms the 100 Trying timer.
    public init(request: SIPRequest, isReliable: Bool, timers: TransactionTimers = TransactionTimers()) {
        self.request = request
        self.isReliable = isReliable
        self.timers = timers
        self.timerGInterval = timers.initialValue(of: .g, isReliable: isReliable)
    }

    /// Arms the timer after which 100 Trying is sent unless the TU has answered, or sends it at once when
    /// the delay is zero (§17.2.1). The owner passes the INVITE to the TU. Only the first call has an effect.
    public mutating func start() -> [TransactionAction] {
        guard !isStarted, state == .proceeding else { return [] }
        isStarted = true
        let delay = timers.initialValue(of: .trying, isReliable: isReliable)
        guard delay > .zero else { return sendTrying() }
        isTryingTimerArmed = true
        return [.startTimer(.trying, after: delay)]
    }

    /// A request matched to this transaction (§17.2.3): an INVITE retransmission or an ACK.
    public mutating func receive(_ request: SIPRequest) -> [TransactionAction] {
        if request.method == .ack { return receiveACK(request) }
        switch state {
        case .proceeding:
            // §17.2.1: the most recent provisional response is sent again.
            guard let lastResponse else { return [] }
            return [.sendResponse(lastResponse)]
        case .completed:
            guard let lastResponse else { return [] }
            return [.sendResponse(lastResponse)]
        case .accepted, .confirmed, .terminated:
            // RFC 6026 §8.7: retransmissions in Accepted are absorbed, not passed to the TU.
            return []
        }
    }

    private mutating func receiveACK(_ ack: SIPRequest) -> [TransactionAction] {
        switch state {
        case .completed:
            var actions = [TransactionAction].reserved()
            if !isReliable { actions.append(.cancelTimer(.g)) }
            actions.append(.cancelTimer(.h))
            let i = timers.initialValue(of: .i, isReliable: isReliable)
            if i > .zero {
                state = .confirmed
                actions.append(.startTimer(.i, after: i))
            } else {
                state = .terminated
                actions.append(.terminated)
            }
            return actions
        case .accepted:
            // RFC 6026 §8.7: the ACK for a 2xx belongs to the TU.
            return [.passRequest(ack)]
        case .proceeding, .confirmed, .terminated:
            return []
        }
    }

    /// A response from the TU. Responses the state does not allow (a second final response, a provisional
    /// after a final) are discarded: the result is empty.
    public mutating func send(_ response: SIPResponse) -> [TransactionAction] {
        let code = response.statusCode
        switch state {
        case .proceeding:
            guard (100...699).contains(code) else { return [] }
            var actions = [TransactionAction].reserved()
            if isTryingTimerArmed {
                isTryingTimerArmed = false
                actions.append(.cancelTimer(.trying))
            }
            lastResponse = response
            actions.append(.sendResponse(response))
            switch code {
            case 100...199:
                break
            case 200...299:
                state = .accepted
                if !keepsResponseWhenAccepted { lastResponse = nil }
                actions.append(.startTimer(.l, after: timers.initialValue(of: .l, isReliable: isReliable)))
            default:
                state = .completed
                if !isReliable { actions.append(.startTimer(.g, after: timerGInterval)) }
                actions.append(.startTimer(.h, after: timers.initialValue(of: .h, isReliable: isReliable)))
            }
            return actions
        case .accepted:
            // RFC 6026 §8.7: the TU retransmits its 2xx through the transaction (§13.3.1.4).
            guard (200...299).contains(code) else { return [] }
            if keepsResponseWhenAccepted { lastResponse = response }
            return [.sendResponse(response)]
        case .completed, .confirmed, .terminated:
            return []
        }
    }

    /// One of this transaction's timers fired. Timers that do not apply to the current state are ignored.
    public mutating func timerFired(_ kind: TimerKind) -> [TransactionAction] {
        switch (state, kind) {
        case (.proceeding, .trying):
            guard isTryingTimerArmed else { return [] }
            isTryingTimerArmed = false
            return lastResponse == nil ? sendTrying() : []
        case (.completed, .g):
            guard let lastResponse else { return [] }
            timerGInterval = timers.nextInterval(after: timerGInterval, for: .g)
            return [.sendResponse(lastResponse), .startTimer(.g, after: timerGInterval)]
        case (.completed, .h):
            // §17.2.1: the ACK never came; the TU learns of the failure.
            state = .terminated
            var actions = [TransactionAction].reserved()
            if !isReliable { actions.append(.cancelTimer(.g)) }
            actions.append(.timeout)
            actions.append(.terminated)
            return actions
        case (.confirmed, .i), (.accepted, .l):
            state = .terminated
            return [.terminated]
        default:
            return []
        }
    }

    /// The transport could not send a response (§17.2.4). In Proceeding and Accepted the TU is told and
    /// the transaction stays (RFC 6026 §7.1: the TU may still answer, or Timer L ends it); in Completed it
    /// ends.
    public mutating func transportError() -> [TransactionAction] {
        switch state {
        case .proceeding, .accepted:
            return [.transportError]
        case .completed:
            state = .terminated
            var actions = [TransactionAction].reserved()
            if !isReliable { actions.append(.cancelTimer(.g)) }
            actions.append(.cancelTimer(.h))
            actions.append(.transportError)
            actions.append(.terminated)
            return actions
        case .confirmed, .terminated:
            return []
        }
    }

    private mutating func sendTrying() -> [TransactionAction] {
        let trying = ResponseBuilder.response(to: request, statusCode: 100, toTag: nil)
        lastResponse = trying
        return [.sendResponse(trying)]
    }
}
