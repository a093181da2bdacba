/// An SRTP crypto suite name of RFC 4568 §6.2, kept as written.
public struct CryptoSuite: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The suite name as written.
    public var rawValue: String

    /// A crypto suite; the supported ones are static members.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// AES counter mode, 128-bit key, HMAC-SHA1 with an 80-bit tag (RFC 4568 §6.2.1).
    public static let aesCM128HMACSHA1_80 = CryptoSuite(rawValue: "AES_CM_128_HMAC_SHA1_80")
    /// AES counter mode, 128-bit key, HMAC-SHA1 with a 32-bit tag (RFC 4568 §6.2.2).
    public static let aesCM128HMACSHA1_32 = CryptoSuite(rawValue: "AES_CM_128_HMAC_SHA1_32")

    /// AES-128 in Galois/Counter Mode with a 16-byte tag (RFC 7714 §12): a 16-byte master key and a 12-byte
    /// master salt.
    public static let aeadAES128GCM = CryptoSuite(rawValue: "AEAD_AES_128_GCM")

    /// The suites the engine negotiates when they are configured.
    public static let supported: [CryptoSuite] = [.aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32, .aeadAES128GCM]

    /// The suites offered and accepted unless configured otherwise, in preference order: the AES-CM suites
    /// (AEAD_AES_128_GCM is negotiated only when a configuration names it).
    public static let defaultSuites: [CryptoSuite] = [.aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32]

    /// The master key plus master salt length in bytes: 16 + 14 for the AES_CM_128 suites (RFC 4568 §6.2),
    /// 16 + 12 for AEAD_AES_128_GCM (RFC 7714 §12); `nil` for a suite the engine does not support.
    public var keySaltLength: Int? {
        if matches(.aeadAES128GCM) { return 28 }
        return CryptoSuite.supported.contains(where: matches) ? 30 : nil
    }

    /// True when the names are the same, ignoring ASCII case.
    public func matches(_ other: CryptoSuite) -> Bool { rawValue.equalsIgnoringASCIICase(other.rawValue) }

    public var description: String { rawValue }
}

/// `a=crypto:<tag> <crypto-suite> <key-params> [<session-params>]` (RFC 4568 §9.1): SDP security
/// descriptions, the SDES keying of SRTP.
public struct CryptoAttribute: SDPAttributeValue {
    public static let attributeName = "crypto"

    /// Identifies the line within its media section; the answer echoes the tag it accepts (1...999999999).
    public var tag: UInt32
    /// The crypto suite.
    public var suite: CryptoSuite
    /// One or more keys (several only with MKIs).
    public var keyParameters: [SRTPKeyParameters]
    /// Session parameters such as `UNENCRYPTED_SRTCP` or `KDR=1`, as written.
    public var sessionParameters: [String]

    /// - Parameters:
    ///   - tag: the tag.
    ///   - suite: the crypto suite.
    ///   - keyParameters: the keys.
    ///   - sessionParameters: session parameters, none by default.
    public init(tag: UInt32, suite: CryptoSuite, keyParameters: [SRTPKeyParameters], sessionParameters: [String] = []) {
        self.tag = tag
        self.suite = suite
        self.keyParameters = keyParameters
        self.sessionParameters = sessionParameters
    }

    public init(parsingAttributeValue value: String) throws(SDPError) {
        guard let fields = splitFields(value), fields.count >= 3 else {
            throw CryptoAttribute.malformed(value, "expected <tag> <crypto-suite> <key-params>")
        }
        guard let tag = parseDecimal(fields[0], limit: 999_999_999), fields[0].utf8.count <= 9 else {
            throw CryptoAttribute.malformed(value, "tag is not 1 to 9 digits")
        }
        guard fields[1].utf8.allSatisfy({ $0.isAlpha || $0.isDigit || $0 == UInt8(ascii: "_") }) else {
            throw CryptoAttribute.malformed(value, "crypto suite is not a name")
        }
        var keys: [SRTPKeyParameters] = []
        for text in fields[2].split(separator: ";", omittingEmptySubsequences: false) {
            guard let key = SRTPKeyParameters(parsing: String(text)) else {
                throw CryptoAttribute.malformed(value, "bad key parameters \(text)")
            }
            keys.append(key)
        }
        self.init(
            tag: UInt32(tag), suite: CryptoSuite(rawValue: fields[1]), keyParameters: keys,
            sessionParameters: Array(fields[3...]))
    }

    public var attributeValue: String {
        var parts = ["\(tag)", suite.rawValue, keyParameters.map(\.text).joined(separator: ";")]
        parts.append(contentsOf: sessionParameters)
        return parts.joined(separator: " ")
    }
}

/// One `key-param` of a=crypto (RFC 4568 §9.2): `inline:<base64 key||salt>[|<lifetime>][|<MKI>:<length>]`.
public struct SRTPKeyParameters: Sendable, Hashable {
    /// How many packets the master key may protect (RFC 4568 §6.1).
    public enum Lifetime: Sendable, Hashable {
        /// `2^n` packets, written as `2^n`.
        case powerOfTwo(UInt8)
        /// A decimal packet count.
        case packets(UInt64)
    }

    /// The master key identifier and its length in bytes in each SRTP packet (RFC 3711 §3.1).
    public struct MasterKeyIdentifier: Sendable, Hashable {
        /// The MKI value.
        public var value: UInt64
        /// Its length on the wire in bytes, 1...128.
        public var length: UInt8

        /// - Parameters:
        ///   - value: the MKI value.
        ///   - length: its length in bytes, 1...128.
        public init(value: UInt64, length: UInt8) {
            self.value = value
            self.length = length
        }
    }

    /// The key method; `inline` is the only one RFC 4568 defines.
    public var method: String
    /// The base64 master key and salt for `inline`; the key info as written for another method.
    public var keySalt: String
    /// The key lifetime, when given.
    public var lifetime: Lifetime?
    /// The MKI, when given.
    public var mki: MasterKeyIdentifier?

    /// An `inline` key.
    /// - Parameters:
    ///   - keySalt: the concatenated master key and salt.
    ///   - lifetime: the lifetime, or `nil`.
    ///   - mki: the MKI, or `nil`.
    public init(keySalt: [UInt8], lifetime: Lifetime? = nil, mki: MasterKeyIdentifier? = nil) {
        self.method = "inline"
        self.keySalt = Base64.encode(keySalt)
        self.lifetime = lifetime
        self.mki = mki
    }

    /// Parses one key-param; `nil` when malformed.
    init?(parsing text: String) {
        var scanner = SDPScanner(text)
        guard let method = scanner.read(while: { $0.isAlpha || $0.isDigit }), scanner.consume(ASCII.colon) else {
            return nil
        }
        self.method = scanner.string(method)
        lifetime = nil
        mki = nil
        let info = scanner.readRest()
        guard method.count == 6, self.method.equalsIgnoringASCIICase("inline") else {
            // Another key method: its syntax is its own.
            guard !info.isEmpty else { return nil }
            keySalt = info
            return
        }
        let parts = info.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard (1...3).contains(parts.count), let key = parts.first, !key.isEmpty, Base64.decode(key) != nil else {
            return nil
        }
        keySalt = key
        for (i, part) in parts.enumerated().dropFirst() {
            if part.utf8.contains(ASCII.colon) {
                guard i == parts.count - 1, let mki = SRTPKeyParameters.parseMKI(part) else { return nil }
                self.mki = mki
            } else {
                guard i == 1, let lifetime = SRTPKeyParameters.parseLifetime(part) else { return nil }
                self.lifetime = lifetime
            }
        }
    }

    /// The decoded master key and salt; `nil` for another method or bad base64.
    public var keySaltBytes: [UInt8]? {
        method.equalsIgnoringASCIICase("inline") ? Base64.decode(keySalt) : nil
    }

    var text: String {
        var text = method + ":" + keySalt
        switch lifetime {
        case .powerOfTwo(let n)?: text += "|2^\(n)"
        case .packets(let n)?: text += "|\(n)"
        case nil: break
        }
        if let mki { text += "|\(mki.value):\(mki.length)" }
        return text
    }

    private static func parseLifetime(_ text: String) -> Lifetime? {
        if text.hasPrefix("2^") {
            return parseDecimal(text.utf8.dropFirst(2), limit: 64).map { .powerOfTwo(UInt8($0)) }
        }
        return parseDecimal(text).map { .packets($0) }
    }

    private static func parseMKI(_ text: String) -> MasterKeyIdentifier? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let value = parseDecimal(parts[0].utf8),
            let length = parseDecimal(parts[1].utf8, limit: 128), length > 0, parts[1].utf8.count <= 3
        else { return nil }
        return MasterKeyIdentifier(value: value, length: UInt8(length))
    }
}
