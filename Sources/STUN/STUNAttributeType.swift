/// The type of a STUN attribute (RFC 8489 §14, IANA "STUN Attributes").
///
/// Types 0x0000...0x7FFF are comprehension-required: an agent that does not know one must reject the request
/// with 420 (Unknown Attribute). Types 0x8000...0xFFFF are comprehension-optional and may be ignored.
public struct STUNAttributeType: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 16-bit type number.
    public let rawValue: UInt16

    /// - Parameter rawValue: the 16-bit type number.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Whether an agent that does not know this type must refuse the message (RFC 8489 §14).
    public var isComprehensionRequired: Bool { rawValue < 0x8000 }

    /// MAPPED-ADDRESS (§14.1), kept for RFC 3489 servers.
    public static let mappedAddress = STUNAttributeType(rawValue: 0x0001)
    /// USERNAME (§14.3).
    public static let username = STUNAttributeType(rawValue: 0x0006)
    /// MESSAGE-INTEGRITY, HMAC-SHA1 (§14.5).
    public static let messageIntegrity = STUNAttributeType(rawValue: 0x0008)
    /// ERROR-CODE (§14.8).
    public static let errorCode = STUNAttributeType(rawValue: 0x0009)
    /// UNKNOWN-ATTRIBUTES (§14.13).
    public static let unknownAttributes = STUNAttributeType(rawValue: 0x000A)
    /// REALM (§14.9).
    public static let realm = STUNAttributeType(rawValue: 0x0014)
    /// NONCE (§14.10).
    public static let nonce = STUNAttributeType(rawValue: 0x0015)
    /// MESSAGE-INTEGRITY-SHA256 (§14.6).
    public static let messageIntegritySHA256 = STUNAttributeType(rawValue: 0x001C)
    /// PASSWORD-ALGORITHM (§14.12).
    public static let passwordAlgorithm = STUNAttributeType(rawValue: 0x001D)
    /// USERHASH (§14.4).
    public static let userhash = STUNAttributeType(rawValue: 0x001E)
    /// XOR-MAPPED-ADDRESS (§14.2).
    public static let xorMappedAddress = STUNAttributeType(rawValue: 0x0020)
    /// PRIORITY (RFC 8445 §16.1).
    public static let priority = STUNAttributeType(rawValue: 0x0024)
    /// USE-CANDIDATE (RFC 8445 §16.1).
    public static let useCandidate = STUNAttributeType(rawValue: 0x0025)
    /// PASSWORD-ALGORITHMS (§14.11).
    public static let passwordAlgorithms = STUNAttributeType(rawValue: 0x8002)
    /// ALTERNATE-DOMAIN (§14.16).
    public static let alternateDomain = STUNAttributeType(rawValue: 0x8003)
    /// SOFTWARE (§14.14).
    public static let software = STUNAttributeType(rawValue: 0x8022)
    /// ALTERNATE-SERVER (§14.15).
    public static let alternateServer = STUNAttributeType(rawValue: 0x8023)
    /// FINGERPRINT (§14.7).
    public static let fingerprint = STUNAttributeType(rawValue: 0x8028)
    /// ICE-CONTROLLED (RFC 8445 §16.1).
    public static let iceControlled = STUNAttributeType(rawValue: 0x8029)
    /// ICE-CONTROLLING (RFC 8445 §16.1).
    public static let iceControlling = STUNAttributeType(rawValue: 0x802A)

    /// The types this module understands; a comprehension-required type outside this set is reported by the
    /// decoder in ``STUNReceivedMessage/unknownRequiredAttributes``.
    public static let understood: Set<STUNAttributeType> = [
        .mappedAddress, .username, .messageIntegrity, .errorCode, .unknownAttributes, .realm, .nonce,
        .messageIntegritySHA256, .passwordAlgorithm, .userhash, .xorMappedAddress, .priority, .useCandidate,
        .passwordAlgorithms, .alternateDomain, .software, .alternateServer, .fingerprint, .iceControlled,
        .iceControlling,
    ]

    public static func < (lhs: STUNAttributeType, rhs: STUNAttributeType) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        let names: [UInt16: String] = [
            0x0001: "MAPPED-ADDRESS", 0x0006: "USERNAME", 0x0008: "MESSAGE-INTEGRITY", 0x0009: "ERROR-CODE",
            0x000A: "UNKNOWN-ATTRIBUTES", 0x0014: "REALM", 0x0015: "NONCE", 0x001C: "MESSAGE-INTEGRITY-SHA256",
            0x001D: "PASSWORD-ALGORITHM", 0x001E: "USERHASH", 0x0020: "XOR-MAPPED-ADDRESS", 0x0024: "PRIORITY",
            0x0025: "USE-CANDIDATE", 0x8002: "PASSWORD-ALGORITHMS", 0x8003: "ALTERNATE-DOMAIN", 0x8022: "SOFTWARE",
            0x8023: "ALTERNATE-SERVER", 0x8028: "FINGERPRINT", 0x8029: "ICE-CONTROLLED", 0x802A: "ICE-CONTROLLING",
        ]
        let hex = String(rawValue, radix: 16)
        return names[rawValue] ?? "0x" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
