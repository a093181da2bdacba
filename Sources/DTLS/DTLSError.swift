public import SDP

/// Why a DTLS-SRTP association failed, or why a datagram or identity was refused.
///
/// Match with `error.code == .fingerprintMismatch`; the set of codes grows, so they are static members.
public struct DTLSError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: UInt8, Sendable {
            case fingerprintMismatch, noCommonSRTPProfile, handshakeTimeout, alertReceived, badRecord
            case handshakeFailed, unsupportedHashFunction, badIdentity, libraryFailure, notConnected, closed
        }

        private let value: Value

        private init(_ value: Value) { self.value = value }

        /// The certificate the peer presented does not match the `a=fingerprint` of its SDP (RFC 5763 §5,
        /// RFC 8122 §5).
        public static let fingerprintMismatch = Code(.fingerprintMismatch)
        /// The handshake ended without an SRTP protection profile both sides offer (RFC 5764 §4.1.2).
        public static let noCommonSRTPProfile = Code(.noCommonSRTPProfile)
        /// The handshake did not complete by its deadline.
        public static let handshakeTimeout = Code(.handshakeTimeout)
        /// The peer sent a fatal alert (RFC 5246 §7.2); ``DTLSError/alert`` says which.
        public static let alertReceived = Code(.alertReceived)
        /// A datagram that is not a sequence of whole DTLS records (RFC 6347 §4.1): dropped, state unchanged.
        public static let badRecord = Code(.badRecord)
        /// The handshake failed otherwise (a protocol error OpenSSL reported); the detail says how.
        public static let handshakeFailed = Code(.handshakeFailed)
        /// The peer's fingerprints name only hash functions the engine does not support (RFC 8122 §5).
        public static let unsupportedHashFunction = Code(.unsupportedHashFunction)
        /// A certificate or key could not be made or loaded, or they do not belong together.
        public static let badIdentity = Code(.badIdentity)
        /// OpenSSL failed otherwise (allocation, keying material export).
        public static let libraryFailure = Code(.libraryFailure)
        /// The operation needs a connected association.
        public static let notConnected = Code(.notConnected)
        /// The association was closed (a close_notify was sent or received).
        public static let closed = Code(.closed)

        public var description: String { "\(value)" }
    }

    /// What went wrong.
    public var code: Code
    /// The alert received, for `.alertReceived`.
    public var alert: DTLSAlert?
    /// The fingerprint the SDP gave, for `.fingerprintMismatch`.
    public var expectedFingerprint: Fingerprint?
    /// The fingerprint of the certificate presented (same hash function), for `.fingerprintMismatch`.
    public var presentedFingerprint: Fingerprint?
    /// Where and how, in words.
    public var detail: String

    /// - Parameters:
    ///   - code: what went wrong.
    ///   - detail: where and how.
    ///   - alert: the alert received, if any.
    public init(_ code: Code, _ detail: String, alert: DTLSAlert? = nil) {
        self.code = code
        self.detail = detail
        self.alert = alert
    }

    public var description: String { "\(code): \(detail)" }
}

/// A TLS alert (RFC 5246 §7.2): its level and description code, with OpenSSL's name for it.
public struct DTLSAlert: Hashable, Sendable, CustomStringConvertible {
    /// 1 for a warning, 2 for fatal.
    public var level: UInt8
    /// The AlertDescription code (e.g. 42 bad_certificate, 40 handshake_failure, 0 close_notify).
    public var code: UInt8
    /// OpenSSL's long name for the description ("bad certificate").
    public var name: String

    /// - Parameters:
    ///   - level: 1 warning, 2 fatal.
    ///   - code: the description code.
    ///   - name: its name.
    public init(level: UInt8, code: UInt8, name: String) {
        self.level = level
        self.code = code
        self.name = name
    }

    /// Whether the alert ends the association.
    public var isFatal: Bool { level == 2 }

    public var description: String { "\(isFatal ? "fatal" : "warning") alert \(code) (\(name))" }
}
