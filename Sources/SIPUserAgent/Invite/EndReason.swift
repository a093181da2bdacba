public import SIPMessage

/// Why a call ended, for the API layer: a kind that maps to CallKit's end reasons, with the SIP status and
/// Reason values that told it (RFC 3326).
public struct EndReason: Sendable, Hashable, CustomStringConvertible {
    /// The kinds of ending; new kinds may be added.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        let name: String

        /// The other side sent BYE.
        public static let remoteEnded = Kind(name: "remote-ended")
        /// This side hung up, cancelled or rejected.
        public static let localEnded = Kind(name: "local-ended")
        /// 486 Busy Here.
        public static let busy = Kind(name: "busy")
        /// 603 Decline or 600 Busy Everywhere.
        public static let declined = Kind(name: "declined")
        /// The caller cancelled before the call was answered.
        public static let cancelledByCaller = Kind(name: "cancelled-by-caller")
        /// CANCEL with `Reason: SIP;cause=200` (RFC 3326): another device answered.
        public static let answeredElsewhere = Kind(name: "answered-elsewhere")
        /// CANCEL with `Reason: SIP;cause=603` or 600: another device declined.
        public static let declinedElsewhere = Kind(name: "declined-elsewhere")
        /// 408, Timer B, no ACK for the 2xx, no PRACK, or the session timer expired (RFC 4028).
        public static let timeout = Kind(name: "timeout")
        /// A transport failure or 503: the peer could not be reached.
        public static let unreachable = Kind(name: "unreachable")
        /// 488 or 606, or media that could not be negotiated.
        public static let notAcceptable = Kind(name: "not-acceptable")
        /// A 3xx: the call went nowhere, the Contact targets are in `SessionEvent.redirected`.
        public static let redirected = Kind(name: "redirected")
        /// The dialog was replaced by another (RFC 3891).
        public static let replaced = Kind(name: "replaced")
        /// The other side transferred the call (RFC 3515) and sent no BYE after the transfer succeeded:
        /// this side ended the old dialog (`InviteSession.transferHangUpDelay`).
        public static let transferred = Kind(name: "transferred")
        /// Any other failure response.
        public static let failed = Kind(name: "failed")

        public var description: String { name }
    }

    /// The kind of ending.
    public var kind: Kind
    /// The SIP status that ended the call, when a response did.
    public var statusCode: Int?
    /// The reason phrase of that response.
    public var reasonPhrase: String?
    /// The Reason values of the BYE, CANCEL or response that ended the call (RFC 3326).
    public var reasons: [Reason]

    /// - Parameters:
    ///   - kind: the kind of ending.
    ///   - statusCode: the SIP status, if a response ended the call.
    ///   - reasonPhrase: its reason phrase.
    ///   - reasons: Reason header values.
    public init(_ kind: Kind, statusCode: Int? = nil, reasonPhrase: String? = nil, reasons: [Reason] = []) {
        self.kind = kind
        self.statusCode = statusCode
        self.reasonPhrase = reasonPhrase
        self.reasons = reasons
    }

    /// The reason a final non-2xx response to the initial INVITE gives (RFC 3261 §21, issue 4's mapping).
    public init(response: SIPResponse) {
        let kind: Kind
        switch response.statusCode {
        case 300...399: kind = .redirected
        case 486: kind = .busy
        case 600, 603: kind = .declined
        case 408: kind = .timeout
        case 488, 606: kind = .notAcceptable
        case 503: kind = .unreachable
        default: kind = .failed
        }
        self.init(
            kind, statusCode: response.statusCode, reasonPhrase: response.reasonPhrase,
            reasons: (try? response.reason) ?? [])
    }

    /// The reason a CANCEL of an unanswered INVITE gives (RFC 3326): `cause=200` answered elsewhere,
    /// `cause=603` or `600` declined elsewhere, anything else cancelled by the caller.
    public init(cancel: SIPRequest) {
        let reasons = (try? cancel.reason) ?? []
        let cause = reasons.first { $0.protocol.lowercased() == "sip" }?.cause
        let kind: Kind
        switch cause {
        case 200: kind = .answeredElsewhere
        case 600, 603: kind = .declinedElsewhere
        default: kind = .cancelledByCaller
        }
        self.init(kind, reasons: reasons)
    }

    public var description: String {
        var text = kind.description
        if let statusCode { text += " \(statusCode)" }
        if let reasonPhrase { text += " \(reasonPhrase)" }
        for reason in reasons { text += " [\(reason)]" }
        return text
    }
}
