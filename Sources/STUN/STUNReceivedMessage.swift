/// A STUN message decoded from the bytes that carried it, with what integrity checks need to keep
/// (RFC 8489 §6.3, §14.5-§14.7).
///
/// Decoding is bounded (``STUNDecodingLimits``) and never traps: every fault throws a ``STUNDecodingError``
/// that names it. FINGERPRINT, when present, is checked here; MESSAGE-INTEGRITY needs a key, so it is checked
/// by ``isAuthentic(with:)``. Attributes after MESSAGE-INTEGRITY other than MESSAGE-INTEGRITY-SHA256 and
/// FINGERPRINT (and after MESSAGE-INTEGRITY-SHA256 other than FINGERPRINT) are ignored, as §14.5 and §14.6 say.
public struct STUNReceivedMessage: Sendable {
    /// The message. Its attributes include MESSAGE-INTEGRITY(-SHA256) and FINGERPRINT as received.
    public let message: STUNMessage
    /// The datagram or stream frame the message came in.
    public let bytes: [UInt8]
    /// Comprehension-required attribute types this module does not understand, in order of first appearance:
    /// a server answers a request that has any with 420 and lists them in UNKNOWN-ATTRIBUTES (§6.3.1).
    public let unknownRequiredAttributes: [STUNAttributeType]
    /// Whether the message ended with a FINGERPRINT, which matched (a mismatch does not decode).
    public let hasFingerprint: Bool

    /// Where MESSAGE-INTEGRITY's attribute header starts in ``bytes``.
    let sha1Offset: Int?
    /// Where MESSAGE-INTEGRITY-SHA256's attribute header starts in ``bytes``, and its value's length.
    let sha256: (offset: Int, length: Int)?

    /// Whether the message carries MESSAGE-INTEGRITY.
    public var hasMessageIntegrity: Bool { sha1Offset != nil }
    /// Whether the message carries MESSAGE-INTEGRITY-SHA256.
    public var hasMessageIntegritySHA256: Bool { sha256 != nil }

    /// Decodes one whole message.
    /// - Parameters:
    ///   - bytes: exactly one message (a UDP datagram, or one frame cut from a stream).
    ///   - limits: bounds on size and attribute count.
    /// - Throws: ``STUNDecodingError`` naming the first fault.
    public init(decoding bytes: [UInt8], limits: STUNDecodingLimits = STUNDecodingLimits()) throws(STUNDecodingError) {
        var decoder = Decoder(bytes: bytes, limits: limits)
        try decoder.run()
        guard let transactionID = STUNTransactionID(bytes: bytes[8..<20]) else {
            throw STUNDecodingError(.tooShort)
        }
        let (method, messageClass) = STUNMessageType.decode(bytes.bigEndianUInt16(at: 0))
        self.message = STUNMessage(messageClass, method, transactionID: transactionID, attributes: decoder.attributes)
        self.bytes = bytes
        self.unknownRequiredAttributes = decoder.unknownRequired
        self.hasFingerprint = decoder.hasFingerprint
        self.sha1Offset = decoder.sha1Offset
        self.sha256 = decoder.sha256
    }

    /// Checks the message's integrity with `key` (§9.1.3, §9.2.4): MESSAGE-INTEGRITY-SHA256 when present,
    /// otherwise MESSAGE-INTEGRITY. `false` when the message has neither.
    public func isAuthentic(with key: STUNKey) -> Bool {
        if sha256 != nil { return checkMessageIntegritySHA256(with: key) == true }
        return checkMessageIntegrity(with: key) == true
    }

    /// MESSAGE-INTEGRITY (HMAC-SHA1, §14.5) checked with `key`; `nil` if the message has none.
    public func checkMessageIntegrity(with key: STUNKey) -> Bool? {
        guard let offset = sha1Offset else { return nil }
        return check("SHA1", key: key, offset: offset, length: 20)
    }

    /// MESSAGE-INTEGRITY-SHA256 (§14.6) checked with `key`, truncated values compared on their length;
    /// `nil` if the message has none.
    public func checkMessageIntegritySHA256(with key: STUNKey) -> Bool? {
        guard let sha256 else { return nil }
        return check("SHA256", key: key, offset: sha256.offset, length: sha256.length)
    }

    /// The HMAC over the bytes before the attribute, with the header's length as if the attribute ended the
    /// message.
    private func check(_ digest: String, key: STUNKey, offset: Int, length: Int) -> Bool {
        var input = Array(bytes[0..<offset])
        input.setBigEndian(UInt16(truncatingIfNeeded: offset - STUNMessage.headerSize + 4 + length), at: 2)
        guard let mac = Crypto.hmac(digest, key: key.bytes, data: input[...]) else { return false }
        return Crypto.constantTimeEqual(mac.prefix(length), bytes[(offset + 4)..<(offset + 4 + length)])
    }
}

/// One pass over the attributes of a message whose header has been checked.
private struct Decoder {
    let bytes: [UInt8]
    let limits: STUNDecodingLimits
    var attributes: [STUNAttribute] = []
    var unknownRequired: [STUNAttributeType] = []
    var hasFingerprint = false
    var sha1Offset: Int?
    var sha256: (offset: Int, length: Int)?

    init(bytes: [UInt8], limits: STUNDecodingLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    mutating func run() throws(STUNDecodingError) {
        try checkHeader()
        var offset = STUNMessage.headerSize
        var count = 0
        while offset < bytes.count {
            guard offset + 4 <= bytes.count else { throw STUNDecodingError(.attributeOverrun, "attribute header") }
            let type = STUNAttributeType(rawValue: bytes.bigEndianUInt16(at: offset))
            let length = Int(bytes.bigEndianUInt16(at: offset + 2))
            let valueStart = offset + 4
            guard valueStart + length <= bytes.count else {
                throw STUNDecodingError(.attributeOverrun, "\(type), \(length) bytes")
            }
            count += 1
            guard count <= limits.maximumAttributes else {
                throw STUNDecodingError(.tooManyAttributes, "more than \(limits.maximumAttributes)")
            }
            if hasFingerprint { throw STUNDecodingError(.fingerprintNotLast, "\(type)") }
            let value = Array(bytes[valueStart..<valueStart + length])
            try accept(STUNAttribute(type: type, value: value), at: offset)
            offset = valueStart + padded(length)
        }
    }

    private func checkHeader() throws(STUNDecodingError) {
        guard bytes.count >= STUNMessage.headerSize else { throw STUNDecodingError(.tooShort, "\(bytes.count) bytes") }
        guard bytes[0] & 0xC0 == 0 else { throw STUNDecodingError(.notSTUN) }
        guard bytes.bigEndianUInt32(at: 4) == STUNMessage.magicCookie else { throw STUNDecodingError(.badMagicCookie) }
        let length = Int(bytes.bigEndianUInt16(at: 2))
        guard length % 4 == 0 else { throw STUNDecodingError(.lengthNotMultipleOf4, "\(length)") }
        guard bytes.count <= limits.maximumMessageSize else {
            throw STUNDecodingError(.tooLarge, "\(bytes.count) bytes, limit \(limits.maximumMessageSize)")
        }
        guard length + STUNMessage.headerSize == bytes.count else {
            throw STUNDecodingError(.lengthMismatch, "header says \(length), \(bytes.count - 20) after the header")
        }
    }

    private mutating func accept(_ attribute: STUNAttribute, at offset: Int) throws(STUNDecodingError) {
        let type = attribute.type
        if type == .fingerprint {
            try checkFingerprint(attribute.value, at: offset)
            hasFingerprint = true
            attributes.append(attribute)
            return
        }
        // §14.5, §14.6: after the integrity attributes only the stronger integrity and FINGERPRINT count.
        if sha256 != nil { return }
        if sha1Offset != nil && type != .messageIntegritySHA256 { return }
        try STUNAttributeValidation.validate(attribute)
        switch type {
        case .messageIntegrity: sha1Offset = offset
        case .messageIntegritySHA256: sha256 = (offset, attribute.value.count)
        default:
            if type.isComprehensionRequired, !type.isUnderstood, !unknownRequired.contains(type) {
                unknownRequired.append(type)
            }
        }
        attributes.append(attribute)
    }

    private func checkFingerprint(_ value: [UInt8], at offset: Int) throws(STUNDecodingError) {
        guard value.count == 4 else {
            throw STUNDecodingError(.invalidAttribute, "FINGERPRINT of \(value.count) bytes")
        }
        guard value.bigEndianUInt32(at: 0) == Fingerprint.value(of: bytes[0..<offset]) else {
            throw STUNDecodingError(.badFingerprint)
        }
    }
}

/// The value rules of the attributes this module understands (RFC 8489 §14, RFC 8445 §16.1, RFC 8656 §18).
enum STUNAttributeValidation {
    static func validate(_ attribute: STUNAttribute) throws(STUNDecodingError) {
        let value = attribute.value
        let ok: Bool
        switch attribute.type {
        case .mappedAddress, .xorMappedAddress, .alternateServer:
            // The XOR mask does not change the layout, so checking without it is enough.
            ok = STUNAddressCodec.decode(value, xorWith: nil) != nil
        case .username: ok = value.count <= 513
        case .userhash: ok = value.count == 32
        case .messageIntegrity: ok = value.count == 20
        case .messageIntegritySHA256: ok = (16...32).contains(value.count) && value.count % 4 == 0
        case .errorCode: ok = ErrorCodeValue.code(of: value) != nil && value.count <= 4 + 763
        case .realm, .nonce, .software, .alternateDomain: ok = value.count <= 763
        case .unknownAttributes: ok = value.count % 2 == 0
        case .passwordAlgorithm: ok = PasswordAlgorithmsValue.isValid(value, single: true)
        case .passwordAlgorithms: ok = PasswordAlgorithmsValue.isValid(value, single: false)
        case .priority: ok = value.count == 4
        case .useCandidate: ok = value.isEmpty
        case .iceControlled, .iceControlling: ok = value.count == 8
        default: ok = TURNAttributeValidation.isValid(attribute) ?? true
        }
        if !ok { throw STUNDecodingError(.invalidAttribute, "\(attribute.type) of \(value.count) bytes") }
    }
}

/// PASSWORD-ALGORITHM and PASSWORD-ALGORITHMS (§14.11, §14.12): algorithm (2), parameters length (2),
/// parameters padded to four bytes; once, or repeated.
enum PasswordAlgorithmsValue {
    static func isValid(_ value: [UInt8], single: Bool) -> Bool {
        var offset = 0
        var count = 0
        while offset < value.count {
            guard offset + 4 <= value.count else { return false }
            let length = Int(value.bigEndianUInt16(at: offset + 2))
            let end = offset + 4 + padded(length)
            guard end <= value.count else { return false }
            offset = end
            count += 1
        }
        return single ? count == 1 : true
    }
}
