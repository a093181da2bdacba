public import SIPMessage

/// The client side of SIP digest authentication (RFC 3261 §22.2-22.4, RFC 7616 §3.4, RFC 8760 §2.4): answers
/// 401 and 407 challenges, keeps each realm's nonce to authorize later requests pre-emptively, and checks
/// Authentication-Info.
///
/// A value type with no I/O: keep one per account (registration and calls of one user), on the user agent's
/// loop. Credentials are looked up per realm on every use, so a rotated password or token takes effect on the
/// next request; the authenticator never stores them.
///
/// Loop protection: credentials sent in answer to a challenge and then met by a new challenge without
/// `stale=true` mean wrong credentials (`AuthenticationError.authenticationFailed`); `stale=true` is retried
/// once; a nonce that was used pre-emptively (or came from `nextnonce`) may be refused once without failing.
public struct DigestAuthenticator: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Returns the credentials for a realm, or `nil` when the account has none for it.
    public typealias CredentialsLookup = @Sendable (_ realm: String) -> DigestCredentials?

    /// Where the nonce of a realm came from: decides whether a refusal is final.
    enum NonceOrigin: Sendable, Hashable {
        case challenge
        case staleChallenge
        case nextNonce
    }

    /// What the authenticator knows about one realm: the challenge answered and the use of its nonce.
    struct RealmState: Sendable {
        var challenge: DigestChallenge
        /// The last `nc` sent with this nonce.
        var nonceCount: UInt32
        /// The client nonce for this server nonce (one per nonce, so `-sess` keys stay the same).
        var cnonce: String
        var origin: NonceOrigin
        /// Requests authorized with this nonce.
        var uses: Int

        func matches(_ kind: ChallengeKind, _ realm: String) -> Bool {
            challenge.kind == kind && challenge.realm == realm
        }
    }

    let lookup: CredentialsLookup
    var random: any RandomNumberGenerator & Sendable
    var realms: [RealmState] = []

    /// The most realms remembered; the oldest is forgotten first.
    public var maximumRealms = 16

    /// An authenticator for one account.
    ///
    /// - Parameters:
    ///   - random: The source of client nonces (default: OpenSSL's `RAND_bytes`).
    ///   - credentials: Looked up by realm each time credentials are computed.
    public init(
        random: some RandomNumberGenerator & Sendable = OpenSSLRandomNumberGenerator(),
        credentials: @escaping CredentialsLookup
    ) {
        self.lookup = credentials
        self.random = random
    }

    /// The challenges whose nonces are kept for pre-emptive authorization, oldest first (no secrets).
    public var currentChallenges: [DigestChallenge] { realms.map(\.challenge) }

    /// The last `nc` sent for a realm, if its nonce is kept.
    public func nonceCount(realm: String, kind: ChallengeKind = .www) -> UInt32? {
        realms.first { $0.matches(kind, realm) }?.nonceCount
    }

    /// Forgets every nonce (after the account's credentials changed, say).
    public mutating func reset() { realms.removeAll() }

    /// Forgets one realm's nonce.
    public mutating func forget(realm: String, kind: ChallengeKind = .www) {
        realms.removeAll { $0.matches(kind, realm) }
    }

    public var description: String {
        let states = realms.map {
            "\($0.challenge.kind) \"\($0.challenge.realm)\" \($0.challenge.algorithm) nc=\($0.nonceCount)"
        }
        return "DigestAuthenticator(realms: [\(states.joined(separator: ", "))])"
    }

    public var debugDescription: String { description }
}

extension DigestAuthenticator {
    /// Answers a 401 or 407: returns `request` with one Authorization per WWW-Authenticate realm and one
    /// Proxy-Authorization per Proxy-Authenticate realm (RFC 3261 §22.2, §22.3); credentials it sent earlier
    /// for other known realms are renewed with the next `nc`, and fields for realms it does not know are kept.
    ///
    /// Per realm it answers the strongest algorithm offered (SHA-512-256, then SHA-256, then MD5; ties go to
    /// the topmost). RFC 8760 §2.4 lets local policy override "topmost supported"; strongest-first keeps an
    /// on-path attacker from downgrading by reordering fields (RFC 8760 §3).
    ///
    /// The caller then gives the request a new CSeq and Via branch (RFC 3261 §8.1.3.5) and sends it.
    ///
    /// - Parameters:
    ///   - response: The 401 or 407 (it may hold both kinds of challenge, RFC 3261 §16.7).
    ///   - request: The request that was challenged, as sent.
    /// - Throws: `AuthenticationError` with the response attached: `.notAChallenge`, `.malformedChallenge`,
    ///   `.noSupportedChallenge`, `.noCredentials`, `.authenticationFailed`, `.repeatedStaleNonce`,
    ///   `.unsupportedAlgorithm`, `.cryptoFailure`.
    public mutating func respond(to response: SIPResponse, for request: SIPRequest) throws(AuthenticationError)
        -> SIPRequest
    {
        do {
            return try answer(response, for: request)
        } catch {
            throw error.with(response: response)
        }
    }

    private mutating func answer(_ response: SIPResponse, for request: SIPRequest) throws(AuthenticationError)
        -> SIPRequest
    {
        guard response.statusCode == 401 || response.statusCode == 407 else {
            throw AuthenticationError(.notAChallenge, detail: "status \(response.statusCode)")
        }
        let selected = try select(from: response)
        var states = realms
        for (challenge, _) in selected {
            let kind = challenge.kind
            let index = states.firstIndex { $0.matches(kind, challenge.realm) }
            let origin: NonceOrigin
            if let sent = Self.sentCredentials(in: request, kind: kind, realm: challenge.realm) {
                let current = index.map { states[$0] }
                let refusedOnFirstUse =
                    current.map {
                        $0.challenge.nonce == sent.nonce && $0.uses <= 1 && $0.origin != .nextNonce
                    } ?? false
                if challenge.isStale {
                    if refusedOnFirstUse, current?.origin == .staleChallenge {
                        forget(realm: challenge.realm, kind: kind)
                        throw AuthenticationError(.repeatedStaleNonce, realm: challenge.realm)
                    }
                    origin = .staleChallenge
                } else {
                    if refusedOnFirstUse {
                        forget(realm: challenge.realm, kind: kind)
                        throw AuthenticationError(.authenticationFailed, realm: challenge.realm)
                    }
                    origin = .challenge
                }
            } else {
                origin = .challenge
            }
            let state = RealmState(
                challenge: challenge, nonceCount: 0, cnonce: makeCnonce(), origin: origin, uses: 0)
            if let index {
                states[index] = state
            } else {
                states.append(state)
            }
        }

        // Renew every credential this authenticator made; answer the challenged realms.
        var answered = request
        var refreshed: [Int] = []
        for (i, state) in states.enumerated() {
            let kind = state.challenge.kind
            let realm = state.challenge.realm
            let isChallenged = selected.contains { $0.0.kind == kind && $0.0.realm == realm }
            if isChallenged || Self.sentCredentials(in: request, kind: kind, realm: realm) != nil {
                refreshed.append(i)
            }
        }
        for i in refreshed {
            let kind = states[i].challenge.kind
            let realm = states[i].challenge.realm
            Self.removeCredentials(from: &answered, kind: kind, realm: realm)
            let credentials =
                selected.first { $0.0.kind == kind && $0.0.realm == realm }?.1 ?? lookup(realm)
            guard let credentials else {
                throw AuthenticationError(.noCredentials, realm: realm)
            }
            let value = try Self.credentials(for: &states[i], credentials, request: answered)
            answered.headerFields.append(kind.credentialsField, value)
        }
        realms = states
        trimRealms()
        return answered
    }

    /// Authorizes `request` pre-emptively with every kept nonce (next `nc` each), for the realms whose
    /// credentials it does not carry yet (RFC 3261 §22.3, RFC 7616 §3.4.5).
    ///
    /// ACK and CANCEL are left alone: they carry the INVITE's credentials (RFC 3261 §22.1, §13.2.2.4). With
    /// `auth-int`, call this after the body is final. A realm whose credentials the lookup no longer has is
    /// skipped (the server will challenge).
    ///
    /// - Returns: Whether any credentials were added.
    @discardableResult
    public mutating func authorize(_ request: inout SIPRequest) throws(AuthenticationError) -> Bool {
        guard request.method != .ack, request.method != .cancel else { return false }
        var states = realms
        var authorized = request
        var added = false
        for i in states.indices {
            let kind = states[i].challenge.kind
            let realm = states[i].challenge.realm
            guard Self.sentCredentials(in: request, kind: kind, realm: realm) == nil,
                let credentials = lookup(realm), credentials.secret.canAnswer(states[i].challenge.algorithm)
            else { continue }
            let value = try Self.credentials(for: &states[i], credentials, request: request)
            authorized.headerFields.append(kind.credentialsField, value)
            added = true
        }
        realms = states
        request = authorized
        return added
    }

    /// Computes credentials with the next `nc` of `state`.
    static func credentials(for state: inout RealmState, _ credentials: DigestCredentials, request: SIPRequest)
        throws(AuthenticationError) -> Credentials
    {
        let count = state.nonceCount &+ 1
        let value = try state.challenge.credentials(
            credentials, method: request.method.rawValue, uri: request.uri.description, body: request.bodyBytes,
            nonceCount: count, cnonce: state.cnonce)
        state.nonceCount = count
        state.uses += 1
        return value
    }

    mutating func makeCnonce() -> String { Hex.encode(random.bytes(16)) }

    private mutating func trimRealms() {
        if realms.count > max(1, maximumRealms) { realms.removeFirst(realms.count - max(1, maximumRealms)) }
    }
}
