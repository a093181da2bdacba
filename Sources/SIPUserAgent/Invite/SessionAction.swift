import SDP
public import SIPMessage

/// Names a client transaction a session or subscription asked the driver to start. The session chooses it;
/// the driver keeps it next to the transaction it started and hands it back with each response, timeout,
/// transport error and the transaction's end.
public struct RequestToken: Sendable, Hashable, CustomStringConvertible {
    /// The number; unique within one session.
    public let rawValue: UInt32

    /// A token from its number.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public var description: String { "req\(rawValue)" }
}

/// Names a server transaction the driver created for a received request (SIPCore's `TransactionID.rawValue`
/// fits); the session answers through it.
public struct ServerTransactionToken: Sendable, Hashable, CustomStringConvertible {
    /// The driver's number.
    public let rawValue: UInt64

    /// A token from the driver's number.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public var description: String { "srv\(rawValue)" }
}

/// A timer a session or subscription armed. The driver runs it and reports its expiry with the same value;
/// an expiry of a timer that was cancelled or re-armed since is recognised and ignored.
public struct SessionTimer: Sendable, Hashable, CustomStringConvertible {
    /// What the timer is for.
    public enum Kind: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The UAS re-sends its 2xx to an INVITE until the ACK arrives (RFC 3261 §13.3.1.4).
        case retransmit2xx
        /// The UAS gives up waiting for the ACK of its 2xx after 64*T1 and sends BYE (§13.3.1.4).
        case ackTimeout
        /// The UAS re-sends its reliable provisional response until the PRACK arrives (RFC 3262 §3).
        case retransmitProvisional
        /// The UAS gives up on the PRACK after 64*T1 and rejects the INVITE with a 5xx (RFC 3262 §3).
        case provisionalTimeout
        /// The back-off after a 491 before the re-INVITE or UPDATE is tried again (RFC 3261 §14.1).
        case glareRetry
        /// The refresher sends a session refresh at half the session interval (RFC 4028 §10).
        case sessionRefresh
        /// The session ends with BYE when no refresh arrived in time (RFC 4028 §10).
        case sessionExpiry
        /// A subscription is refreshed before it expires (RFC 6665 §4.1.2.1).
        case subscriptionRefresh
        /// A subscription has expired, or its first NOTIFY did not arrive in 64*T1 (RFC 6665 §4.1.2.4).
        case subscriptionTimeout
        /// A terminated subscription with `retry-after` is tried again (RFC 6665 §4.1.3).
        case subscriptionRetry
        /// A subscription that stayed active this long counts as established: its retry back-off starts over.
        case subscriptionSettled
        /// The transferee ends the old dialog itself when the transferor sent no BYE after the final NOTIFY
        /// of a successful transfer (RFC 5589 §6; `InviteSession.transferHangUpDelay`).
        case transferHangUp

        public var description: String {
            switch self {
            case .retransmit2xx: "2xx"
            case .ackTimeout: "ack-timeout"
            case .retransmitProvisional: "1xx"
            case .provisionalTimeout: "prack-timeout"
            case .glareRetry: "glare"
            case .sessionRefresh: "refresh"
            case .sessionExpiry: "expiry"
            case .subscriptionRefresh: "subscription-refresh"
            case .subscriptionTimeout: "subscription-timeout"
            case .subscriptionRetry: "subscription-retry"
            case .subscriptionSettled: "subscription-settled"
            case .transferHangUp: "transfer-hang-up"
            }
        }
    }

    /// What the timer is for.
    public let kind: Kind
    /// Distinguishes successive arms of the same kind.
    public let generation: UInt32

    /// A timer from its parts (the driver only stores and returns timers; sessions make them).
    public init(kind: Kind, generation: UInt32) {
        self.kind = kind
        self.generation = generation
    }

    public var description: String { "\(kind)#\(generation)" }
}

/// How a client transaction failed without a final response.
public enum TransactionFailure: Sendable, Hashable {
    /// Timer B or F fired (RFC 3261 §17.1): no final response in 64*T1.
    case timeout
    /// The transport could not deliver the request.
    case transportError
}

/// What a session or subscription asks its driver to do.
///
/// The cases carrying a request are boxed (indirect): a request with its next hop is more than twice the size
/// of a response, and every action a call makes would otherwise be moved and destroyed at that size.
public enum SessionAction: Sendable {
    /// Send `request` in a new client transaction to `nextHop` (RFC 3261 §8.1.2: the first route, or the
    /// Request-URI) and report its outcome with `token`. The request has no Via: the driver adds one with a
    /// new branch.
    indirect case sendRequest(SIPRequest, token: RequestToken, nextHop: URI)
    /// Send a CANCEL for the INVITE sent under `cancelling` (RFC 3261 §9.1) in a new client transaction; the
    /// driver gives it the INVITE's top Via (same branch) and sends it where the INVITE went.
    indirect case sendCancel(SIPRequest, token: RequestToken, cancelling: RequestToken)
    /// Send `response` through the server transaction `transaction`.
    case sendResponse(SIPResponse, transaction: ServerTransactionToken)
    /// Send the ACK for a 2xx (RFC 3261 §13.2.2.4) outside any transaction, straight to the transport, to
    /// `nextHop`; the driver adds a Via with a new branch.
    indirect case sendACK(SIPRequest, nextHop: URI)
    /// Arm `timer` to fire after `after`, replacing nothing: each arm is a new value.
    case startTimer(SessionTimer, after: Duration)
    /// Disarm `timer`; an expiry that races the cancel is ignored by the session anyway.
    case cancelTimer(SessionTimer)
    /// Route requests and ACKs of this dialog to the session from now on.
    case dialogCreated(DialogID)
    /// Stop routing this dialog to the session (§12.2.2: its requests get 481 from the driver).
    case dialogTerminated(DialogID)
    /// Tell the transaction user.
    case event(SessionEvent)
    /// The session has nothing left to do (no transaction, no timer): the driver may drop it.
    case finished
}
