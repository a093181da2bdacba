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

    /// The types this module understands, with their registry names; a comprehension-required type outside
    /// this set is reported by the decoder in ``STUNReceivedMessage/unknownRequiredAttributes``.
    private static let registry: [STUNAttributeType: String] = stunNames.merging(turnNames) { stun, _ in stun }

    /// The names of the types RFC 8489 and RFC 8445 define.
    private static let stunNames: [STUNAttributeType: String] = [
        .mappedAddress: "MAPPED-ADDRESS", .username: "USERNAME", .messageIntegrity: "MESSAGE-INTEGRITY",
        .errorCode: "ERROR-CODE", .unknownAttributes: "UNKNOWN-ATTRIBUTES", .realm: "REALM", .nonce: "NONCE",
        .messageIntegritySHA256: "MESSAGE-INTEGRITY-SHA256", .passwordAlgorithm: "PASSWORD-ALGORITHM",
        .userhash: "USERHASH", .xorMappedAddress: "XOR-MAPPED-ADDRESS", .priority: "PRIORITY",
        .useCandidate: "USE-CANDIDATE", .passwordAlgorithms: "PASSWORD-ALGORITHMS",
        .alternateDomain: "ALTERNATE-DOMAIN", .software: "SOFTWARE", .alternateServer: "ALTERNATE-SERVER",
        .fingerprint: "FINGERPRINT", .iceControlled: "ICE-CONTROLLED", .iceControlling: "ICE-CONTROLLING",
    ]

    /// Whether this module knows the type: the decoder checks its value and the encoder can build it.
    public var isUnderstood: Bool { STUNAttributeType.registry[self] != nil }

    /// The attributes the encoder computes itself (and so never copies from ``STUNMessage/attributes``):
    /// MESSAGE-INTEGRITY, MESSAGE-INTEGRITY-SHA256 and FINGERPRINT.
    public static let computed: Set<STUNAttributeType> = [.messageIntegrity, .messageIntegritySHA256, .fingerprint]

    public static func < (lhs: STUNAttributeType, rhs: STUNAttributeType) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The registry name (`XOR-MAPPED-ADDRESS`), or the number in hex (`0x7f01`) for types this module does not
    /// know.
    public var description: String {
        if let name = STUNAttributeType.registry[self] { return name }
        let hex = String(rawValue, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
