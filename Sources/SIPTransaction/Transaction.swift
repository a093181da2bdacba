public import SIPMessage

/// One transaction of a `TransactionLayer`: one of the four state machines of RFC 3261 §17.
public enum Transaction: Sendable {
    case inviteClient(InviteClientTransaction)
    case nonInviteClient(NonInviteClientTransaction)
    case inviteServer(InviteServerTransaction)
    case nonInviteServer(NonInviteServerTransaction)

    /// The request that created the transaction.
    public var request: SIPRequest {
        switch self {
        case .inviteClient(let t): t.request
        case .nonInviteClient(let t): t.request
        case .inviteServer(let t): t.request
        case .nonInviteServer(let t): t.request
        }
    }

    /// Whether the transaction runs over a reliable transport.
    public var isReliable: Bool {
        switch self {
        case .inviteClient(let t): t.isReliable
        case .nonInviteClient(let t): t.isReliable
        case .inviteServer(let t): t.isReliable
        case .nonInviteServer(let t): t.isReliable
        }
    }

    /// Whether this is a client transaction (it sent the request).
    public var isClient: Bool {
        switch self {
        case .inviteClient, .nonInviteClient: true
        case .inviteServer, .nonInviteServer: false
        }
    }

    /// The last response a server transaction sent; `nil` for client transactions.
    public var lastResponse: SIPResponse? {
        switch self {
        case .inviteServer(let t): t.lastResponse
        case .nonInviteServer(let t): t.lastResponse
        case .inviteClient, .nonInviteClient: nil
        }
    }
}
