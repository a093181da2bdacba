/// The errors of the public API, named after CallKit's `CXErrorCodeRequestTransactionError` and
/// `CXErrorCodeIncomingCallError` where the case is the same, with SIP-specific additions.
///
/// A struct over a kind and an optional detail, as async-http-client's `HTTPClientError` is, so a new
/// error is not a breaking change. Compare with `==` (`error == .unknownCallUUID`), or `switch error.kind`
/// with a `default:`; the text behind `invalidAction(_:)`, `invalidHandle(_:)`, `configuration(_:)` and
/// `unknownAccount(_:)` is `detail`.
public struct CallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, without the detail: a struct with static members, so a `switch` over it needs a
    /// `default:` and new kinds do not break it.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kinds this version knows; internal so the library's own switches stay exhaustive.
        enum Code: String, CaseIterable {
            case emptyTransaction, unknownCallUUID, callUUIDAlreadyExists, invalidAction, maximumCallsReached
            case providerUnavailable, invalidHandle, actionFailed, actionTimedOut, configuration, unknownAccount
        }

        /// The kind's code.
        let code: Code

        /// Wraps a known code.
        init(code: Code) { self.code = code }

        /// A transaction with no action.
        public static let emptyTransaction = Kind(code: .emptyTransaction)
        /// No call has this UUID.
        public static let unknownCallUUID = Kind(code: .unknownCallUUID)
        /// A call with this UUID already exists.
        public static let callUUIDAlreadyExists = Kind(code: .callUUIDAlreadyExists)
        /// The action does not fit the call's state; the detail says why.
        public static let invalidAction = Kind(code: .invalidAction)
        /// `maximumCalls` calls are already up.
        public static let maximumCallsReached = Kind(code: .maximumCallsReached)
        /// The provider was invalidated or has not started.
        public static let providerUnavailable = Kind(code: .providerUnavailable)
        /// The handle cannot be turned into a SIP URI; the detail is the handle's value.
        public static let invalidHandle = Kind(code: .invalidHandle)
        /// The delegate failed the action.
        public static let actionFailed = Kind(code: .actionFailed)
        /// The delegate did not fulfil or fail the action in time.
        public static let actionTimedOut = Kind(code: .actionTimedOut)
        /// The provider could not start or the configuration is unusable; the detail says why.
        public static let configuration = Kind(code: .configuration)
        /// No account has this identifier; the detail is the identifier.
        public static let unknownAccount = Kind(code: .unknownAccount)

        /// The kind's name, spelt as its static member (`unknownCallUUID`).
        public var description: String { code.rawValue }
    }

    /// What went wrong.
    public let kind: Kind
    /// The text that comes with `invalidAction`, `invalidHandle`, `configuration` and `unknownAccount`;
    /// `nil` for the others.
    public let detail: String?

    /// An error of `kind` with `detail`.
    init(_ kind: Kind, detail: String? = nil) {
        self.kind = kind
        self.detail = detail
    }

    /// A transaction with no action.
    public static let emptyTransaction = CallError(.emptyTransaction)
    /// No call has this UUID.
    public static let unknownCallUUID = CallError(.unknownCallUUID)
    /// A call with this UUID already exists.
    public static let callUUIDAlreadyExists = CallError(.callUUIDAlreadyExists)
    /// `maximumCalls` calls are already up.
    public static let maximumCallsReached = CallError(.maximumCallsReached)
    /// The provider was invalidated or has not started.
    public static let providerUnavailable = CallError(.providerUnavailable)
    /// The delegate failed the action.
    public static let actionFailed = CallError(.actionFailed)
    /// The delegate did not fulfil or fail the action in time.
    public static let actionTimedOut = CallError(.actionTimedOut)

    /// The action does not fit the call's state (answering an outgoing call, holding an ended one ...).
    /// - Parameter why: what does not fit; the error's `detail`.
    public static func invalidAction(_ why: String) -> CallError { CallError(.invalidAction, detail: why) }

    /// The handle cannot be turned into a SIP URI.
    /// - Parameter value: the handle's value; the error's `detail`.
    public static func invalidHandle(_ value: String) -> CallError { CallError(.invalidHandle, detail: value) }

    /// The provider could not start: no transport could listen, or the configuration is unusable.
    /// - Parameter why: what is wrong; the error's `detail`.
    public static func configuration(_ why: String) -> CallError { CallError(.configuration, detail: why) }

    /// No account has this identifier.
    /// - Parameter id: the identifier; the error's `detail`.
    public static func unknownAccount(_ id: String) -> CallError { CallError(.unknownAccount, detail: id) }

    /// What went wrong, in a sentence (the texts the enum this type replaced printed).
    public var description: String {
        let detail = detail ?? ""
        return switch kind.code {
        case .emptyTransaction: "the transaction has no action"
        case .unknownCallUUID: "no call has this UUID"
        case .callUUIDAlreadyExists: "a call with this UUID already exists"
        case .invalidAction: "invalid action: \(detail)"
        case .maximumCallsReached: "the maximum number of calls is reached"
        case .providerUnavailable: "the provider is not running"
        case .invalidHandle: "not a SIP address: \(detail)"
        case .actionFailed: "the delegate failed the action"
        case .actionTimedOut: "the delegate did not complete the action in time"
        case .configuration: "configuration: \(detail)"
        case .unknownAccount: "no account \(detail)"
        }
    }
}
