public import SIPMessage

/// Why digest authentication could not go on (RFC 3261 §22, RFC 7616, RFC 8760).
///
/// Never carries a password, a stored hash or a computed `response`: only what was wrong, the realm, and the
/// response that ended the attempt.
public struct AuthenticationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; grows over time, so match with `==` against the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let raw: UInt8
        let name: String

        public var description: String { name }

        /// The response is not a 401 or 407, or carries no challenge.
        public static let notAChallenge = Code(raw: 1, name: "not an authentication challenge")
        /// A WWW-Authenticate, Proxy-Authenticate or Authentication-Info field could not be parsed.
        public static let malformedChallenge = Code(raw: 2, name: "malformed challenge")
        /// Every challenge uses another scheme, an unknown algorithm, an unknown qop, or lacks realm or nonce.
        public static let noSupportedChallenge = Code(raw: 3, name: "no supported challenge")
        /// The credentials lookup has nothing for the realm.
        public static let noCredentials = Code(raw: 4, name: "no credentials")
        /// Challenged again, without `stale=true`, right after credentials were sent: wrong credentials.
        public static let authenticationFailed = Code(raw: 5, name: "authentication failed: wrong credentials")
        /// `stale=true` again for the nonce that a stale retry had just brought.
        public static let repeatedStaleNonce = Code(raw: 6, name: "stale nonce again after a stale retry")
        /// OpenSSL does not offer the digest algorithm, or a secret was hashed with another algorithm.
        public static let unsupportedAlgorithm = Code(raw: 7, name: "unsupported digest algorithm")
        /// Authentication-Info's `rspauth` does not prove that the server knows the credentials.
        public static let responseAuthMismatch = Code(raw: 8, name: "rspauth mismatch")
        /// OpenSSL failed while hashing.
        public static let cryptoFailure = Code(raw: 9, name: "digest computation failed")

        public static func == (a: Code, b: Code) -> Bool { a.raw == b.raw }
        public func hash(into hasher: inout Hasher) { hasher.combine(raw) }
    }

    /// What went wrong.
    public let code: Code
    /// The realm concerned, when there is one.
    public let realm: String?
    /// A short explanation (never a secret).
    public let detail: String?
    /// The response that ended the attempt (the final 401/407, or the 2xx whose `rspauth` failed).
    public let response: SIPResponse?

    init(_ code: Code, realm: String? = nil, detail: String? = nil, response: SIPResponse? = nil) {
        self.code = code
        self.realm = realm
        self.detail = detail
        self.response = response
    }

    public var description: String {
        var text = code.name
        if let realm { text += " for realm \"\(realm)\"" }
        if let detail { text += ": \(detail)" }
        if let response { text += " [\(response.statusCode) \(response.reasonPhrase)]" }
        return text
    }

    /// The same error with the final response attached.
    func with(response: SIPResponse) -> AuthenticationError {
        AuthenticationError(code, realm: realm, detail: detail, response: response)
    }
}
