public import SIPMessage

/// What one of the four transaction state machines asks its owner to do after an event. The owner (normally
/// a `TransactionLayer`) carries the actions out in order: it knows the peer address and the transaction's
/// identifier, the machine does not.
public enum TransactionAction: Sendable, Hashable {
    /// Pass a request to the transport: the original request, a retransmission of it, or the ACK an INVITE
    /// client transaction builds for a non-2xx final response (§17.1.1.3).
    case sendRequest(SIPRequest)
    /// Pass a response to the transport: one from the TU, a retransmission of the last one, or the 100 Trying
    /// an INVITE server transaction sends on its own (§17.2.1).
    case sendResponse(SIPResponse)
    /// Arm (or re-arm) the transaction's timer of this kind.
    case startTimer(TimerKind, after: Duration)
    /// Disarm the transaction's timer of this kind; it is armed.
    case cancelTimer(TimerKind)
    /// Pass a response up to the TU (client transactions, §17.1.1.2, §17.1.2.2; 2xx in Accepted, RFC 6026 §8.4).
    case passResponse(SIPResponse)
    /// Pass a request up to the TU: an ACK that reached an INVITE server transaction in Accepted (RFC 6026 §8.7).
    case passRequest(SIPRequest)
    /// Tell the TU the transaction timed out (Timers B, F, H).
    case timeout
    /// Tell the TU the transport failed to send one of the transaction's messages (§17.1.4, §17.2.4).
    case transportError
    /// The transaction is in the Terminated state and must be destroyed now (§17.1.1.2).
    case terminated
}

extension [TransactionAction] {
    /// An empty list with room for the most actions one event produces (five), so that building it costs
    /// one allocation rather than one per growth.
    static func reserved() -> [TransactionAction] {
        var actions: [TransactionAction] = []
        actions.reserveCapacity(5)
        return actions
    }
}
