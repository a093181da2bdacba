/// A digest algorithm from the IANA "HTTP Digest Algorithm Values" registry (RFC 7616 §3.2, §6.1), as SIP
/// uses it (RFC 8760 §2.2): `MD5`, `SHA-256` and `SHA-512-256`, each with its `-sess` variant.
///
/// Hashing goes through OpenSSL's EVP interface; the output is lower-case hexadecimal (RFC 7616 §3.4).
public struct DigestAlgorithm: Sendable, Hashable, CustomStringConvertible {
    /// The name as written in `algorithm=` (`SHA-256`, `MD5-sess`).
    public let name: String
    /// Whether this is a `-sess` variant: H(A1) also covers the nonce and cnonce (RFC 7616 §3.4.2).
    public let isSession: Bool
    /// The OpenSSL name of the hash function.
    let openSSLName: String
    /// Higher is stronger; the client answers the strongest challenge of a realm.
    let strength: Int

    private init(name: String, openSSLName: String, isSession: Bool, strength: Int) {
        self.name = name
        self.openSSLName = openSSLName
        self.isSession = isSession
        self.strength = strength
    }

    /// MD5 (RFC 2617; RFC 7616 keeps it for backward compatibility only).
    public static let md5 = DigestAlgorithm(name: "MD5", openSSLName: "MD5", isSession: false, strength: 10)
    /// MD5-sess.
    public static let md5Session = DigestAlgorithm(
        name: "MD5-sess", openSSLName: "MD5", isSession: true, strength: 10)
    /// SHA-256 (RFC 7616 §3.2, mandatory to implement).
    public static let sha256 = DigestAlgorithm(name: "SHA-256", openSSLName: "SHA256", isSession: false, strength: 20)
    /// SHA-256-sess.
    public static let sha256Session = DigestAlgorithm(
        name: "SHA-256-sess", openSSLName: "SHA256", isSession: true, strength: 20)
    /// SHA-512/256 as FIPS 180-4 §6.7 defines it (its own initial hash value, not truncated SHA-512).
    public static let sha512_256 = DigestAlgorithm(
        name: "SHA-512-256", openSSLName: "SHA512-256", isSession: false, strength: 30)
    /// SHA-512-256-sess.
    public static let sha512_256Session = DigestAlgorithm(
        name: "SHA-512-256-sess", openSSLName: "SHA512-256", isSession: true, strength: 30)

    /// Every algorithm this module knows, strongest first.
    public static let all: [DigestAlgorithm] = [
        .sha512_256, .sha512_256Session, .sha256, .sha256Session, .md5, .md5Session,
    ]

    /// The algorithm named by an `algorithm=` value (case-insensitive); `nil` if unknown.
    public init?(name: String) {
        let lowered = name.lowercased()
        guard let known = DigestAlgorithm.all.first(where: { $0.name.lowercased() == lowered }) else { return nil }
        self = known
    }

    /// The algorithm of a challenge or credentials: `MD5` when the parameter is absent (RFC 7616 §3.3).
    init?(parameter: String?) {
        guard let parameter else {
            self = .md5
            return
        }
        self.init(name: parameter)
    }

    /// Whether OpenSSL offers the hash function (the FIPS provider, for one, has no MD5).
    public var isAvailable: Bool { MessageDigest(openSSLName: openSSLName) != nil }

    public var description: String { name }

    public static func == (a: DigestAlgorithm, b: DigestAlgorithm) -> Bool { a.name == b.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

extension DigestAlgorithm {
    /// H(data): the hash of `bytes` in lower-case hex (RFC 7616 §3.4).
    public func hash(_ bytes: some Collection<UInt8>) throws(AuthenticationError) -> String {
        guard var digest = MessageDigest(openSSLName: openSSLName) else {
            throw AuthenticationError(.unsupportedAlgorithm, detail: "OpenSSL does not offer \(name)")
        }
        guard digest.update(bytes), let output = digest.finish() else {
            throw AuthenticationError(.cryptoFailure, detail: name)
        }
        return Hex.encode(output)
    }

    /// H(a ":" b ":" ...): the fields are joined by colons before hashing.
    public func hash(joining fields: String...) throws(AuthenticationError) -> String {
        try hash(Array(fields.joined(separator: ":").utf8))
    }

    /// H(unq(username) ":" unq(realm) ":" passwd), what a server may store instead of the password
    /// (RFC 7616 §3.4.2).
    public func credentialsHash(username: String, realm: String, password: String) throws(AuthenticationError)
        -> String
    {
        try hash(joining: username, realm, password)
    }

    /// The user hash sent as `username` when the server asks for `userhash=true` (RFC 7616 §3.4.4).
    public func userhash(username: String, realm: String) throws(AuthenticationError) -> String {
        try hash(joining: username, realm)
    }

    /// H(A1) from H(username:realm:password): itself, or for `-sess` H(that ":" nonce ":" cnonce)
    /// (RFC 7616 §3.4.2).
    public func sessionKey(credentialsHash: String, nonce: String, cnonce: String?) throws(AuthenticationError)
        -> String
    {
        guard isSession else { return credentialsHash }
        return try hash(joining: credentialsHash, nonce, cnonce ?? "")
    }

    /// The `response` value (RFC 7616 §3.4.1, RFC 2617 §3.2.2.1 for the legacy form without qop).
    ///
    /// - Parameters:
    ///   - sessionKey: H(A1).
    ///   - nonce: The server nonce, unquoted.
    ///   - nonceCount: `nc`; required with a qop.
    ///   - cnonce: The client nonce; required with a qop.
    ///   - qop: `auth`, `auth-int`, or `nil` for the RFC 2069 form.
    ///   - method: The request method (A2's first field).
    ///   - uri: The `uri` parameter exactly as sent.
    ///   - body: The message body; hashed into A2 for `auth-int` only.
    public func response(
        sessionKey: String, nonce: String, nonceCount: UInt32?, cnonce: String?, qop: DigestQop?, method: String,
        uri: String, body: some Collection<UInt8> = [UInt8]()
    ) throws(AuthenticationError) -> String {
        let a2Hash: String
        switch qop {
        case .authInt?: a2Hash = try hash(joining: method, uri, try hash(body))
        default: a2Hash = try hash(joining: method, uri)
        }
        guard let qop else { return try hash(joining: sessionKey, nonce, a2Hash) }
        return try hash(
            joining: sessionKey, nonce, DigestQop.nonceCountText(nonceCount ?? 0), cnonce ?? "", qop.rawValue, a2Hash)
    }
}

/// The quality of protection of a digest (RFC 7616 §3.3): a closed set.
public enum DigestQop: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Authentication only.
    case auth
    /// Authentication with integrity protection of the message body.
    case authInt = "auth-int"

    public var description: String { rawValue }

    /// `nc` as sent: 8 lower-case hex digits (RFC 7616 §3.4).
    static func nonceCountText(_ count: UInt32) -> String {
        let hex = String(count, radix: 16)
        return String(repeating: "0", count: max(0, 8 - hex.utf8.count)) + hex
    }
}
