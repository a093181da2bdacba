/// Why the media path's security failed and ended a call (`CallEndedReason.mediaSecurityFailed`): the DTLS-SRTP
/// handshake (RFC 5763, RFC 5764) did not give keys.
public struct MediaSecurityFailure: Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    ///
    /// A struct over a code rather than an enum, so a new kind is not a breaking change: a `switch` over a
    /// kind needs a `default:`.
    public struct Kind: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The kinds this version knows; internal so the library's own switches stay exhaustive.
        enum Code: String, CaseIterable {
            case fingerprintMismatch, handshakeTimeout, peerRefused, handshakeFailed
        }

        /// The kind's code.
        let code: Code

        /// Wraps a known code.
        init(code: Code) { self.code = code }

        /// The kind's name, spelt as its static member (`fingerprintMismatch`).
        public var rawValue: String { code.rawValue }

        /// The kind named `rawValue`, or `nil` for a name this version does not know.
        public init?(rawValue: String) {
            guard let code = Code(rawValue: rawValue) else { return nil }
            self.init(code: code)
        }

        /// The certificate the peer presented does not match the `a=fingerprint` of its SDP (RFC 5763 §5,
        /// RFC 8122 §5): someone else is on the media path, or the SDP was changed on its way.
        public static let fingerprintMismatch = Kind(code: .fingerprintMismatch)
        /// No DTLS association came up in time (the peer is silent, or the path drops DTLS).
        public static let handshakeTimeout = Kind(code: .handshakeTimeout)
        /// The peer ended the handshake with a fatal alert (it refused this side's certificate, say).
        public static let peerRefused = Kind(code: .peerRefused)
        /// The handshake failed otherwise (no common SRTP profile, a protocol error).
        public static let handshakeFailed = Kind(code: .handshakeFailed)

        /// Every kind this version knows, in declaration order.
        public static var allCases: [Kind] { Code.allCases.map(Kind.init(code:)) }

        /// The raw value.
        public var description: String { rawValue }
    }

    /// The kind of failure.
    public var kind: Kind
    /// What happened, in words (never key material).
    public var detail: String

    /// - Parameters:
    ///   - kind: the kind.
    ///   - detail: what happened.
    public init(_ kind: Kind, detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// The phrase a call ended by it reports: `DTLS fingerprint mismatch`, `DTLS handshake timeout`, ...
    public var reasonPhrase: String {
        switch kind.code {
        case .fingerprintMismatch: "DTLS fingerprint mismatch"
        case .handshakeTimeout: "DTLS handshake timeout"
        case .peerRefused: "DTLS refused by the peer"
        case .handshakeFailed: "DTLS handshake failed"
        }
    }

    public var description: String { "\(kind): \(detail)" }
}
