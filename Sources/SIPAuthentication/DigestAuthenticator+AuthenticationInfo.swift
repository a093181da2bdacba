public import SIPMessage

extension DigestAuthenticator {
    /// Reads Authentication-Info from the response to a request this authenticator authorized (RFC 3261 §20.6,
    /// RFC 7616 §3.5): checks `rspauth`, which proves the server knows the credentials, and keeps `nextnonce`
    /// for the next request of the realm.
    ///
    /// - Parameters:
    ///   - response: The final response (normally 2xx).
    ///   - request: The request it answers, as sent (with its Authorization).
    /// - Returns: Whether an `rspauth` was present and verified; `false` when there was nothing to check.
    /// - Throws: `.responseAuthMismatch` when `rspauth`, `cnonce` or `nc` does not match, `.malformedChallenge`
    ///   for an unreadable field, `.noCredentials` if the lookup no longer has the realm.
    @discardableResult
    public mutating func verify(_ response: SIPResponse, for request: SIPRequest) throws(AuthenticationError) -> Bool {
        do {
            return try readAuthenticationInfo(response, for: request)
        } catch {
            throw error.with(response: response)
        }
    }

    private mutating func readAuthenticationInfo(_ response: SIPResponse, for request: SIPRequest)
        throws(AuthenticationError) -> Bool
    {
        let info: AuthenticationInfo?
        do throws(MessageError) {
            info = try response.authenticationInfo
        } catch {
            throw AuthenticationError(.malformedChallenge, detail: error.reasonPhrase)
        }
        guard let info else { return false }
        let sent = (try? request.authorization) ?? []
        var found: (Credentials, Int)?
        for credentials in sent where credentials.isDigest {
            if let realm = credentials.realm, let i = realms.firstIndex(where: { $0.matches(.www, realm) }) {
                found = (credentials, i)
                break
            }
        }
        guard let (credentials, index) = found else { return false }
        let realm = realms[index].challenge.realm

        var verified = false
        if let rspauth = info.responseAuth {
            let expected = try expectedResponseAuth(info, sent: credentials, realm: realm, body: response.bodyBytes)
            guard Crypto.constantTimeEqual(Array(rspauth.lowercased().utf8), Array(expected.utf8)) else {
                throw AuthenticationError(.responseAuthMismatch, realm: realm)
            }
            verified = true
        }
        if let next = info.nextNonce, !next.isEmpty {
            realms[index].challenge.nonce = next
            realms[index].challenge.isStale = false
            realms[index].nonceCount = 0
            realms[index].uses = 0
            realms[index].cnonce = makeCnonce()
            realms[index].origin = .nextNonce
        }
        return verified
    }

    /// rspauth: the response digest with an empty method in A2 (RFC 7616 §3.5, RFC 2617 §3.2.3).
    private func expectedResponseAuth(
        _ info: AuthenticationInfo, sent: Credentials, realm: String, body: ArraySlice<UInt8>
    ) throws(AuthenticationError) -> String {
        guard let algorithm = DigestAlgorithm(parameter: sent.algorithm) else {
            throw AuthenticationError(.unsupportedAlgorithm, realm: realm, detail: sent.algorithm)
        }
        guard let nonce = sent.nonce, let uri = sent.uri else {
            throw AuthenticationError(
                .responseAuthMismatch, realm: realm, detail: "the request's credentials are incomplete")
        }
        if let cnonce = info.cnonce, cnonce != sent.cnonce {
            throw AuthenticationError(.responseAuthMismatch, realm: realm, detail: "cnonce differs")
        }
        if let count = info.nonceCount, count != sent.nonceCount {
            throw AuthenticationError(.responseAuthMismatch, realm: realm, detail: "nc differs")
        }
        let qopText = info.qop ?? sent.qop
        let qop = qopText.flatMap { DigestQop(rawValue: $0.lowercased()) }
        guard let credentials = lookup(realm) else { throw AuthenticationError(.noCredentials, realm: realm) }
        let credentialsHash = try credentials.secret.credentialsHash(
            for: algorithm, username: credentials.username, realm: realm)
        let sessionKey = try algorithm.sessionKey(credentialsHash: credentialsHash, nonce: nonce, cnonce: sent.cnonce)
        return try algorithm.response(
            sessionKey: sessionKey, nonce: nonce, nonceCount: sent.nonceCount, cnonce: sent.cnonce, qop: qop,
            method: "", uri: uri, body: body)
    }
}
