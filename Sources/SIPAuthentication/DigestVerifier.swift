public import SIPMessage

/// The server side of SIP digest authentication (RFC 3261 §22.4, RFC 7616 §3.3-3.5, RFC 8760 §2.3), for a UAS,
/// registrar or proxy: issues challenges and verifies credentials.
///
/// Nonces carry their issue time and an HMAC-SHA-256 under the verifier's key, so they are checked without
/// being stored; only the highest `nc` per nonce is kept, in a bounded table, to refuse replays. The current
/// time is passed in (seconds since the Unix epoch, or any fixed epoch used consistently); nothing here reads
/// a clock. A value type: keep one per realm, on one loop, so the replay table is shared by all requests.
public struct DigestVerifier: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// What the user lookup is asked for.
    public struct UserQuery: Sendable, Hashable {
        /// The `username` parameter: the user name, or H(username:realm) when `isUserhash` (RFC 7616 §3.4.4).
        public var username: String
        /// Whether `username` is a user hash; the lookup then finds the user whose
        /// `algorithm.userhash(username:realm:)` equals it.
        public var isUserhash: Bool
        /// The verifier's realm.
        public var realm: String
        /// The algorithm of the credentials: the one a stored hash must match.
        public var algorithm: DigestAlgorithm
    }

    /// The protection space.
    public let realm: String
    /// Which header fields it challenges and reads.
    public let kind: ChallengeKind
    /// The algorithms offered, one challenge each, in the order of preference (RFC 8760 §2.3).
    public var algorithms: [DigestAlgorithm]
    /// The qop values offered; empty for the RFC 2069 form (no `nc`, so each nonce is good for one request).
    public var qopOptions: [DigestQop]
    /// Sent in every challenge and required back unchanged; `nil` for none.
    public var opaque: String?
    /// Whether challenges ask for `userhash=true` (RFC 7616 §3.4.4); plain user names are still accepted.
    public var requestsUserhash: Bool
    /// How long a nonce stays fresh, in seconds; older ones get `stale=true`.
    public var nonceLifetime: UInt64

    let key: [UInt8]
    var random: any RandomNumberGenerator & Sendable
    var nonceCounts: NonceCountTable

    /// A verifier for one realm.
    ///
    /// - Parameters:
    ///   - realm: The realm (RFC 3261 §22.1: a domain name, such as the registrar's domain).
    ///   - kind: `.www` for a UAS or registrar (401), `.proxy` for a proxy (407).
    ///   - algorithms: Offered in this order (default SHA-256 then MD5, for old clients).
    ///   - qopOptions: Default `auth`.
    ///   - opaque: Echoed by clients; `nil` for none.
    ///   - requestsUserhash: Ask clients to hash the user name.
    ///   - nonceLifetime: Seconds (default 300).
    ///   - maximumTrackedNonces: The size of the replay table (default 4096).
    ///   - key: The HMAC key for nonces; by default 32 random bytes. Share it between instances that must accept
    ///     each other's nonces.
    ///   - random: The source of nonces and of the default key (default: OpenSSL's `RAND_bytes`).
    public init(
        realm: String, kind: ChallengeKind = .www, algorithms: [DigestAlgorithm] = [.sha256, .md5],
        qopOptions: [DigestQop] = [.auth], opaque: String? = nil, requestsUserhash: Bool = false,
        nonceLifetime: UInt64 = 300, maximumTrackedNonces: Int = 4096, key: [UInt8]? = nil,
        random: some RandomNumberGenerator & Sendable = OpenSSLRandomNumberGenerator()
    ) {
        var random = random
        self.realm = realm
        self.kind = kind
        self.algorithms = algorithms
        self.qopOptions = qopOptions
        self.opaque = opaque
        self.requestsUserhash = requestsUserhash
        self.nonceLifetime = nonceLifetime
        self.key = key ?? random.bytes(32)
        self.random = random
        self.nonceCounts = NonceCountTable(capacity: maximumTrackedNonces)
    }

    /// The challenges to send: one per algorithm, all with one fresh nonce (RFC 8760 §2.3).
    ///
    /// - Parameters:
    ///   - now: The current time in seconds.
    ///   - stale: `true` when answering a stale nonce (`DigestVerification.isStale`).
    public mutating func challenges(now: UInt64, stale: Bool = false) -> [DigestChallenge] {
        let nonce = makeNonce(now: now)
        return algorithms.map {
            DigestChallenge(
                kind: kind, realm: realm, nonce: nonce, opaque: opaque, algorithm: $0, qopOptions: qopOptions,
                isStale: stale, isUserhash: requestsUserhash)
        }
    }

    /// Adds the challenges to a 401 or 407 response as WWW-Authenticate or Proxy-Authenticate fields.
    public mutating func addChallenges(to response: inout SIPResponse, now: UInt64, stale: Bool = false) {
        for challenge in challenges(now: now, stale: stale) {
            response.headerFields.append(kind.challengeField, challenge.challenge)
        }
    }

    public var description: String {
        "DigestVerifier(realm: \"\(realm)\", \(kind), algorithms: \(algorithms.map(\.name)), "
            + "qop: \(qopOptions.map(\.rawValue)), tracked nonces: \(nonceCounts.count))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "realm": realm, "kind": kind, "algorithms": algorithms, "qopOptions": qopOptions,
                "nonceLifetime": nonceLifetime,
            ],
            displayStyle: .struct)
    }
}
