/// A STUN Binding client transaction (RFC 8489 §6.2, §6.3), sans-I/O: the driver passes events and the current
/// instant in, and carries out the ``STUNTransactionAction``s that come back.
///
/// Over UDP the request is retransmitted on the RTO schedule of ``STUNTransactionTimers``; over TCP or TLS it
/// is sent once and the transaction fails after Ti. A response is matched by transaction ID and method; other
/// datagrams are ignored. When the request carries MESSAGE-INTEGRITY, a success response must verify with the
/// same key or it is discarded (§9.1.4); error responses without integrity are accepted so that 401 and 438
/// challenges reach the caller.
public struct STUNBindingTransaction: Sendable {
    /// Where the transaction is; each state carries what it needs.
    public enum State: Hashable, Sendable {
        /// Built, not started.
        case idle
        /// Waiting for a response: how many times the request has been sent and when the timer fires.
        case waiting(sends: Int, deadline: STUNInstant)
        /// Over.
        case finished(STUNBindingOutcome)
    }

    /// The state.
    public private(set) var state: State = .idle
    /// The request.
    public let request: STUNMessage
    /// The request as sent.
    public let requestBytes: [UInt8]
    /// Whether the transport is reliable (TCP, TLS): one send and Ti.
    public let isReliable: Bool
    /// The retransmission parameters.
    public let timers: STUNTransactionTimers
    private let key: STUNKey?
    private var schedule: STUNRetransmissionSchedule

    /// A Binding request with a fresh transaction ID from `generator`.
    /// - Parameters:
    ///   - attributes: attributes for the request (USERNAME, PRIORITY, ...), in order.
    ///   - integrity: the key to sign the request with, and that success responses must verify with.
    ///   - fingerprint: whether to end the request with FINGERPRINT (ICE always does).
    ///   - isReliable: whether the transport is TCP or TLS.
    ///   - timers: RTO, Rc, Rm and Ti.
    ///   - generator: where the transaction ID comes from.
    public init(
        attributes: [STUNAttribute] = [], integrity: STUNIntegrity? = nil, fingerprint: Bool = false,
        isReliable: Bool, timers: STUNTransactionTimers = STUNTransactionTimers(),
        generator: inout some RandomNumberGenerator
    ) {
        let request = STUNMessage(
            .request, .binding, transactionID: .random(using: &generator), attributes: attributes)
        self.request = request
        self.requestBytes = request.encoded(integrity: integrity, fingerprint: fingerprint)
        self.isReliable = isReliable
        self.timers = timers
        self.key = integrity?.key
        self.schedule = STUNRetransmissionSchedule(isReliable: isReliable, timers: timers)
    }

    /// The transaction ID responses must carry.
    public var transactionID: STUNTransactionID { request.transactionID }

    /// Sends the request and arms the timer. Only the first call has an effect.
    public mutating func start(at now: STUNInstant) -> [STUNTransactionAction] {
        guard case .idle = state else { return [] }
        let deadline = schedule.start(at: now)
        state = .waiting(sends: schedule.sends, deadline: deadline)
        return [.send(requestBytes), .armTimer(at: deadline)]
    }

    /// The timer fired. A call before the armed instant, or after the end, does nothing.
    public mutating func timerFired(at now: STUNInstant) -> [STUNTransactionAction] {
        guard case .waiting = state, let step = schedule.fired(at: now) else { return [] }
        switch step {
        case .timeout: return finish(.timeout)
        case .retransmit(let next):
            state = .waiting(sends: schedule.sends, deadline: next)
            return [.send(requestBytes), .armTimer(at: next)]
        }
    }

    /// Bytes that arrived from the server; anything that is not a valid response to this request is ignored.
    public mutating func receive(_ bytes: [UInt8], at now: STUNInstant) -> [STUNTransactionAction] {
        guard case .waiting = state, let received = try? STUNReceivedMessage(decoding: bytes) else { return [] }
        return receive(received, at: now)
    }

    /// A decoded message that arrived from the server; anything that is not a valid response to this request
    /// is ignored.
    public mutating func receive(_ received: STUNReceivedMessage, at now: STUNInstant) -> [STUNTransactionAction] {
        guard case .waiting = state, matches(received.message) else { return [] }
        let response = received.message
        if let key,
            received.hasMessageIntegrity || received.hasMessageIntegritySHA256
                || response.messageClass == .successResponse
        {
            // §9.1.4: a response that fails the check is discarded as if it never came.
            guard received.isAuthentic(with: key) else { return [] }
        }
        // §6.3.3, §6.3.4: unknown comprehension-required attributes make the transaction fail.
        guard received.unknownRequiredAttributes.isEmpty else { return finish(.unusableResponse(response: response)) }
        switch response.messageClass {
        case .successResponse:
            guard let address = response.xorMappedAddress ?? response.mappedAddress else {
                return finish(.unusableResponse(response: response))
            }
            return finish(.success(mappedAddress: address, response: response))
        default:
            guard let (code, reason) = response.errorCode else { return finish(.unusableResponse(response: response)) }
            return finish(.errorResponse(code: code, reason: reason, response: response))
        }
    }

    /// Whether `message` is a response to this transaction: same transaction ID, Binding, a response class.
    public func matches(_ message: STUNMessage) -> Bool {
        message.transactionID == transactionID && message.method == .binding
            && (message.messageClass == .successResponse || message.messageClass == .errorResponse)
    }

    private mutating func finish(_ outcome: STUNBindingOutcome) -> [STUNTransactionAction] {
        state = .finished(outcome)
        return [.finished(outcome)]
    }
}
