/// A STUN message (RFC 8489 §5): class, method, transaction ID and attributes in order.
///
/// Pure data: ``encoded(integrity:fingerprint:)`` writes it and ``STUNReceivedMessage/init(decoding:limits:)``
/// reads it. MESSAGE-INTEGRITY, MESSAGE-INTEGRITY-SHA256 and FINGERPRINT are computed by the encoder, never
/// taken from ``attributes``.
public struct STUNMessage: Hashable, Sendable {
    /// The fixed value in bytes 4...7 of every RFC 5389/8489 message.
    public static let magicCookie: UInt32 = 0x2112_A442
    /// The size of the header, before the attributes.
    public static let headerSize = 20

    /// The message class.
    public var messageClass: STUNMessageClass
    /// The method.
    public var method: STUNMethod
    /// The transaction ID.
    public var transactionID: STUNTransactionID
    /// The attributes in wire order.
    public var attributes: [STUNAttribute]

    /// - Parameters:
    ///   - messageClass: request, indication, success or error response.
    ///   - method: the method, e.g. ``STUNMethod/binding``.
    ///   - transactionID: the transaction ID.
    ///   - attributes: the attributes in wire order.
    public init(
        _ messageClass: STUNMessageClass, _ method: STUNMethod, transactionID: STUNTransactionID,
        attributes: [STUNAttribute] = []
    ) {
        self.messageClass = messageClass
        self.method = method
        self.transactionID = transactionID
        self.attributes = attributes
    }

    /// The value of the first attribute of `type`.
    public subscript(type: STUNAttributeType) -> [UInt8]? {
        attributes.first { $0.type == type }?.value
    }

    /// XOR-MAPPED-ADDRESS, un-masked with this message's transaction ID.
    public var xorMappedAddress: STUNTransportAddress? {
        self[.xorMappedAddress].flatMap { STUNAddressCodec.decode($0, xorWith: transactionID) }
    }

    /// MAPPED-ADDRESS (what RFC 3489 servers send instead of XOR-MAPPED-ADDRESS).
    public var mappedAddress: STUNTransportAddress? {
        self[.mappedAddress].flatMap { STUNAddressCodec.decode($0, xorWith: nil) }
    }

    /// USERNAME as UTF-8 text.
    public var username: String? { self[.username].map { String(decoding: $0, as: UTF8.self) } }
    /// SOFTWARE as UTF-8 text.
    public var software: String? { self[.software].map { String(decoding: $0, as: UTF8.self) } }
    /// REALM as UTF-8 text.
    public var realm: String? { self[.realm].map { String(decoding: $0, as: UTF8.self) } }
    /// NONCE as text.
    public var nonce: String? { self[.nonce].map { String(decoding: $0, as: UTF8.self) } }

    /// ERROR-CODE: the code and the reason phrase; `nil` if absent or malformed.
    public var errorCode: (code: STUNErrorCode, reason: String)? {
        guard let value = self[.errorCode], let code = ErrorCodeValue.code(of: value) else { return nil }
        return (code, String(decoding: value[4...], as: UTF8.self))
    }

    /// UNKNOWN-ATTRIBUTES: the types a 420 response lists.
    public var unknownAttributes: [STUNAttributeType]? {
        guard let value = self[.unknownAttributes], value.count % 2 == 0 else { return nil }
        return stride(from: 0, to: value.count, by: 2).map {
            STUNAttributeType(rawValue: value.bigEndianUInt16(at: $0))
        }
    }

    /// PASSWORD-ALGORITHM's algorithm.
    public var passwordAlgorithm: STUNPasswordAlgorithm? {
        guard let value = self[.passwordAlgorithm], value.count >= 4 else { return nil }
        return STUNPasswordAlgorithm(rawValue: value.bigEndianUInt16(at: 0))
    }

    /// PASSWORD-ALGORITHMS: the algorithms offered, in order (their parameters are skipped).
    public var passwordAlgorithms: [STUNPasswordAlgorithm]? {
        guard let value = self[.passwordAlgorithms], PasswordAlgorithmsValue.isValid(value, single: false) else {
            return nil
        }
        var algorithms: [STUNPasswordAlgorithm] = []
        var offset = 0
        while offset + 4 <= value.count {
            algorithms.append(STUNPasswordAlgorithm(rawValue: value.bigEndianUInt16(at: offset)))
            let length = Int(value.bigEndianUInt16(at: offset + 2))
            offset += 4 + padded(length)
        }
        return algorithms
    }

    /// PRIORITY (RFC 8445).
    public var priority: UInt32? {
        guard let value = self[.priority], value.count == 4 else { return nil }
        return value.bigEndianUInt32(at: 0)
    }

    /// ICE-CONTROLLING's tie-breaker (RFC 8445).
    public var iceControlling: UInt64? {
        guard let value = self[.iceControlling], value.count == 8 else { return nil }
        return value.bigEndianUInt64(at: 0)
    }

    /// ICE-CONTROLLED's tie-breaker (RFC 8445).
    public var iceControlled: UInt64? {
        guard let value = self[.iceControlled], value.count == 8 else { return nil }
        return value.bigEndianUInt64(at: 0)
    }

    /// Whether USE-CANDIDATE is present (RFC 8445).
    public var hasUseCandidate: Bool { self[.useCandidate] != nil }
}

/// ERROR-CODE's value: 21 reserved bits, the class (3 bits), the number (8 bits), then the reason.
enum ErrorCodeValue {
    static func code(of value: [UInt8]) -> STUNErrorCode? {
        guard value.count >= 4 else { return nil }
        let errorClass = value[2] & 0x07
        let number = value[3]
        guard (3...6).contains(errorClass), number < 100 else { return nil }
        return STUNErrorCode(rawValue: UInt16(errorClass) * 100 + UInt16(number))
    }
}
