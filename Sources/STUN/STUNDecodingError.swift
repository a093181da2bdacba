/// Why bytes are not a STUN message this decoder accepts (RFC 8489 §6.3).
///
/// The codes grow over time, so match with `==` against the static members of ``Code``.
public struct STUNDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let raw: UInt8
        let name: String

        public var description: String { name }

        /// Fewer than the 20 bytes of a header.
        public static let tooShort = Code(raw: 1, name: "shorter than a STUN header")
        /// The first two bits are not zero (§5): RTP, DTLS or something else, not STUN.
        public static let notSTUN = Code(raw: 2, name: "first two bits are not zero")
        /// Bytes 4...7 are not 0x2112A442 (§5).
        public static let badMagicCookie = Code(raw: 3, name: "bad magic cookie")
        /// The header's message length is not a multiple of 4 (§5).
        public static let lengthNotMultipleOf4 = Code(raw: 4, name: "message length not a multiple of 4")
        /// The header's message length does not match the bytes given: truncated, or bytes after the message.
        public static let lengthMismatch = Code(raw: 5, name: "message length does not match the datagram")
        /// Larger than ``STUNDecodingLimits/maximumMessageSize``.
        public static let tooLarge = Code(raw: 6, name: "message too large")
        /// An attribute's length runs past the end of the message.
        public static let attributeOverrun = Code(raw: 7, name: "attribute overruns the message")
        /// More attributes than ``STUNDecodingLimits/maximumAttributes``.
        public static let tooManyAttributes = Code(raw: 8, name: "too many attributes")
        /// FINGERPRINT does not match the CRC-32 of the message (§14.7).
        public static let badFingerprint = Code(raw: 9, name: "bad fingerprint")
        /// An attribute follows FINGERPRINT, which must be last (§14.7).
        public static let fingerprintNotLast = Code(raw: 10, name: "attribute after FINGERPRINT")
        /// An attribute this module knows has a value of the wrong size or content; ``detail`` names it.
        public static let invalidAttribute = Code(raw: 11, name: "invalid attribute value")

        public static func == (a: Code, b: Code) -> Bool { a.raw == b.raw }
        public func hash(into hasher: inout Hasher) { hasher.combine(raw) }
    }

    /// What went wrong.
    public let code: Code
    /// More detail, fit for a log line.
    public let detail: String

    init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    public var description: String { detail.isEmpty ? code.name : "\(code.name): \(detail)" }
}

/// Bounds on what the decoder accepts from the network.
public struct STUNDecodingLimits: Hashable, Sendable {
    /// The largest message, header included (default 1280 bytes: STUN over UDP should fit the IPv6 minimum MTU;
    /// raise it for TCP).
    public var maximumMessageSize: Int
    /// The most attributes in one message (default 64).
    public var maximumAttributes: Int

    /// - Parameters:
    ///   - maximumMessageSize: the largest message, header included.
    ///   - maximumAttributes: the most attributes in one message.
    public init(maximumMessageSize: Int = 1280, maximumAttributes: Int = 64) {
        self.maximumMessageSize = maximumMessageSize
        self.maximumAttributes = maximumAttributes
    }
}
