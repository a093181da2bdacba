/// Why SRTP could not protect or unprotect a packet, or a session could not be created.
///
/// Authentication failures and replays are expected on the open Internet (spoofed or duplicated packets):
/// the session counts them and the caller drops the packet. Match with `error.code == .authenticationFailed`.
public struct SRTPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; grows over time, so match against the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: UInt8, Sendable {
            case authenticationFailed, replayed, malformedPacket, bufferTooSmall, badKey, unsupportedSuite
            case unknownMKI, wrongDirection, libraryFailure, keyExhausted
        }

        private let value: Value

        private init(_ value: Value) { self.value = value }

        /// The authentication tag did not verify (RFC 3711 §3.3, step 5): forged, corrupted or wrong key.
        public static let authenticationFailed = Code(.authenticationFailed)
        /// The packet index was seen before or is behind the replay window (RFC 3711 §3.3.2).
        public static let replayed = Code(.replayed)
        /// Too short for its header, or a header whose CSRCs or extension overrun it.
        public static let malformedPacket = Code(.malformedPacket)
        /// The buffer has no room for the authentication tag (and MKI, SRTCP index).
        public static let bufferTooSmall = Code(.bufferTooSmall)
        /// The master key and salt are not the suite's length (30 bytes for AES_CM_128 suites, 28 for
        /// AEAD_AES_128_GCM).
        public static let badKey = Code(.badKey)
        /// A crypto suite this implementation does not provide.
        public static let unsupportedSuite = Code(.unsupportedSuite)
        /// The packet carries an MKI we were not given (RFC 3711 §3.1).
        public static let unknownMKI = Code(.unknownMKI)
        /// Protecting with an inbound session or unprotecting with an outbound one.
        public static let wrongDirection = Code(.wrongDirection)
        /// libsrtp2 failed otherwise (initialisation, allocation, cipher failure); `status` says how.
        public static let libraryFailure = Code(.libraryFailure)
        /// The master key has protected all the packets it may (2^48 SRTP or 2^31 SRTCP, RFC 3711 §9.2): the
        /// session must be rekeyed.
        public static let keyExhausted = Code(.keyExhausted)

        public var description: String { "\(value)" }
    }

    /// What went wrong.
    public var code: Code
    /// libsrtp2's `srtp_err_status_t` value, when the error came from it.
    public var status: UInt32?
    /// Where and how, in words.
    public var detail: String

    /// - Parameters:
    ///   - code: what went wrong.
    ///   - status: libsrtp2's status, if any.
    ///   - detail: where and how.
    public init(_ code: Code, status: UInt32? = nil, _ detail: String) {
        self.code = code
        self.status = status
        self.detail = detail
    }

    public var description: String {
        status.map { "\(code) (libsrtp2 status \($0)): \(detail)" } ?? "\(code): \(detail)"
    }
}

/// Counts of one direction and one protocol (SRTP or SRTCP) of an ``SRTPSession``.
public struct SRTPStatistics: Hashable, Sendable {
    /// Packets protected or unprotected successfully.
    public var packets = 0
    /// Packets whose authentication tag did not verify.
    public var authenticationFailures = 0
    /// Packets refused as replays.
    public var replays = 0
    /// Packets refused for another reason (malformed, unknown MKI, library failure).
    public var otherFailures = 0

    public init() {}
}
