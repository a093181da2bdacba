/// An algorithm that turns a long-term password into a key (RFC 8489 §18.5, IANA "STUN Password Algorithms").
public struct STUNPasswordAlgorithm: RawRepresentable, Hashable, Sendable {
    /// The registered number.
    public let rawValue: UInt16

    /// - Parameter rawValue: the registered number.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// MD5 (0x0001): the RFC 5389 key, and the one used when a message has no PASSWORD-ALGORITHM.
    public static let md5 = STUNPasswordAlgorithm(rawValue: 0x0001)
    /// SHA-256 (0x0002).
    public static let sha256 = STUNPasswordAlgorithm(rawValue: 0x0002)

    var openSSLName: String? {
        switch self {
        case .md5: "MD5"
        case .sha256: "SHA256"
        default: nil
        }
    }
}

/// The HMAC key of MESSAGE-INTEGRITY and MESSAGE-INTEGRITY-SHA256 (RFC 8489 §9).
///
/// Passwords are used as the caller gives them, in UTF-8: this module does not apply the OpaqueString profile
/// (RFC 8265) that §9.1.1 and §9.2.2 ask for, so a caller with non-ASCII passwords prepares them first.
public struct STUNKey: Hashable, Sendable {
    /// The key bytes.
    public let bytes: [UInt8]

    /// A key of these bytes.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The short-term credential key (§9.1.1): the password itself.
    public static func shortTerm(password: String) -> STUNKey { STUNKey(bytes: Array(password.utf8)) }

    /// The long-term credential key (§9.2.2): MD5 or SHA-256 of `username:realm:password`; `nil` if the
    /// algorithm is unknown or OpenSSL cannot compute it.
    public static func longTerm(
        username: String, realm: String, password: String, algorithm: STUNPasswordAlgorithm = .md5
    ) -> STUNKey? {
        guard let name = algorithm.openSSLName,
            let digest = Crypto.digest(name, Array("\(username):\(realm):\(password)".utf8))
        else { return nil }
        return STUNKey(bytes: digest)
    }
}
