public import SIPMessage

extension DigestVerifier {
    /// Verifies the request's Authorization (or Proxy-Authorization) for this realm (RFC 3261 §22.4,
    /// RFC 7616 §3.4-3.5).
    ///
    /// Checks, in order: credentials present and readable, realm, algorithm offered, nonce issued here, opaque,
    /// uri equal to the Request-URI, qop, user known, response digest, nonce age, and `nc` increasing. The
    /// nonce counts are updated only for a right digest, so forged requests cannot fill the replay table.
    ///
    /// - Parameters:
    ///   - request: The request as received.
    ///   - now: The current time in seconds (same epoch as for `challenges(now:stale:)`).
    ///   - users: Finds the user name and secret for a query; `nil` for an unknown user.
    public mutating func verify(
        _ request: SIPRequest, now: UInt64, users: (UserQuery) -> DigestCredentials?
    ) -> DigestVerification {
        let all: [Credentials]
        do throws(MessageError) {
            all = kind == .www ? try request.authorization : try request.proxyAuthorization
        } catch {
            return DigestVerification(.malformedCredentials)
        }
        let digest = all.filter(\.isDigest)
        guard !digest.isEmpty else { return DigestVerification(.missingCredentials) }
        guard let credentials = digest.first(where: { $0.realm == realm }) else {
            return DigestVerification(.realmMismatch, username: digest.first?.username)
        }
        guard let claimed = credentials.username, let nonce = credentials.nonce, let uri = credentials.uri,
            let response = credentials.response
        else { return DigestVerification(.malformedCredentials, username: credentials.username) }
        guard let algorithm = DigestAlgorithm(parameter: credentials.algorithm), algorithms.contains(algorithm) else {
            return DigestVerification(.unsupportedAlgorithm, username: claimed)
        }
        guard let issuedAt = issueTime(ofNonce: nonce) else {
            return DigestVerification(.invalidNonce, username: claimed, algorithm: algorithm)
        }
        if let opaque, credentials.opaque != opaque {
            return DigestVerification(.opaqueMismatch, username: claimed, algorithm: algorithm)
        }
        guard Self.uri(uri, matches: request.uri) else {
            return DigestVerification(.uriMismatch, username: claimed, algorithm: algorithm)
        }

        let qop: DigestQop?
        let nonceCount: UInt32?
        let cnonce: String?
        if let qopText = credentials.qop {
            guard let value = DigestQop(rawValue: qopText.lowercased()), qopOptions.contains(value),
                let count = credentials.nonceCount, let clientNonce = credentials.cnonce, !clientNonce.isEmpty
            else { return DigestVerification(.qopMismatch, username: claimed, algorithm: algorithm) }
            (qop, nonceCount, cnonce) = (value, count, clientNonce)
        } else {
            guard qopOptions.isEmpty, !algorithm.isSession else {
                return DigestVerification(.qopMismatch, username: claimed, algorithm: algorithm)
            }
            (qop, nonceCount, cnonce) = (nil, nil, nil)
        }

        let isUserhash = credentials.parameters.unquotedValue("userhash")?.lowercased() == "true"
        let query = UserQuery(username: claimed, isUserhash: isUserhash, realm: realm, algorithm: algorithm)
        guard let user = users(query) else {
            return DigestVerification(.unknownUser, username: claimed, algorithm: algorithm, qop: qop)
        }
        let expected: String
        let sessionKey: String
        do throws(AuthenticationError) {
            let credentialsHash = try user.secret.credentialsHash(
                for: algorithm, username: user.username, realm: realm)
            sessionKey = try algorithm.sessionKey(credentialsHash: credentialsHash, nonce: nonce, cnonce: cnonce)
            expected = try algorithm.response(
                sessionKey: sessionKey, nonce: nonce, nonceCount: nonceCount, cnonce: cnonce, qop: qop,
                method: request.method.rawValue, uri: uri, body: request.bodyBytes)
        } catch {
            return DigestVerification(.unsupportedAlgorithm, username: user.username, algorithm: algorithm, qop: qop)
        }
        guard Crypto.constantTimeEqual(Array(response.lowercased().utf8), Array(expected.utf8)) else {
            return DigestVerification(.wrongResponse, username: user.username, algorithm: algorithm, qop: qop)
        }

        let stale = DigestVerification(.staleNonce, username: user.username, algorithm: algorithm, qop: qop)
        if now > issuedAt, now - issuedAt > nonceLifetime { return stale }
        // Without qop there is no nc: each nonce is good for one request.
        switch nonceCounts.record(
            nonce: nonce, issuedAt: issuedAt, count: nonceCount ?? 1, now: now, lifetime: nonceLifetime)
        {
        case .accepted: break
        case .forgotten: return stale
        case .replayed:
            return DigestVerification(.replayedNonceCount, username: user.username, algorithm: algorithm, qop: qop)
        }
        let proof = DigestVerification.Proof(
            sessionKey: sessionKey, nonce: nonce, nonceCount: nonceCount, cnonce: cnonce, uri: uri)
        return DigestVerification(.authorized, username: user.username, algorithm: algorithm, qop: qop, proof: proof)
    }

    /// Authentication-Info for the response to an authorized request (RFC 7616 §3.5, RFC 3261 §20.6):
    /// `rspauth` (with a qop), `qop`, `cnonce`, `nc`, and a `nextnonce` when `nextNonceAt` is given.
    ///
    /// - Parameters:
    ///   - verification: An authorized verification.
    ///   - responseBody: The body of the response being sent (hashed for `auth-int`).
    ///   - nextNonceAt: The current time, to issue a `nextnonce`; `nil` for none.
    /// - Returns: `nil` when the verification is not authorized.
    public mutating func authenticationInfo(
        for verification: DigestVerification, responseBody: some Collection<UInt8> = [UInt8](),
        nextNonceAt: UInt64? = nil
    ) throws(AuthenticationError) -> AuthenticationInfo? {
        guard verification.isAuthorized, let proof = verification.proof, let algorithm = verification.algorithm else {
            return nil
        }
        var parameters = Parameters()
        if let qop = verification.qop, let count = proof.nonceCount, let cnonce = proof.cnonce {
            let rspauth = try algorithm.response(
                sessionKey: proof.sessionKey, nonce: proof.nonce, nonceCount: count, cnonce: cnonce, qop: qop,
                method: "", uri: proof.uri, body: responseBody)
            parameters.set("qop", to: qop.rawValue)
            parameters.setQuoted("rspauth", rspauth)
            parameters.setQuoted("cnonce", cnonce)
            parameters.set("nc", to: DigestQop.nonceCountText(count))
        }
        if let now = nextNonceAt { parameters.setQuoted("nextnonce", makeNonce(now: now)) }
        return parameters.isEmpty ? nil : AuthenticationInfo(parameters: parameters)
    }

    /// `uri` names the Request-URI: the same text, or an equivalent URI (RFC 3261 §19.1.4).
    static func uri(_ text: String, matches requestURI: URI) -> Bool {
        if text == requestURI.description { return true }
        guard let parsed = try? URI(text) else { return false }
        return parsed.isEquivalent(to: requestURI)
    }
}
