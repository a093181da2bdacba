import SIPAuthentication
import SIPMessage
import Testing

/// The client against the verifier.
@Suite("Client against verifier")
struct DigestAuthenticatorTests {
    static let qops: [DigestQop?] = [.auth, .authInt, nil]

    let directory = Directory([
        "example.com": ["alice": "correct horse"],
        "proxy.example.net": ["alice-proxy": "battery staple"],
    ])
    let keychain = Keychain([
        "example.com": ("alice", "correct horse"),
        "proxy.example.net": ("alice-proxy", "battery staple"),
    ])

    func client(seed: UInt64 = 42) -> DigestAuthenticator {
        DigestAuthenticator(random: SeededRandom(seed: seed), credentials: keychain.lookup)
    }

    func verifier(
        _ kind: ChallengeKind = .www, algorithms: [DigestAlgorithm] = [.sha256], qop: [DigestQop] = [.auth],
        opaque: String? = nil, lifetime: UInt64 = 300
    ) -> DigestVerifier {
        DigestVerifier(
            realm: kind == .www ? "example.com" : "proxy.example.net", kind: kind, algorithms: algorithms,
            qopOptions: qop, opaque: opaque, nonceLifetime: lifetime, random: SeededRandom(seed: kind == .www ? 1 : 2))
    }

    @Test(arguments: DigestAlgorithm.all, qops)
    func everyAlgorithmAndQop(algorithm: DigestAlgorithm, qop: DigestQop?) throws {
        for kind in [ChallengeKind.www, .proxy] {
            var server = TestServer(
                [verifier(kind, algorithms: [algorithm], qop: qop.map { [$0] } ?? [])], directory: directory)
            var client = self.client()
            let message = try Messages.request(.message, "sip:bob@example.com", body: "Watson, come here.")
            if algorithm.isSession, qop == nil {
                // A -sess challenge without qop cannot be answered (RFC 2617 §3.2.2 forbids its cnonce).
                let error = try #require(throws: AuthenticationError.self) {
                    try Exchange.run(message, client: &client, server: &server)
                }
                #expect(error.code == .noSupportedChallenge)
                #expect(error.response?.statusCode == kind.statusCode)
                continue
            }
            let first = try Exchange.run(message, client: &client, server: &server)
            #expect(first.responses.map(\.statusCode) == [kind.statusCode, 200], "\(kind)")
            let answered = try #require(first.sent.last)
            let credentials = try #require(try answered.credentials(kind).first)
            #expect(credentials.algorithm == algorithm.name)
            #expect(credentials.qop == qop?.rawValue)
            #expect(credentials.nonceCount == (qop == nil ? nil : 1))
            #expect(credentials.uri == "sip:bob@example.com")
            #expect(try answered.credentials(kind == .www ? .proxy : .www).isEmpty)

            // The nonce is kept: the next request goes through without a challenge (the RFC 2069 form has no
            // nc, so the verifier takes each nonce once and the client answers one more challenge).
            let second = try Exchange.run(
                try Messages.request(.message, "sip:bob@example.com", body: "Again.", cseq: 5), client: &client,
                server: &server)
            #expect(second.final?.statusCode == 200)
            #expect(second.responses.count == (qop == nil ? 2 : 1), "\(kind)")
            if let qop {
                let reused = try #require(try second.sent.first?.credentials(kind).first)
                #expect(reused.nonceCount == 2)
                #expect(reused.qop == qop.rawValue)
                #expect(reused.nonce == credentials.nonce)
            }
        }
    }

    @Test func challengesFromProxyAndRegistrarInOneResponse() throws {
        var server = TestServer([verifier(.proxy), verifier(.www)], directory: directory)
        server.mergesChallenges = true
        var client = self.client()
        let exchange = try Exchange.run(
            try Messages.request(.invite, "sip:bob@example.com"), client: &client, server: &server)
        #expect(exchange.responses.map(\.statusCode) == [407, 200])
        let challenge = exchange.responses[0]
        #expect(try challenge.wwwAuthenticate.count == 1)
        #expect(try challenge.proxyAuthenticate.count == 1)
        let answered = exchange.sent[1]
        #expect(try answered.authorization.map(\.realm) == ["example.com"])
        #expect(try answered.proxyAuthorization.map(\.realm) == ["proxy.example.net"])
        #expect(try answered.authorization.first?.username == "alice")
        #expect(try answered.proxyAuthorization.first?.username == "alice-proxy")
    }

    @Test func proxyThenRegistrarRenewsTheProxyCredentials() throws {
        var server = TestServer([verifier(.proxy), verifier(.www)], directory: directory)
        var client = self.client()
        let exchange = try Exchange.run(
            try Messages.request(.invite, "sip:bob@example.com"), client: &client, server: &server)
        #expect(exchange.responses.map(\.statusCode) == [407, 401, 200])
        let last = exchange.sent[2]
        // One field per realm, the proxy's with the next nc so the proxy does not see a replay.
        #expect(try last.proxyAuthorization.map(\.nonceCount) == [2])
        #expect(try last.authorization.map(\.nonceCount) == [1])
        #expect(client.nonceCount(realm: "proxy.example.net", kind: .proxy) == 2)
        #expect(client.nonceCount(realm: "example.com") == 1)
    }

    @Test func strongestOfSeveralChallengesIsAnswered() throws {
        for (offered, expected) in [
            ([DigestAlgorithm.md5, .sha256, .sha512_256], DigestAlgorithm.sha512_256),
            ([.md5, .sha256], .sha256),
            ([.sha256Session, .md5], .sha256Session),
            ([.md5Session, .md5], .md5Session),
        ] {
            var server = TestServer([verifier(algorithms: offered)], directory: directory)
            var client = self.client()
            let exchange = try Exchange.run(
                try Messages.request(.register, "sip:example.com"), client: &client, server: &server)
            #expect(exchange.final?.statusCode == 200)
            #expect(try exchange.sent.last?.authorization.map(\.algorithm) == [expected.name], "\(offered)")
        }
    }

    @Test func otherSchemesAndUnknownAlgorithmsAreIgnored() throws {
        let request = try Messages.request(.register, "sip:example.com")
        var response = Messages.response(401, to: request)
        response.headerFields.append(name: .wwwAuthenticate, value: #"Basic realm="example.com""#)
        response.headerFields.append(
            name: .wwwAuthenticate, value: #"Digest realm="example.com", nonce="n1", algorithm=SHA3-256, qop="auth""#)
        response.headerFields.append(name: .wwwAuthenticate, value: #"Bearer realm="example.com""#)
        response.headerFields.append(
            name: .wwwAuthenticate, value: #"Digest realm="example.com", nonce="n2", algorithm=MD5, qop="auth""#)
        var client = self.client()
        let answered = try client.respond(to: response, for: request)
        let credentials = try answered.authorization
        #expect(credentials.count == 1)
        #expect(credentials.first?.nonce == "n2")
        #expect(credentials.first?.algorithm == "MD5")

        var unsupported = Messages.response(401, to: request)
        unsupported.headerFields.append(name: .wwwAuthenticate, value: #"Basic realm="example.com""#)
        unsupported.headerFields.append(
            name: .wwwAuthenticate, value: #"Digest realm="example.com", nonce="n", algorithm=SHA3-256"#)
        let error = try #require(throws: AuthenticationError.self) { try client.respond(to: unsupported, for: request) }
        #expect(error.code == .noSupportedChallenge)
        #expect(error.response == unsupported)
    }

    @Test func staleNonceIsRetriedOnce() throws {
        var server = TestServer([verifier(lifetime: 30)], directory: directory)
        var client = self.client()
        let first = try Exchange.run(
            try Messages.request(.register, "sip:example.com"), client: &client, server: &server)
        #expect(first.final?.statusCode == 200)
        server.now += 120
        let later = try Exchange.run(
            try Messages.request(.register, "sip:example.com", cseq: 10), client: &client, server: &server)
        #expect(later.responses.map(\.statusCode) == [401, 200])
        #expect(try later.responses[0].wwwAuthenticate.first?.isStale == true)
        #expect(server.verdicts.contains { $0.outcome == .staleNonce })
        #expect(try later.sent[1].authorization.first?.nonceCount == 1)
    }

    @Test func endlessStaleIsNotFollowed() throws {
        // A broken server that calls every answer stale.
        let request = try Messages.request(.register, "sip:example.com")
        func challenge(_ nonce: String, stale: Bool, to request: SIPRequest) -> SIPResponse {
            var response = Messages.response(401, to: request)
            let stale = stale ? ", stale=true" : ""
            response.headerFields.append(
                name: .wwwAuthenticate, value: #"Digest realm="example.com", nonce="\#(nonce)", qop="auth"\#(stale)"#)
            return response
        }
        var client = self.client()
        let second = try client.respond(to: challenge("n1", stale: false, to: request), for: request)
        let third = try client.respond(to: challenge("n2", stale: true, to: second), for: second)
        #expect(try third.authorization.first?.nonce == "n2")
        let error = try #require(throws: AuthenticationError.self) {
            try client.respond(to: challenge("n3", stale: true, to: third), for: third)
        }
        #expect(error.code == .repeatedStaleNonce)
        #expect(error.realm == "example.com")
    }

    @Test func wrongPasswordFailsInsteadOfLooping() throws {
        var server = TestServer([verifier()], directory: directory)
        let wrong = Keychain(["example.com": ("alice", "tr0ub4dor")])
        var client = DigestAuthenticator(random: SeededRandom(seed: 5), credentials: wrong.lookup)
        let error = try #require(throws: AuthenticationError.self) {
            try Exchange.run(try Messages.request(.register, "sip:example.com"), client: &client, server: &server)
        }
        #expect(error.code == .authenticationFailed)
        #expect(error.realm == "example.com")
        #expect(error.response?.statusCode == 401)
        #expect(server.verdicts.map(\.outcome) == [.missingCredentials, .wrongResponse])
        // The realm is forgotten: nothing stale is sent next time.
        #expect(client.currentChallenges.isEmpty)
        var next = try Messages.request(.register, "sip:example.com", cseq: 3)
        #expect(try client.authorize(&next) == false)
    }

    @Test func preemptiveNonceRefusedOnceIsRetried() throws {
        // A server that forgot its nonces (restarted with a new key) answers without stale=true: one retry.
        var server = TestServer([verifier()], directory: directory)
        var client = self.client()
        #expect(
            try Exchange.run(try Messages.request(.register, "sip:example.com"), client: &client, server: &server)
                .final?.statusCode == 200)
        server.verifiers = [DigestVerifier(realm: "example.com", random: SeededRandom(seed: 77))]
        let after = try Exchange.run(
            try Messages.request(.register, "sip:example.com", cseq: 9), client: &client, server: &server)
        #expect(after.responses.map(\.statusCode) == [401, 200])
        #expect(server.verdicts.last(where: { !$0.isAuthorized })?.outcome == .invalidNonce)
    }

    @Test func nonceCountIncrementsOnReuse() throws {
        var server = TestServer([verifier(opaque: "5ccc069c403ebaf9f0171e9517f40e41")], directory: directory)
        var client = self.client()
        var counts: [UInt32?] = []
        var cnonces: Set<String?> = []
        for cseq in [1, 2, 3, 4] as [UInt32] {
            let exchange = try Exchange.run(
                try Messages.request(.options, "sip:example.com", cseq: cseq * 10), client: &client, server: &server)
            #expect(exchange.final?.statusCode == 200)
            let credentials = try #require(try exchange.sent.last?.authorization.first)
            counts.append(credentials.nonceCount)
            cnonces.insert(credentials.cnonce)
            #expect(credentials.opaque == "5ccc069c403ebaf9f0171e9517f40e41")
            #expect(credentials.parameters["nc"]?.utf8.count == 8)
        }
        #expect(counts == [1, 2, 3, 4])
        #expect(cnonces.count == 1, "one cnonce per server nonce")
        #expect(client.nonceCount(realm: "example.com") == 4)
    }

    @Test func credentialsAreLookedUpPerRealmAndMayRotate() throws {
        var server = TestServer([verifier(.proxy), verifier(.www)], directory: directory)
        server.mergesChallenges = true
        var client = self.client()
        let invite = try Exchange.run(
            try Messages.request(.invite, "sip:bob@example.com"), client: &client, server: &server)
        #expect(invite.final?.statusCode == 200)

        // The registrar's token rotates: both sides learn the new one; the next request uses it.
        directory.set(realm: "example.com", user: "alice", password: "token-2")
        keychain.set(realm: "example.com", user: "alice", password: "token-2")
        let bye = try Exchange.run(
            try Messages.request(.bye, "sip:bob@example.com", cseq: 2), client: &client, server: &server)
        #expect(bye.responses.map(\.statusCode) == [200])
        #expect(try bye.sent[0].proxyAuthorization.first?.username == "alice-proxy")
        #expect(try bye.sent[0].authorization.first?.username == "alice")

        let stranger = Keychain(["example.com": ("alice", "correct horse")])
        var partial = DigestAuthenticator(random: SeededRandom(seed: 1), credentials: stranger.lookup)
        let error = try #require(throws: AuthenticationError.self) {
            try Exchange.run(try Messages.request(.invite, "sip:bob@example.com"), client: &partial, server: &server)
        }
        #expect(error.code == .noCredentials)
        #expect(error.realm == "proxy.example.net")
    }

    @Test func authenticationInfoIsVerifiedAndNextNonceTaken() throws {
        var server = TestServer([verifier()], directory: directory)
        server.sendsNextNonce = true
        var client = self.client()
        let first = try Exchange.run(
            try Messages.request(.register, "sip:example.com"), client: &client, server: &server)
        let ok = try #require(first.final)
        let info = try #require(try ok.authenticationInfo)
        let next = try #require(info.nextNonce)
        #expect(try client.verify(ok, for: first.sent[1]))
        #expect(client.currentChallenges.first?.nonce == next)

        let second = try Exchange.run(
            try Messages.request(.register, "sip:example.com", cseq: 3), client: &client, server: &server)
        #expect(second.responses.map(\.statusCode) == [200])
        #expect(try second.sent[0].authorization.first?.nonce == next)
        #expect(try second.sent[0].authorization.first?.nonceCount == 1)

        // A tampered rspauth is refused.
        var forged = try #require(second.final)
        var parameters = try #require(try forged.authenticationInfo).parameters
        parameters.setQuoted("rspauth", String(repeating: "0", count: 64))
        forged.headerFields.set(.authenticationInfo, AuthenticationInfo(parameters: parameters))
        let error = try #require(throws: AuthenticationError.self) { try client.verify(forged, for: second.sent[0]) }
        #expect(error.code == .responseAuthMismatch)
        // No Authentication-Info: nothing to check.
        #expect(try client.verify(Messages.response(200, to: second.sent[0]), for: second.sent[0]) == false)
    }

    @Test func userhashIsSentWhenAsked() throws {
        var registrar = verifier(algorithms: [.sha512_256])
        registrar.requestsUserhash = true
        var server = TestServer([registrar], directory: directory)
        var client = self.client()
        let exchange = try Exchange.run(
            try Messages.request(.register, "sip:example.com"), client: &client, server: &server)
        #expect(exchange.final?.statusCode == 200)
        let credentials = try #require(try exchange.sent.last?.authorization.first)
        #expect(credentials.parameters["userhash"] == "true")
        #expect(
            credentials.username == (try DigestAlgorithm.sha512_256.userhash(username: "alice", realm: "example.com")))
        #expect(server.verdicts.last?.username == "alice")
    }

    @Test func notAChallenge() throws {
        let request = try Messages.request(.register, "sip:example.com")
        var client = self.client()
        for response in [Messages.response(403, to: request), Messages.response(401, to: request)] {
            let error = try #require(throws: AuthenticationError.self) {
                try client.respond(to: response, for: request)
            }
            #expect(error.code == .notAChallenge)
        }
        var malformed = Messages.response(401, to: request)
        malformed.headerFields.append(name: .wwwAuthenticate, value: #"Digest realm="example.com", nonce="#)
        let error = try #require(throws: AuthenticationError.self) { try client.respond(to: malformed, for: request) }
        #expect(error.code == .malformedChallenge)
    }

    @Test func foreignCredentialsAreKeptAndAckIsLeftAlone() throws {
        var server = TestServer([verifier()], directory: directory)
        var client = self.client()
        var request = try Messages.request(.invite, "sip:bob@example.com")
        request.headerFields.append(
            name: .authorization,
            value: #"Digest username="x", realm="other.example", nonce="z", uri="sip:bob@example.com", response="00""#)
        let exchange = try Exchange.run(request, client: &client, server: &server)
        #expect(exchange.final?.statusCode == 200)
        #expect(try exchange.sent[1].authorization.map(\.realm) == ["other.example", "example.com"])

        for method in [SIPMethod.ack, .cancel] {
            var other = try Messages.request(method, "sip:bob@example.com")
            #expect(try client.authorize(&other) == false)
            #expect(try other.authorization.isEmpty)
        }
        var bye = try Messages.request(.bye, "sip:bob@example.com", cseq: 2)
        #expect(try client.authorize(&bye))
        #expect(try bye.authorization.count == 1)
    }

    @Test func defaultRandomSourceIsOpenSSL() throws {
        // Default nonce key and nonces on the server, default cnonces on the client.
        var server = TestServer([DigestVerifier(realm: "example.com")], directory: directory)
        var cnonces: Set<String> = []
        for _ in 0..<2 {
            var client = DigestAuthenticator(credentials: keychain.lookup)
            let exchange = try Exchange.run(
                try Messages.request(.register, "sip:example.com"), client: &client, server: &server)
            #expect(exchange.final?.statusCode == 200)
            let cnonce = try #require(try exchange.sent.last?.authorization.first?.cnonce)
            #expect(cnonce.utf8.count == 32)
            cnonces.insert(cnonce)
        }
        #expect(cnonces.count == 2)
        var generator = OpenSSLRandomNumberGenerator()
        #expect(generator.next() != generator.next())
    }
}
