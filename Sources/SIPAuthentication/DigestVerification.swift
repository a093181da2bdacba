/// The verdict of `DigestVerifier.verify` on one request's credentials (RFC 3261 §22.4, RFC 7616 §3.4).
///
/// Holds no secret in its description or mirror. When not authorized, answer with a new challenge
/// (`DigestVerifier.addChallenges(to:now:stale:)`, passing `isStale`), or with 403 to stop a client.
public struct DigestVerification: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// What the verifier found; grows over time, so match with `==` against the static members.
    public struct Outcome: Hashable, Sendable, CustomStringConvertible {
        let raw: UInt8
        let name: String

        public var description: String { name }

        /// The credentials are right, fresh and not replayed.
        public static let authorized = Outcome(raw: 0, name: "authorized")
        /// No Digest credentials at all: challenge.
        public static let missingCredentials = Outcome(raw: 1, name: "missing credentials")
        /// Unreadable credentials, or a parameter missing (`username`, `nonce`, `uri`, `response`).
        public static let malformedCredentials = Outcome(raw: 2, name: "malformed credentials")
        /// Credentials only for other realms.
        public static let realmMismatch = Outcome(raw: 3, name: "realm mismatch")
        /// An algorithm this verifier does not offer, or one the stored secret cannot answer.
        public static let unsupportedAlgorithm = Outcome(raw: 4, name: "unsupported algorithm")
        /// A nonce this verifier did not issue (or issued under another key).
        public static let invalidNonce = Outcome(raw: 5, name: "invalid nonce")
        /// The response is right but the nonce is too old (or forgotten): challenge with `stale=true`.
        public static let staleNonce = Outcome(raw: 6, name: "stale nonce")
        /// `nc` did not increase for this nonce: a replay.
        public static let replayedNonceCount = Outcome(raw: 7, name: "replayed nonce count")
        /// `uri` is not the Request-URI.
        public static let uriMismatch = Outcome(raw: 8, name: "uri mismatch")
        /// A qop that was not offered, or qop without `nc`/`cnonce`, or none when one was required.
        public static let qopMismatch = Outcome(raw: 9, name: "qop mismatch")
        /// `opaque` not echoed unchanged.
        public static let opaqueMismatch = Outcome(raw: 10, name: "opaque mismatch")
        /// The lookup does not know the user.
        public static let unknownUser = Outcome(raw: 11, name: "unknown user")
        /// The `response` digest is wrong: wrong password, or a changed request.
        public static let wrongResponse = Outcome(raw: 12, name: "wrong response")

        public static func == (a: Outcome, b: Outcome) -> Bool { a.raw == b.raw }
        public func hash(into hasher: inout Hasher) { hasher.combine(raw) }
    }

    /// What was found.
    public let outcome: Outcome
    /// The user: as the lookup named it once known, else as the credentials claimed it.
    public let username: String?
    /// The algorithm of the credentials, when known.
    public let algorithm: DigestAlgorithm?
    /// The qop of the credentials, when any.
    public let qop: DigestQop?
    /// What `rspauth` needs; present only when authorized.
    let proof: Proof?

    /// The values of an authorized request that Authentication-Info's `rspauth` is computed from.
    struct Proof: Sendable, Hashable {
        var sessionKey: String
        var nonce: String
        var nonceCount: UInt32?
        var cnonce: String?
        var uri: String
    }

    init(
        _ outcome: Outcome, username: String? = nil, algorithm: DigestAlgorithm? = nil, qop: DigestQop? = nil,
        proof: Proof? = nil
    ) {
        self.outcome = outcome
        self.username = username
        self.algorithm = algorithm
        self.qop = qop
        self.proof = proof
    }

    /// Whether the request is authenticated.
    public var isAuthorized: Bool { outcome == .authorized }

    /// Whether the new challenge should carry `stale=true` (RFC 7616 §3.3).
    public var isStale: Bool { outcome == .staleNonce }

    public var description: String {
        var parts: [String] = []
        if let username { parts.append("user \"\(username)\"") }
        if let algorithm { parts.append(algorithm.name) }
        if let qop { parts.append("qop=\(qop)") }
        return parts.isEmpty ? outcome.name : "\(outcome.name) (\(parts.joined(separator: ", ")))"
    }

    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "outcome": outcome, "username": username as Any, "algorithm": algorithm as Any, "qop": qop as Any,
            ],
            displayStyle: .struct)
    }
}
