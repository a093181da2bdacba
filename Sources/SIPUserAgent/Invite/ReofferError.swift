/// Why a session refused a re-offer asked for from this side, before sending anything.
///
/// A struct over a private code, so that new codes do not break users. Compare with `==`
/// (`error == .offerInProgress`).
public struct ReofferError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case notConfirmed, offerInProgress, noDTLSAssociation
    }

    private let code: Code

    private init(_ code: Code) { self.code = code }

    /// The dialog is not confirmed (RFC 3261 §14.1: a re-INVITE needs an established session), or the call
    /// has ended.
    public static let notConfirmed = ReofferError(.notConfirmed)
    /// An offer is outstanding either way, an INVITE transaction is in progress, or a re-offer already waits
    /// for its turn (RFC 3261 §14.1, RFC 6337 §3.2).
    public static let offerInProgress = ReofferError(.offerInProgress)
    /// The session in force has no DTLS-SRTP association to renew (RFC 8842 §5.2).
    public static let noDTLSAssociation = ReofferError(.noDTLSAssociation)

    public var description: String {
        switch code {
        case .notConfirmed: "the session is not established"
        case .offerInProgress: "an offer or INVITE transaction is in progress"
        case .noDTLSAssociation: "the session has no DTLS association"
        }
    }
}
