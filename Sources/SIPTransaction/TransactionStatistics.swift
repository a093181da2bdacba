/// Counters of what a `TransactionLayer` dropped, absorbed or answered on its own, for logs and metrics.
public struct TransactionStatistics: Sendable, Hashable {
    /// Messages that could not be matched at all: no usable top Via or CSeq, status out of range.
    public var dropped = 0
    /// Responses that matched no client transaction.
    public var strayResponses = 0
    /// Requests answered 482 as merged (§8.2.2.2).
    public var mergedRequests = 0
    /// Requests answered 503 because the table was full.
    public var overloadRejections = 0
    /// Retransmitted requests and responses absorbed by their transaction (nothing sent, nothing delivered).
    public var absorbed = 0
    /// Times the emptied table gave back the storage a burst grew past its reservation.
    public var shrinks = 0

    public init() {}
}
