/// One attribute of a STUN message (RFC 8489 §14): its type and its value without padding.
///
/// The raw value is the truth; the typed views on ``STUNMessage`` (``STUNMessage/xorMappedAddress``,
/// ``STUNMessage/errorCode``, ...) read it when asked. Attributes of unknown types are kept as they came.
public struct STUNAttribute: Hashable, Sendable {
    /// The attribute type.
    public var type: STUNAttributeType
    /// The value, unpadded (the encoder pads it to four bytes with zeros).
    public var value: [UInt8]

    /// - Parameters:
    ///   - type: the attribute type.
    ///   - value: the value, unpadded.
    public init(type: STUNAttributeType, value: [UInt8]) {
        self.type = type
        self.value = value
    }

    /// XOR-MAPPED-ADDRESS (§14.2) for a message with `transactionID`.
    public static func xorMappedAddress(_ address: STUNTransportAddress, transactionID: STUNTransactionID)
        -> STUNAttribute
    {
        STUNAttribute(type: .xorMappedAddress, value: STUNAddressCodec.encode(address, xorWith: transactionID))
    }

    /// MAPPED-ADDRESS (§14.1).
    public static func mappedAddress(_ address: STUNTransportAddress) -> STUNAttribute {
        STUNAttribute(type: .mappedAddress, value: STUNAddressCodec.encode(address, xorWith: nil))
    }

    /// USERNAME (§14.3), UTF-8.
    public static func username(_ username: String) -> STUNAttribute {
        STUNAttribute(type: .username, value: Array(username.utf8))
    }

    /// SOFTWARE (§14.14), UTF-8.
    public static func software(_ software: String) -> STUNAttribute {
        STUNAttribute(type: .software, value: Array(software.utf8))
    }

    /// REALM (§14.9), UTF-8.
    public static func realm(_ realm: String) -> STUNAttribute {
        STUNAttribute(type: .realm, value: Array(realm.utf8))
    }

    /// NONCE (§14.10).
    public static func nonce(_ nonce: String) -> STUNAttribute {
        STUNAttribute(type: .nonce, value: Array(nonce.utf8))
    }

    /// ERROR-CODE (§14.8): the code (300...699) and a UTF-8 reason phrase.
    public static func errorCode(_ code: STUNErrorCode, reason: String) -> STUNAttribute {
        STUNAttribute(type: .errorCode, value: [0, 0, code.errorClass & 0x07, code.number] + Array(reason.utf8))
    }

    /// UNKNOWN-ATTRIBUTES (§14.13): the types a 420 response lists.
    public static func unknownAttributes(_ types: [STUNAttributeType]) -> STUNAttribute {
        var value: [UInt8] = []
        for type in types { value.appendBigEndian(type.rawValue) }
        return STUNAttribute(type: .unknownAttributes, value: value)
    }

    /// PASSWORD-ALGORITHM (§14.12) without parameters.
    public static func passwordAlgorithm(_ algorithm: STUNPasswordAlgorithm) -> STUNAttribute {
        var value: [UInt8] = []
        value.appendBigEndian(algorithm.rawValue)
        value.appendBigEndian(UInt16(0))
        return STUNAttribute(type: .passwordAlgorithm, value: value)
    }

    /// PASSWORD-ALGORITHMS (§14.11): the algorithms a server offers, in its order of preference, without
    /// parameters.
    public static func passwordAlgorithms(_ algorithms: [STUNPasswordAlgorithm]) -> STUNAttribute {
        var value: [UInt8] = []
        for algorithm in algorithms {
            value.appendBigEndian(algorithm.rawValue)
            value.appendBigEndian(UInt16(0))
        }
        return STUNAttribute(type: .passwordAlgorithms, value: value)
    }

    /// USERHASH (§14.4): SHA-256 of `username:realm`; `nil` if OpenSSL cannot hash.
    public static func userhash(username: String, realm: String) -> STUNAttribute? {
        guard let hash = Crypto.digest("SHA256", Array("\(username):\(realm)".utf8)) else { return nil }
        return STUNAttribute(type: .userhash, value: hash)
    }

    /// PRIORITY (RFC 8445 §16.1).
    public static func priority(_ priority: UInt32) -> STUNAttribute {
        var value: [UInt8] = []
        value.appendBigEndian(priority)
        return STUNAttribute(type: .priority, value: value)
    }

    /// USE-CANDIDATE (RFC 8445 §16.1), empty.
    public static let useCandidate = STUNAttribute(type: .useCandidate, value: [])

    /// ICE-CONTROLLING (RFC 8445 §16.1) with the agent's tie-breaker.
    public static func iceControlling(tieBreaker: UInt64) -> STUNAttribute {
        var value: [UInt8] = []
        value.appendBigEndian(tieBreaker)
        return STUNAttribute(type: .iceControlling, value: value)
    }

    /// ICE-CONTROLLED (RFC 8445 §16.1) with the agent's tie-breaker.
    public static func iceControlled(tieBreaker: UInt64) -> STUNAttribute {
        var value: [UInt8] = []
        value.appendBigEndian(tieBreaker)
        return STUNAttribute(type: .iceControlled, value: value)
    }
}
