public import SIPMessage

/// A Digest challenge this module can answer (RFC 7616 §3.3, RFC 8760 §2.4), read from a `Challenge`.
public struct DigestChallenge: Sendable, Hashable, CustomStringConvertible {
    /// The header field it came in.
    public var kind: ChallengeKind
    /// The protection space (compared exactly, RFC 7616 §3.3).
    public var realm: String
    /// The server nonce.
    public var nonce: String
    /// Data the client must echo unchanged.
    public var opaque: String?
    /// `MD5` when the challenge names none.
    public var algorithm: DigestAlgorithm
    /// The offered qop values this module supports, in the server's order; empty for the RFC 2069 form.
    public var qopOptions: [DigestQop]
    /// `stale=true`: the previous nonce expired but the credentials were right (RFC 7616 §3.3).
    public var isStale: Bool
    /// `userhash=true`: send H(username:realm) instead of the user name (RFC 7616 §3.4.4).
    public var isUserhash: Bool

    /// A challenge from its parts (a verifier builds its challenges this way).
    public init(
        kind: ChallengeKind, realm: String, nonce: String, opaque: String? = nil, algorithm: DigestAlgorithm = .md5,
        qopOptions: [DigestQop] = [.auth], isStale: Bool = false, isUserhash: Bool = false
    ) {
        self.kind = kind
        self.realm = realm
        self.nonce = nonce
        self.opaque = opaque
        self.algorithm = algorithm
        self.qopOptions = qopOptions
        self.isStale = isStale
        self.isUserhash = isUserhash
    }

    /// Reads a challenge; `nil` when it is not one this module can answer: another scheme, an unknown
    /// algorithm, no realm or nonce, qop values none of which is `auth` or `auth-int`, or a `-sess`
    /// algorithm without qop (whose cnonce RFC 2617 §3.2.2 forbids).
    public init?(_ challenge: Challenge, kind: ChallengeKind) {
        guard challenge.isDigest, challenge.token68 == nil,
            let realm = challenge.realm, let nonce = challenge.nonce,
            let algorithm = DigestAlgorithm(parameter: challenge.algorithm)
        else { return nil }
        let offered = challenge.qopOptions
        let supported = offered.compactMap { DigestQop(rawValue: $0.lowercased()) }
        if !offered.isEmpty, supported.isEmpty { return nil }
        if supported.isEmpty, algorithm.isSession { return nil }
        let userhash = challenge.parameters.unquotedValue("userhash")?.lowercased() == "true"
        self.init(
            kind: kind, realm: realm, nonce: nonce, opaque: challenge.opaque, algorithm: algorithm,
            qopOptions: supported, isStale: challenge.isStale, isUserhash: userhash)
    }

    /// The qop the client uses: `auth` when offered, else `auth-int`, else none (RFC 2069 form).
    public var preferredQop: DigestQop? {
        qopOptions.contains(.auth) ? .auth : qopOptions.first
    }

    /// The challenge as a header value (for a verifier, or to log: it holds no secret).
    public var challenge: Challenge {
        var parameters = Parameters()
        parameters.setQuoted("realm", realm)
        parameters.setQuoted("nonce", nonce)
        if let opaque { parameters.setQuoted("opaque", opaque) }
        parameters.set("algorithm", to: algorithm.name)
        if !qopOptions.isEmpty { parameters.setQuoted("qop", qopOptions.map(\.rawValue).joined(separator: ",")) }
        if isStale { parameters.set("stale", to: "true") }
        if isUserhash { parameters.set("userhash", to: "true") }
        return Challenge(scheme: "Digest", parameters: parameters)
    }

    public var description: String { challenge.description }

    /// The credentials answering this challenge (RFC 7616 §3.4, RFC 3261 §22.4).
    ///
    /// - Parameters:
    ///   - credentials: The user name and secret for `realm`.
    ///   - method: The request method.
    ///   - uri: The `uri` parameter: the Request-URI as sent (RFC 3261 §22.4).
    ///   - body: The request body, hashed for `auth-int`.
    ///   - nonceCount: `nc`, counted per nonce from 1.
    ///   - cnonce: The client nonce (used with a qop only).
    public func credentials(
        _ credentials: DigestCredentials, method: String, uri: String, body: some Collection<UInt8> = [UInt8](),
        nonceCount: UInt32, cnonce: String
    ) throws(AuthenticationError) -> Credentials {
        let qop = preferredQop
        let cnonce: String? = qop == nil ? nil : cnonce
        let credentialsHash = try credentials.secret.credentialsHash(
            for: algorithm, username: credentials.username, realm: realm)
        let sessionKey = try algorithm.sessionKey(credentialsHash: credentialsHash, nonce: nonce, cnonce: cnonce)
        let response = try algorithm.response(
            sessionKey: sessionKey, nonce: nonce, nonceCount: nonceCount, cnonce: cnonce, qop: qop, method: method,
            uri: uri, body: body)
        let username =
            isUserhash ? try algorithm.userhash(username: credentials.username, realm: realm) : credentials.username

        var parameters = Parameters()
        parameters.setQuoted("username", username)
        parameters.setQuoted("realm", realm)
        parameters.setQuoted("nonce", nonce)
        parameters.setQuoted("uri", uri)
        parameters.setQuoted("response", response)
        parameters.set("algorithm", to: algorithm.name)
        if let qop, let cnonce {
            parameters.setQuoted("cnonce", cnonce)
            parameters.set("qop", to: qop.rawValue)
            parameters.set("nc", to: DigestQop.nonceCountText(nonceCount))
        }
        if let opaque { parameters.setQuoted("opaque", opaque) }
        if isUserhash { parameters.set("userhash", to: "true") }
        return Credentials(scheme: "Digest", parameters: parameters)
    }
}
