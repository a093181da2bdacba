/// Why a call ended, in CallKit's terms (`CXCallEndedReason`), plus `localEnded` for calls this side ended,
/// which CallKit never reports because the app itself asked for them.
///
/// A struct over a code rather than an enum, so a new reason is not a breaking change: a `switch` over a
/// reason needs a `default:`.
public struct CallEndedReason: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The reasons this version knows; internal so the library's own switches stay exhaustive.
    enum Code: String, CaseIterable {
        case failed, remoteEnded, unanswered, answeredElsewhere, declinedElsewhere, localEnded
        case connectivityLost, mediaSecurityFailed
    }

    /// The reason's code.
    let code: Code

    /// Wraps a known code.
    init(code: Code) { self.code = code }

    /// The reason's name, spelt as its static member (`remoteEnded`).
    public var rawValue: String { code.rawValue }

    /// The reason named `rawValue`, or `nil` for a name this version does not know.
    public init?(rawValue: String) {
        guard let code = Code(rawValue: rawValue) else { return nil }
        self.init(code: code)
    }

    /// The call failed: a 4xx, 5xx or 6xx other than the ones below, a transport failure, or media that
    /// could not be negotiated (488).
    public static let failed = CallEndedReason(code: .failed)
    /// The other side hung up (BYE), or transferred the call away (this side sends the BYE when the
    /// transferor does not; the phrase is then "transferred").
    public static let remoteEnded = CallEndedReason(code: .remoteEnded)
    /// Nobody answered: 408 or a timeout, or the caller cancelled before the answer.
    public static let unanswered = CallEndedReason(code: .unanswered)
    /// Another device answered (CANCEL with `Reason: SIP;cause=200`, RFC 3326).
    public static let answeredElsewhere = CallEndedReason(code: .answeredElsewhere)
    /// Declined: 603 or 600, or another device declined (CANCEL with `Reason: SIP;cause=603`).
    public static let declinedElsewhere = CallEndedReason(code: .declinedElsewhere)
    /// This side ended the call (an `EndCallAction`).
    public static let localEnded = CallEndedReason(code: .localEnded)
    /// Beyond CallKit (map it to `.failed`): the media path stopped answering ICE consent checks for 30 s
    /// (RFC 7675 §5.1), so media had to stop; this side sent the BYE.
    public static let connectivityLost = CallEndedReason(code: .connectivityLost)
    /// Beyond CallKit (map it to `.failed`): the media's DTLS-SRTP handshake failed (RFC 5763 §5), so no
    /// media could flow securely; `CallEndDetails.mediaSecurityFailure` says how (a fingerprint mismatch,
    /// a handshake timeout). This side sent the BYE, or the peer's BYE followed its own failure.
    public static let mediaSecurityFailed = CallEndedReason(code: .mediaSecurityFailed)

    /// Every reason this version knows, in declaration order.
    public static var allCases: [CallEndedReason] { Code.allCases.map(CallEndedReason.init(code:)) }

    /// The raw value (`remoteEnded`).
    public var description: String { rawValue }
}

/// The SIP facts behind an ended call, for the curious and for logs.
public struct CallEndDetails: Sendable, Hashable, CustomStringConvertible {
    /// The CallKit-shaped reason.
    public var reason: CallEndedReason
    /// The SIP status that ended the call (a final response, or the status this side sent); `nil` when a
    /// BYE, a CANCEL or a timer ended it.
    public var statusCode: Int?
    /// That response's reason phrase.
    public var reasonPhrase: String?
    /// The `Reason` header values (RFC 3326) that came with the end, as written (`SIP;cause=200;text="..."`).
    public var reasons: [String]
    /// For a call that failed because the transport could not carry its INVITE (status 503, made up by this
    /// side, RFC 3261 §8.1.3.1): why, typed. A TLS or WSS certificate failure also names itself in
    /// `reasonPhrase` (`TLS: certificate name mismatch`). `nil` otherwise.
    public var transportFailure: TransportFailure?
    /// For a call ended by `CallEndedReason.mediaSecurityFailed`: how the DTLS-SRTP handshake failed. `nil`
    /// otherwise.
    public var mediaSecurityFailure: MediaSecurityFailure?

    /// - Parameters:
    ///   - reason: the CallKit-shaped reason.
    ///   - statusCode: the SIP status.
    ///   - reasonPhrase: its phrase.
    ///   - reasons: Reason header values.
    public init(reason: CallEndedReason, statusCode: Int? = nil, reasonPhrase: String? = nil, reasons: [String] = []) {
        self.reason = reason
        self.statusCode = statusCode
        self.reasonPhrase = reasonPhrase
        self.reasons = reasons
    }

    public var description: String {
        var text = reason.rawValue
        if let statusCode { text += " \(statusCode)" }
        if let reasonPhrase { text += " \(reasonPhrase)" }
        return text
    }
}
