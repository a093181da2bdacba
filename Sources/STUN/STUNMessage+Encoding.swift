/// How the encoder protects a message (RFC 8489 §14.5, §14.6).
public struct STUNIntegrity: Hashable, Sendable {
    /// The HMAC key.
    public var key: STUNKey
    /// Append MESSAGE-INTEGRITY (HMAC-SHA1).
    public var includesSHA1: Bool
    /// Append MESSAGE-INTEGRITY-SHA256 (after MESSAGE-INTEGRITY when both are written).
    public var includesSHA256: Bool

    /// - Parameters:
    ///   - key: the HMAC key.
    ///   - sha1: write MESSAGE-INTEGRITY (the RFC 5389 attribute every server knows); on by default.
    ///   - sha256: write MESSAGE-INTEGRITY-SHA256; off by default.
    public init(key: STUNKey, sha1: Bool = true, sha256: Bool = false) {
        self.key = key
        self.includesSHA1 = sha1
        self.includesSHA256 = sha256
    }
}

extension STUNMessage {
    /// The message on the wire (RFC 8489 §5, §14): header, attributes padded with zeros to four bytes, then the
    /// integrity attributes computed with `integrity`, then FINGERPRINT if asked.
    ///
    /// MESSAGE-INTEGRITY, MESSAGE-INTEGRITY-SHA256 and FINGERPRINT in ``attributes`` are skipped. Attribute
    /// values longer than 65,535 bytes are cut to that length; the caller keeps the whole message within the
    /// 65,535 bytes of attributes the header's length field can state.
    /// - Parameters:
    ///   - integrity: the key and which integrity attributes to write; none by default.
    ///   - fingerprint: whether to end with FINGERPRINT.
    public func encoded(integrity: STUNIntegrity? = nil, fingerprint: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(STUNMessage.headerSize + attributes.reduce(0) { $0 + 4 + $1.value.count + 3 } + 68)
        out.appendBigEndian(STUNMessageType.encode(method: method, messageClass: messageClass))
        out.appendBigEndian(UInt16(0))
        out.appendBigEndian(STUNMessage.magicCookie)
        out.append(contentsOf: transactionID.bytes)
        for attribute in attributes where !STUNAttributeType.computed.contains(attribute.type) {
            STUNMessage.append(attribute.type, attribute.value.prefix(0xFFFF), to: &out)
        }
        if let integrity {
            if integrity.includesSHA1 {
                let mac = STUNMessage.mac("SHA1", key: integrity.key, over: &out, valueLength: 20)
                STUNMessage.append(.messageIntegrity, mac, to: &out)
            }
            if integrity.includesSHA256 {
                let mac = STUNMessage.mac("SHA256", key: integrity.key, over: &out, valueLength: 32)
                STUNMessage.append(.messageIntegritySHA256, mac, to: &out)
            }
        }
        if fingerprint {
            out.setBigEndian(UInt16(truncatingIfNeeded: out.count - STUNMessage.headerSize + 8), at: 2)
            var value: [UInt8] = []
            value.appendBigEndian(Fingerprint.value(of: out))
            STUNMessage.append(.fingerprint, value, to: &out)
        }
        return out
    }

    /// Appends one attribute with its padding and updates the header's length.
    private static func append(_ type: STUNAttributeType, _ value: some Collection<UInt8>, to out: inout [UInt8]) {
        out.appendBigEndian(type.rawValue)
        out.appendBigEndian(UInt16(truncatingIfNeeded: value.count))
        out.append(contentsOf: value)
        out.append(contentsOf: repeatElement(0, count: padded(value.count) - value.count))
        out.setBigEndian(UInt16(truncatingIfNeeded: out.count - headerSize), at: 2)
    }

    /// The HMAC over `out` with the header's length already counting the integrity attribute to come (§14.5).
    /// Should OpenSSL fail, zeros stand in: such a message never verifies, so nothing is weakened.
    private static func mac(_ digest: String, key: STUNKey, over out: inout [UInt8], valueLength: Int) -> [UInt8] {
        out.setBigEndian(UInt16(truncatingIfNeeded: out.count - headerSize + 4 + valueLength), at: 2)
        return Crypto.hmac(digest, key: key.bytes, data: out[...]) ?? [UInt8](repeating: 0, count: valueLength)
    }
}
