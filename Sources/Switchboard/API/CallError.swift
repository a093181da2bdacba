/// The errors of the public API, named after CallKit's `CXErrorCodeRequestTransactionError` and
/// `CXErrorCodeIncomingCallError` where the case is the same, with SIP-specific additions.
public enum CallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A transaction with no action.
    case emptyTransaction
    /// No call has this UUID.
    case unknownCallUUID
    /// A call with this UUID already exists.
    case callUUIDAlreadyExists
    /// The action does not fit the call's state (answering an outgoing call, holding an ended one ...).
    case invalidAction(String)
    /// `maximumCalls` calls are already up.
    case maximumCallsReached
    /// The provider was invalidated or has not started.
    case providerUnavailable
    /// The handle cannot be turned into a SIP URI.
    case invalidHandle(String)
    /// The delegate failed the action.
    case actionFailed
    /// The delegate did not fulfil or fail the action in time.
    case actionTimedOut
    /// The provider could not start: no transport could listen, or the configuration is unusable.
    case configuration(String)
    /// No account has this identifier.
    case unknownAccount(String)

    public var description: String {
        switch self {
        case .emptyTransaction: "the transaction has no action"
        case .unknownCallUUID: "no call has this UUID"
        case .callUUIDAlreadyExists: "a call with this UUID already exists"
        case .invalidAction(let why): "invalid action: \(why)"
        case .maximumCallsReached: "the maximum number of calls is reached"
        case .providerUnavailable: "the provider is not running"
        case .invalidHandle(let value): "not a SIP address: \(value)"
        case .actionFailed: "the delegate failed the action"
        case .actionTimedOut: "the delegate did not complete the action in time"
        case .configuration(let why): "configuration: \(why)"
        case .unknownAccount(let id): "no account \(id)"
        }
    }
}
