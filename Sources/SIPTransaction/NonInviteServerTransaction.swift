public import SIPMessage

/// The non-INVITE server transaction of RFC 3261 §17.2.2.
///
/// Trying: the request is with the TU and retransmissions are absorbed. A provisional response from the
/// TU moves it to Proceeding, where retransmissions get that response again. A final response moves it to
/// Completed, where retransmissions get the final response again until Timer J, and further responses from
/// the TU are discarded.
public struct NonInviteServerTransaction: Sendable {
    /// Figure 8 of RFC 3261.
    public enum State: Sendable, Hashable {
        case trying
        case proceeding
        case completed
        case terminated
    }

    public private(set) var state: State = .trying
    /// The request that created the transaction.
    public let request: SIPRequest
    /// Whether the transport is reliable: zero Timer J.
    public let isReliable: Bool
    public let timers: TransactionTimers
    /// The last response the TU sent.
    public private(set) var lastResponse: SIPResponse?

    /// A transaction for `request`, a received request other than INVITE and ACK.
    public init(request: SIPRequest, isReliable: Bool, timers: TransactionTimers = TransactionTimers()) {
        self.request = request
        self.isReliable = isReliable
        self.timers = timers
    }

    /// A retransmission of the request (§17.2.2).
    public mutating func receive(_ request: SIPRequest) -> [TransactionAction] {
        switch state {
        case .trying, .terminated:
            return []
        case .proceeding, .completed:
            guard let lastResponse else { return [] }
            return [.sendResponse(lastResponse)]
        }
    }

    /// A response from the TU; discarded (empty result) once a final response was sent.
    public mutating func send(_ response: SIPResponse) -> [TransactionAction] {
        let code = response.statusCode
        switch state {
        case .trying, .proceeding:
            switch code {
            case 100...199:
                state = .proceeding
                lastResponse = response
                return [.sendResponse(response)]
            case 200...699:
                lastResponse = response
                let j = timers.initialValue(of: .j, isReliable: isReliable)
                if j > .zero {
                    state = .completed
                    return [.sendResponse(response), .startTimer(.j, after: j)]
                }
                state = .terminated
                return [.sendResponse(response), .terminated]
            default:
                return []
            }
        case .completed, .terminated:
            return []
        }
    }

    /// One of this transaction's timers fired. Only Timer J in Completed has an effect.
    public mutating func timerFired(_ kind: TimerKind) -> [TransactionAction] {
        guard state == .completed, kind == .j else { return [] }
        state = .terminated
        return [.terminated]
    }

    /// The transport could not send a response (§17.2.4): the TU is told and the transaction ends.
    public mutating func transportError() -> [TransactionAction] {
        switch state {
        case .proceeding:
            state = .terminated
            return [.transportError, .terminated]
        case .completed:
            state = .terminated
            return [.cancelTimer(.j), .transportError, .terminated]
        case .trying, .terminated:
            return []
        }
    }
}
