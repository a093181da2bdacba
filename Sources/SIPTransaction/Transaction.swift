import SIPMessage

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

    // MARK: Events, forwarded to the machine

    mutating func start() -> [TransactionAction] {
        switch self {
        case .inviteClient(var t):
            defer { self = .inviteClient(t) }
            return t.start()
        case .nonInviteClient(var t):
            defer { self = .nonInviteClient(t) }
            return t.start()
        case .inviteServer(var t):
            defer { self = .inviteServer(t) }
            return t.start()
        case .nonInviteServer:
            return []
        }
    }

    mutating func receive(_ response: SIPResponse) -> [TransactionAction] {
        switch self {
        case .inviteClient(var t):
            defer { self = .inviteClient(t) }
            return t.receive(response)
        case .nonInviteClient(var t):
            defer { self = .nonInviteClient(t) }
            return t.receive(response)
        case .inviteServer, .nonInviteServer:
            return []
        }
    }

    mutating func receive(_ request: SIPRequest) -> [TransactionAction] {
        switch self {
        case .inviteServer(var t):
            defer { self = .inviteServer(t) }
            return t.receive(request)
        case .nonInviteServer(var t):
            defer { self = .nonInviteServer(t) }
            return t.receive(request)
        case .inviteClient, .nonInviteClient:
            return []
        }
    }

    mutating func send(_ response: SIPResponse) -> [TransactionAction] {
        switch self {
        case .inviteServer(var t):
            defer { self = .inviteServer(t) }
            return t.send(response)
        case .nonInviteServer(var t):
            defer { self = .nonInviteServer(t) }
            return t.send(response)
        case .inviteClient, .nonInviteClient:
            return []
        }
    }

    mutating func timerFired(_ kind: TimerKind) -> [TransactionAction] {
        switch self {
        case .inviteClient(var t):
            defer { self = .inviteClient(t) }
            return t.timerFired(kind)
        case .nonInviteClient(var t):
            defer { self = .nonInviteClient(t) }
            return t.timerFired(kind)
        case .inviteServer(var t):
            defer { self = .inviteServer(t) }
            return t.timerFired(kind)
        case .nonInviteServer(var t):
            defer { self = .nonInviteServer(t) }
            return t.timerFired(kind)
        }
    }

    mutating func transportError() -> [TransactionAction] {
        switch self {
        case .inviteClient(var t):
            defer { self = .inviteClient(t) }
            return t.transportError()
        case .nonInviteClient(var t):
            defer { self = .nonInviteClient(t) }
            return t.transportError()
        case .inviteServer(var t):
            defer { self = .inviteServer(t) }
            return t.transportError()
        case .nonInviteServer(var t):
            defer { self = .nonInviteServer(t) }
            return t.transportError()
        }
    }
}
