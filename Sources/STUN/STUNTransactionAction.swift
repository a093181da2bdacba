/// What a ``STUNBindingTransaction`` asks its driver to do, in order.
public enum STUNTransactionAction: Hashable, Sendable {
    /// Send these bytes to the server (the request, or a retransmission of it).
    case send([UInt8])
    /// Arm (or re-arm) the transaction's one timer to fire at this instant; call
    /// ``STUNBindingTransaction/timerFired(at:)`` then.
    case armTimer(at: STUNInstant)
    /// The transaction is over; nothing more will come from it and its timer can be disarmed.
    case finished(STUNBindingOutcome)
}

/// How a Binding transaction ended.
public enum STUNBindingOutcome: Hashable, Sendable {
    /// A success response: the reflexive transport address (XOR-MAPPED-ADDRESS, or MAPPED-ADDRESS from an
    /// RFC 3489 server) and the response.
    case success(mappedAddress: STUNTransportAddress, response: STUNMessage)
    /// An error response: its code, reason phrase and the response (e.g. 401 or 438 with REALM and NONCE).
    case errorResponse(code: STUNErrorCode, reason: String, response: STUNMessage)
    /// No valid response came in time (§6.2.1, §6.2.2).
    case timeout
    /// A response that ends the transaction in failure without an answer (§6.3.3, §6.3.4): it has
    /// comprehension-required attributes this module does not know, or a success lacks a mapped address, or an
    /// error lacks ERROR-CODE.
    case unusableResponse(response: STUNMessage)
}
