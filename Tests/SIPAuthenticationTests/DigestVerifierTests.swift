import SIPAuthentication
import SIPMessage
import Testing

@Suite("Verifier")
struct DigestVerifierTests {
    static let now: UInt64 = 1_700_000_000
    let directory = Directory(["example.com": ["alice": "correct horse"]])

    func verifier(
        algorithms: [DigestAlgorithm] = [.sha256], qop: [DigestQop] = [.auth], opaque: String? = nil,
        capacity: Int = 4096, seed: UInt64 = 1
    ) -> DigestVerifier {
        DigestVerifier(
            realm: "example.com", algorithms: algorithms, qopOptions: qop, opaque: opaque, nonceLifetime: 60,
            maximumTrackedNonces: capacity, random: SeededRandom(seed: seed))
    }

    /// A REGISTER carrying credentials computed for `challenge`.
    func register(
        answering challenge: DigestChallenge, user: String = "alice", password: String = "correct horse",
        uri: String = "sip:example.com", nonceCount: UInt32 = 1, edit: (inout Credentials) -> Void = { _ in }
    ) throws -> SIPRequest {
        var request = try Messages.request(.register, "sip:example.com")
        var credentials = try challenge.credentials(
            DigestCredentials(username: user, password: password), method: "REGISTER", uri: uri,
            nonceCount: nonceCount, cnonce: "0a4f113b")
        edit(&credentials)
        request.headerFields.append(.authorization, credentials)
        return request
    }

    func firstChallenge(_ verifier: inout DigestVerifier, at time: UInt64 = now) throws -> DigestChallenge {
        try #require(verifier.challenges(now: time).first)
    }

    @Test func challengesCarryOneNonceForEveryAlgorithm() throws {
        var verifier = self.verifier(algorithms: [.sha512_256, .sha256, .md5], opaque: "5ccc069c")
        let challenges = verifier.challenges(now: Self.now)
        #expect(challenges.map(\.algorithm) == [.sha512_256, .sha256, .md5])
        #expect(Set(challenges.map(\.nonce)).count == 1)
        #expect(challenges.allSatisfy { $0.opaque == "5ccc069c" && $0.qopOptions == [.auth] && !$0.isStale })
        let next = verifier.challenges(now: Self.now, stale: true)
        #expect(next[0].nonce != challenges[0].nonce)
        #expect(next.allSatisfy { $0.isStale })

        var response = SIPResponse(statusCode: 401)
        verifier.addChallenges(to: &response, now: Self.now)
        let parsed = try SIPResponse(parsing: response.serialized())
        let read = try parsed.wwwAuthenticate.compactMap { DigestChallenge($0, kind: .www) }
        #expect(read.map(\.algorithm) == [.sha512_256, .sha256, .md5])
        #expect(read[0].realm == "example.com")
    }

    @Test func authorizesRightCredentials() throws {
        var verifier = self.verifier()
        let request = try register(answering: try firstChallenge(&verifier))
        let verdict = verifier.verify(request, now: Self.now + 5, users: directory.lookup)
        #expect(verdict.outcome == .authorized)
        #expect(verdict.isAuthorized)
        #expect(verdict.username == "alice")
        #expect(verdict.algorithm == .sha256)
        #expect(verdict.qop == .auth)
    }

    @Test func everyFaultHasItsOwnOutcome() throws {
        var outcomes: [DigestVerification.Outcome] = []
        func check(_ expected: DigestVerification.Outcome, _ verdict: DigestVerification) {
            #expect(verdict.outcome == expected, "\(verdict)")
            #expect(!verdict.isAuthorized)
            outcomes.append(verdict.outcome)
        }
        var verifier = self.verifier(opaque: "op")
        let challenge = try firstChallenge(&verifier)
        let lookup = directory.lookup

        check(
            .missingCredentials,
            verifier.verify(try Messages.request(.register, "sip:example.com"), now: Self.now, users: lookup))

        var malformed = try Messages.request(.register, "sip:example.com")
        malformed.headerFields.append(name: .authorization, value: #"Digest username="alice", realm="example.com""#)
        check(.malformedCredentials, verifier.verify(malformed, now: Self.now, users: lookup))

        var otherRealm = challenge
        otherRealm.realm = "elsewhere.example"
        check(.realmMismatch, verifier.verify(try register(answering: otherRealm), now: Self.now, users: lookup))

        var md5 = challenge
        md5.algorithm = .md5
        check(.unsupportedAlgorithm, verifier.verify(try register(answering: md5), now: Self.now, users: lookup))

        var forged = challenge
        forged.nonce = String(challenge.nonce.reversed())
        check(.invalidNonce, verifier.verify(try register(answering: forged), now: Self.now, users: lookup))

        var noOpaque = challenge
        noOpaque.opaque = nil
        check(.opaqueMismatch, verifier.verify(try register(answering: noOpaque), now: Self.now, users: lookup))

        check(
            .uriMismatch,
            verifier.verify(try register(answering: challenge, uri: "sip:other.example"), now: Self.now, users: lookup))

        var authInt = challenge
        authInt.qopOptions = [.authInt]
        check(.qopMismatch, verifier.verify(try register(answering: authInt), now: Self.now, users: lookup))

        check(
            .unknownUser,
            verifier.verify(try register(answering: challenge, user: "mallory"), now: Self.now, users: lookup))

        check(
            .wrongResponse,
            verifier.verify(try register(answering: challenge, password: "wrong"), now: Self.now, users: lookup))

        check(.staleNonce, verifier.verify(try register(answering: challenge), now: Self.now + 61, users: lookup))

        let good = try register(answering: challenge)
        #expect(verifier.verify(good, now: Self.now, users: lookup).isAuthorized)
        check(.replayedNonceCount, verifier.verify(good, now: Self.now, users: lookup))

        #expect(Set(outcomes).count == outcomes.count, "each fault is told apart")
        #expect(!outcomes.contains(.authorized))
    }

    @Test func staleOnlyWhenTheDigestIsRight() throws {
        var verifier = self.verifier()
        let challenge = try firstChallenge(&verifier)
        let later = Self.now + 3600
        let wrong = verifier.verify(
            try register(answering: challenge, password: "nope"), now: later, users: directory.lookup)
        #expect(wrong.outcome == .wrongResponse)
        #expect(!wrong.isStale)
        let right = verifier.verify(try register(answering: challenge), now: later, users: directory.lookup)
        #expect(right.outcome == .staleNonce)
        #expect(right.isStale)
    }

    @Test func nonceCountMustIncrease() throws {
        var verifier = self.verifier()
        let challenge = try firstChallenge(&verifier)
        let lookup = directory.lookup
        #expect(
            verifier.verify(try register(answering: challenge, nonceCount: 1), now: Self.now, users: lookup)
                .isAuthorized)
        #expect(
            verifier.verify(try register(answering: challenge, nonceCount: 3), now: Self.now, users: lookup)
                .isAuthorized)
        #expect(
            verifier.verify(try register(answering: challenge, nonceCount: 2), now: Self.now, users: lookup).outcome
                == .replayedNonceCount)
        #expect(
            verifier.verify(try register(answering: challenge, nonceCount: 3), now: Self.now, users: lookup).outcome
                == .replayedNonceCount)
        #expect(
            verifier.verify(try register(answering: challenge, nonceCount: 4), now: Self.now, users: lookup)
                .isAuthorized)
    }

    @Test func aFullReplayTableForgetsSafely() throws {
        var verifier = self.verifier(capacity: 2)
        let lookup = directory.lookup
        let first = try firstChallenge(&verifier, at: Self.now)
        let second = try firstChallenge(&verifier, at: Self.now + 1)
        let third = try firstChallenge(&verifier, at: Self.now + 2)
        for challenge in [first, second, third] {
            #expect(verifier.verify(try register(answering: challenge), now: Self.now + 3, users: lookup).isAuthorized)
        }
        // The first nonce left the table: it can no longer be checked for replays, so it is stale, not accepted.
        let replay = verifier.verify(try register(answering: first, nonceCount: 5), now: Self.now + 3, users: lookup)
        #expect(replay.outcome == .staleNonce)
        // The others are still tracked.
        #expect(
            verifier.verify(try register(answering: third), now: Self.now + 3, users: lookup).outcome
                == .replayedNonceCount)
        #expect(
            verifier.verify(try register(answering: third, nonceCount: 2), now: Self.now + 3, users: lookup)
                .isAuthorized)
    }

    @Test func nonceFromAnotherKeyIsInvalid() throws {
        var mine = self.verifier(seed: 1)
        var theirs = self.verifier(seed: 2)
        let foreign = try firstChallenge(&theirs)
        #expect(
            mine.verify(try register(answering: foreign), now: Self.now, users: directory.lookup).outcome
                == .invalidNonce)
        // A shared key makes nonces portable between instances.
        var a = DigestVerifier(realm: "example.com", key: Array(repeating: 7, count: 32), random: SeededRandom(seed: 3))
        var b = DigestVerifier(realm: "example.com", key: Array(repeating: 7, count: 32), random: SeededRandom(seed: 4))
        let shared = try firstChallenge(&a)
        #expect(b.verify(try register(answering: shared), now: Self.now, users: directory.lookup).isAuthorized)
    }

    @Test func legacyNoncesAreGoodForOneRequest() throws {
        var verifier = self.verifier(algorithms: [.md5], qop: [])
        let challenge = try firstChallenge(&verifier)
        #expect(challenge.qopOptions.isEmpty)
        let request = try register(answering: challenge)
        #expect(try request.authorization.first?.qop == nil)
        #expect(verifier.verify(request, now: Self.now, users: directory.lookup).isAuthorized)
        #expect(verifier.verify(request, now: Self.now, users: directory.lookup).outcome == .replayedNonceCount)
        // A client that sends qop the server never offered is refused.
        var withQop = challenge
        withQop.qopOptions = [.auth]
        #expect(
            verifier.verify(try register(answering: withQop), now: Self.now, users: directory.lookup).outcome
                == .qopMismatch)
    }

    @Test func proxyVerifierReadsProxyAuthorization() throws {
        var proxy = DigestVerifier(realm: "example.com", kind: .proxy, random: SeededRandom(seed: 9))
        let challenge = try #require(proxy.challenges(now: Self.now).first)
        #expect(challenge.kind == .proxy)
        var request = try Messages.request(.invite, "sip:bob@example.com")
        let credentials = try challenge.credentials(
            DigestCredentials(username: "alice", password: "correct horse"), method: "INVITE",
            uri: "sip:bob@example.com", nonceCount: 1, cnonce: "c")
        request.headerFields.append(.authorization, credentials)
        #expect(proxy.verify(request, now: Self.now, users: directory.lookup).outcome == .missingCredentials)
        request.headerFields.append(.proxyAuthorization, credentials)
        #expect(proxy.verify(request, now: Self.now, users: directory.lookup).isAuthorized)
    }

    @Test func uriMayBeAnEquivalentForm() throws {
        var verifier = self.verifier()
        let challenge = try firstChallenge(&verifier)
        // RFC 3261 §19.1.4: the host compares case-insensitively.
        let request = try register(answering: challenge, uri: "sip:EXAMPLE.com")
        #expect(verifier.verify(request, now: Self.now, users: directory.lookup).isAuthorized)
    }

    @Test func authenticationInfoProvesTheServer() throws {
        var verifier = self.verifier()
        let challenge = try firstChallenge(&verifier)
        let verdict = verifier.verify(try register(answering: challenge), now: Self.now, users: directory.lookup)
        let info = try #require(try verifier.authenticationInfo(for: verdict, nextNonceAt: Self.now))
        #expect(info.qop == "auth")
        #expect(info.cnonce == "0a4f113b")
        #expect(info.nonceCount == 1)
        let next = try #require(info.nextNonce)
        #expect(next != challenge.nonce)
        // rspauth = KD(H(A1), nonce:nc:cnonce:qop:H(":" uri)) (RFC 7616 §3.5).
        let ha1 = try DigestAlgorithm.sha256.credentialsHash(
            username: "alice", realm: "example.com", password: "correct horse")
        let expected = try DigestAlgorithm.sha256.response(
            sessionKey: ha1, nonce: challenge.nonce, nonceCount: 1, cnonce: "0a4f113b", qop: .auth, method: "",
            uri: "sip:example.com")
        #expect(info.responseAuth == expected)
        // Not authorized: nothing to say.
        let refused = verifier.verify(
            try Messages.request(.register, "sip:example.com"), now: Self.now, users: directory.lookup)
        #expect(try verifier.authenticationInfo(for: refused) == nil)
    }
}
