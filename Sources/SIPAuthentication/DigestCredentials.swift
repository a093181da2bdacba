/// What proves a user's identity in a realm: the password, or the hash H(username:realm:password) a server
/// may store instead (RFC 7616 §3.4.2, §5.2).
///
/// Its description, debug description and mirror never show the secret.
public struct DigestSecret: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    enum Storage: Sendable {
        case password(String)
        case credentialsHash(String, DigestAlgorithm)
    }

    let storage: Storage

    /// A clear-text password (UTF-8 on the wire, as RFC 7616 §4 asks for).
    public static func password(_ password: String) -> DigestSecret {
        DigestSecret(storage: .password(password))
    }

    /// H(username ":" realm ":" password) in hex, made with `algorithm`'s hash function; it answers only
    /// challenges that use the same hash function (with or without `-sess`).
    public static func credentialsHash(_ hex: String, algorithm: DigestAlgorithm) -> DigestSecret {
        DigestSecret(storage: .credentialsHash(hex.lowercased(), algorithm))
    }

    /// H(username:realm:password) for `algorithm`.
    func credentialsHash(for algorithm: DigestAlgorithm, username: String, realm: String) throws(AuthenticationError)
        -> String
    {
        switch storage {
        case .password(let password):
            return try algorithm.credentialsHash(username: username, realm: realm, password: password)
        case .credentialsHash(let hex, let hashedWith):
            guard hashedWith.openSSLName == algorithm.openSSLName else {
                throw AuthenticationError(
                    .unsupportedAlgorithm, realm: realm,
                    detail: "the stored hash is \(hashedWith.name), the challenge asks for \(algorithm.name)")
            }
            return hex
        }
    }

    /// Whether this secret can answer a challenge for `algorithm`.
    func canAnswer(_ algorithm: DigestAlgorithm) -> Bool {
        switch storage {
        case .password: true
        case .credentialsHash(_, let hashedWith): hashedWith.openSSLName == algorithm.openSSLName
        }
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "DigestSecret(<redacted>)" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// A user name and its secret for one realm, as the credentials lookup returns them.
///
/// Its description, debug description and mirror show the user name only.
public struct DigestCredentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The user name (RFC 3261 §22.4: often the user part of the AOR, or an authorization ID).
    public var username: String
    /// The password or stored hash.
    public var secret: DigestSecret

    /// A user name and a password or stored hash.
    public init(username: String, secret: DigestSecret) {
        self.username = username
        self.secret = secret
    }

    /// A user name and a clear-text password.
    public init(username: String, password: String) {
        self.init(username: username, secret: .password(password))
    }

    public var description: String { "DigestCredentials(username: \"\(username)\", secret: <redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["username": username], displayStyle: .struct) }
}
