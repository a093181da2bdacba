public import SIPMessage

extension TransactionLayer {
    /// What the driver must do after an event, in order. Every case is a plain value.
    public enum Action: Sendable, Hashable {
        /// Pass `message` to the transport for `to` (for responses the transport applies §18.2.2 and RFC
        /// 3581 itself). `transaction` names the transaction that sent it, so a failure can be reported
        /// with `transportError(_:)`; it is `nil` for the layer's stateless answers (503).
        case send(Message, to: Address, transaction: TransactionID?)
        /// Arm a timer; when it expires, call `timerFired(_:)` with the same identifier. A timer that is
        /// already armed is re-armed.
        case startTimer(TimerID, after: Duration)
        /// Disarm a timer. A timer that fires anyway (it was already queued) is ignored by the layer.
        case cancelTimer(TimerID)
        /// Hand an event to the transaction user (the UA core, a proxy core).
        case deliver(Event)
    }

    /// What the transaction layer tells its user (§17: "passed to the TU").
    public enum Event: Sendable, Hashable {
        /// A new request created server transaction `transaction`; answer through
        /// `sendResponse(_:in:)`. Never an ACK or a CANCEL.
        case request(SIPRequest, transaction: TransactionID, source: Address)
        /// A new CANCEL created server transaction `transaction` (answer it: 200, or 481 when `cancelling`
        /// is `nil`, §9.2). `cancelling` is the INVITE server transaction it matches by §17.2.3 with the
        /// method taken as INVITE; it may already have sent a final response (then CANCEL has no effect).
        case cancel(SIPRequest, transaction: TransactionID, cancelling: TransactionID?, source: Address)
        /// An ACK that is not part of an INVITE transaction: the ACK for a 2xx (§17.2.3, §13.3.1.4).
        /// `transaction` is the INVITE server transaction in Accepted when the ACK matched one (RFC 6026
        /// §8.7), `nil` when it matched none (the usual case: the ACK of a 2xx has its own branch).
        case ack(SIPRequest, transaction: TransactionID?, source: Address)
        /// A response for client transaction `transaction`: provisional and final responses (§17.1.1.2,
        /// §17.1.2.2), and in Accepted every further 2xx (RFC 6026 §8.4), which the TU must ACK.
        case response(SIPResponse, transaction: TransactionID)
        /// A well-formed response that matches no client transaction (§18.1.2). RFC 6026, updating
        /// §18.1.2, has every element but a stateless proxy discard it; it is delivered so that the core can
        /// log it (or, as a stateless proxy, forward it).
        case strayResponse(SIPResponse, source: Address)
        /// The transaction timed out: Timer B or F (no final response) or Timer H (no ACK).
        case timeout(TransactionID)
        /// The transport failed to send one of the transaction's messages (§17.1.4, §17.2.4).
        case transportError(TransactionID)
        /// The transaction reached Terminated; the layer has forgotten it.
        case terminated(TransactionID)
    }
}
