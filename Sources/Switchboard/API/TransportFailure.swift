/// Why the connection a request needed could not carry it: the transport's own reason behind a call that
/// ended with a 503 this side made up (RFC 3261 §8.1.3.1) or a registration that failed with
/// `transportClosed`. TLS and WSS verification failures (RFC 5246 §7.2, RFC 6125 §6) name the fault, so a
/// certificate for another host reads as such instead of a bare "Transport Error".
public struct TransportFailure: Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    ///
    /// A struct over a code rather than an enum, so a new kind is not a breaking change: a `switch` over a
    /// kind needs a `default:`.
    public struct Kind: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The kinds this version knows; internal so the library's own switches stay exhaustive.
        enum Code: String, CaseIterable {
            case certificateNameMismatch, untrustedCertificate, expiredCertificate, tlsHandshakeFailed
            case webSocketUpgradeRefused, connectionRefused, connectionClosed, unreachable, timedOut, other
        }

        /// The kind's code.
        let code: Code

        /// Wraps a known code.
        init(code: Code) { self.code = code }

        /// The kind's name, spelt as its static member (`certificateNameMismatch`).
        public var rawValue: String { code.rawValue }

        /// The kind named `rawValue`, or `nil` for a name this version does not know.
        public init?(rawValue: String) {
            guard let code = Code(rawValue: rawValue) else { return nil }
            self.init(code: code)
        }

        /// The server's certificate does not name the host asked for (RFC 6125 §6).
        public static let certificateNameMismatch = Kind(code: .certificateNameMismatch)
        /// The server's certificate chain does not lead to a trusted CA (`tls.trustedCAFile`).
        public static let untrustedCertificate = Kind(code: .untrustedCertificate)
        /// The server's certificate is expired or not yet valid.
        public static let expiredCertificate = Kind(code: .expiredCertificate)
        /// The TLS handshake failed for another reason (no shared version or cipher, a refused alert).
        public static let tlsHandshakeFailed = Kind(code: .tlsHandshakeFailed)
        /// The WebSocket server refused the upgrade (a wrong path, no `sip` subprotocol; RFC 6455 §4.1).
        public static let webSocketUpgradeRefused = Kind(code: .webSocketUpgradeRefused)
        /// Nothing listens at the address (a TCP reset to the connection attempt).
        public static let connectionRefused = Kind(code: .connectionRefused)
        /// The connection closed or broke before the request got through.
        public static let connectionClosed = Kind(code: .connectionClosed)
        /// No route to the address.
        public static let unreachable = Kind(code: .unreachable)
        /// The connection could not be made in time.
        public static let timedOut = Kind(code: .timedOut)
        /// Anything else (a system call, a limit): see `detail`.
        public static let other = Kind(code: .other)

        /// Every kind this version knows, in declaration order.
        public static var allCases: [Kind] { Code.allCases.map(Kind.init(code:)) }

        /// Whether the failure is the TLS (or WSS) handshake's: a certificate check or the handshake itself.
        public var isTLS: Bool {
            switch code {
            case .certificateNameMismatch, .untrustedCertificate, .expiredCertificate, .tlsHandshakeFailed: true
            default: false
            }
        }

        /// The raw value (`certificateNameMismatch`).
        public var description: String { rawValue }
    }

    /// The kind of failure.
    public var kind: Kind
    /// What the transport said: the certificate problem, the system call and its error, the address.
    public var detail: String

    /// - Parameters:
    ///   - kind: the kind of failure.
    ///   - detail: the transport's description of it.
    public init(kind: Kind, detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// The short phrase a call's end shows for a TLS failure in place of "Transport Error"
    /// (`TLS: certificate name mismatch`); `nil` for other failures, whose phrase stays as it was.
    public var reasonPhrase: String? {
        switch kind.code {
        case .certificateNameMismatch: "TLS: certificate name mismatch"
        case .untrustedCertificate: "TLS: untrusted certificate"
        case .expiredCertificate: "TLS: certificate expired"
        case .tlsHandshakeFailed: "TLS: handshake failed"
        default: nil
        }
    }

    /// `TLS: certificate name mismatch (the certificate does not name this server)`, `connectionRefused:
    /// connect: Connection refused`; for `other`, the detail alone.
    public var description: String {
        if let reasonPhrase { return "\(reasonPhrase) (\(detail))" }
        if kind == .other { return detail }
        return "\(kind.rawValue): \(detail)"
    }
}
