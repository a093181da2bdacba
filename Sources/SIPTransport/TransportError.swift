#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Why a transport operation failed: system calls, connections, TLS verification, limits.
public struct TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let raw: UInt8
        public let description: String

        public static func == (a: Code, b: Code) -> Bool { a.raw == b.raw }
        public func hash(into hasher: inout Hasher) { hasher.combine(raw) }

        public static let system = Code(raw: 1, description: "system call failed")
        public static let connectionRefused = Code(raw: 2, description: "connection refused")
        public static let connectionClosed = Code(raw: 3, description: "connection closed")
        public static let timedOut = Code(raw: 4, description: "timed out")
        public static let untrustedCertificate = Code(raw: 5, description: "untrusted certificate issuer")
        public static let nameMismatch = Code(raw: 6, description: "certificate name mismatch")
        public static let expiredCertificate = Code(raw: 7, description: "certificate expired")
        public static let handshakeFailed = Code(raw: 8, description: "TLS handshake refused")
        public static let messageTooLarge = Code(raw: 9, description: "message too large")
        public static let tooManyConnections = Code(raw: 10, description: "too many connections")
        public static let flowDead = Code(raw: 11, description: "keep-alive pong not received")
        public static let unreachable = Code(raw: 12, description: "destination unreachable")
        public static let invalidAddress = Code(raw: 13, description: "invalid address")
        public static let notListening = Code(raw: 14, description: "no listener for this transport")
        public static let tlsConfiguration = Code(raw: 15, description: "TLS configuration error")
        /// The WebSocket upgrade was refused or malformed (RFC 6455 §4.1, §4.2.2): a wrong path, no `sip`
        /// subprotocol, a bad `Sec-WebSocket-Accept`.
        public static let webSocketUpgradeFailed = Code(raw: 16, description: "WebSocket upgrade refused")
    }

    public let code: Code
    /// Details: the system call and errno text, the certificate problem, the address.
    public let detail: String
    /// The errno of a failed system call.
    public let errno: Int32?

    package init(_ code: Code, _ detail: String, errno: Int32? = nil) {
        self.code = code
        self.detail = detail
        self.errno = errno
    }

    package static func system(_ call: String, errno: Int32) -> TransportError {
        let text = String(cString: strerror(errno))
        switch errno {
        case ECONNREFUSED: return TransportError(.connectionRefused, "\(call): \(text)", errno: errno)
        case ENETUNREACH, EHOSTUNREACH: return TransportError(.unreachable, "\(call): \(text)", errno: errno)
        case ETIMEDOUT: return TransportError(.timedOut, "\(call): \(text)", errno: errno)
        case ECONNRESET, EPIPE, ECONNABORTED:
            return TransportError(.connectionClosed, "\(call): \(text)", errno: errno)
        default: return TransportError(.system, "\(call): \(text)", errno: errno)
        }
    }

    public var description: String { "\(code): \(detail)" }

    /// Whether the process or the system ran out of descriptors or buffers (EMFILE, ENFILE, ENOBUFS,
    /// ENOMEM): trying another port cannot help, unlike EADDRINUSE.
    package var isResourceExhaustion: Bool {
        guard let errno else { return false }
        return errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM
    }
}
