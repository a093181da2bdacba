import SIPAuthentication
import SIPMessage
import SIPUserAgent
import Testing

/// A scripted registrar: answers the client's REGISTERs in virtual time.
struct RegistrationHarness {
    var client: RegistrationClient
    var sent: [SIPRequest] = []
    var states: [RegistrationState] = []
    var timer: Duration?

    init(
        expires: UInt32 = 3600, password: String = "alicepw", instance: String? = nil, followsNAT: Bool = true,
        contact contactText: String = "sip:alice@192.0.2.10:5060"
    ) throws {
        let aor = try SIPURI("sip:alice@example.com")
        let registrar = try SIPURI("sip:example.com")
        let contact = try SIPURI(contactText)
        let configuration = RegistrationConfiguration(
            addressOfRecord: aor, registrar: registrar, contact: contact, expires: expires, instanceID: instance,
            regID: instance == nil ? nil : 1, initialRetryDelay: .seconds(2), maximumRetryDelay: .seconds(16),
            followsNAT: followsNAT)
        let authenticator = DigestAuthenticator { realm in
            realm == "example.com" ? DigestCredentials(username: "alice", password: password) : nil
        }
        client = RegistrationClient(
            configuration: configuration, callID: "reg-call-1", fromTag: "tag-1", authenticator: authenticator)
    }

    mutating func apply(_ actions: [RegistrationClient.Action]) {
        for action in actions {
            switch action {
            case .send(let request): sent.append(request)
            case .startTimer(let after): timer = after
            case .cancelTimer: timer = nil
            case .stateChanged(let state): states.append(state)
            }
        }
    }

    var last: SIPRequest? { sent.last }
}

/// A response to `request` with the Via, From, To (+tag), Call-ID and CSeq copied.
func reply(_ status: Int, to request: SIPRequest, extra: [SIPField] = []) throws -> SIPResponse {
    var response = SIPResponse(statusCode: status)
    var via = Via(transport: "UDP", host: try #require(SIPHost("192.0.2.10")), port: 5060, branch: "z9hG4bKtest")
    via.rport = .requested
    response.headerFields.append(.via, via)
    for name in [SIPField.Name.from, .callID, .cseq] {
        for field in request.headerFields[fields: name] { response.headerFields.append(field) }
    }
    var to = try #require(try request.to)
    to.tag = "registrar-tag"
    response.headerFields.append(.to, to)
    for field in extra { response.headerFields.append(field) }
    return response
}

@Suite("Registration client")
struct RegistrationClientTests {
    func challengeAndAccept(
        _ h: inout RegistrationHarness, verifier: inout DigestVerifier, password: String = "alicepw"
    )
        throws
    {
        let first = try #require(h.last)
        var challenge = try reply(401, to: first)
        verifier.addChallenges(to: &challenge, now: 1000)
        h.apply(h.client.receive(challenge))
        let second = try #require(h.last)
        #expect(h.sent.count == 2)
        let verdict = verifier.verify(second, now: 1001) { query in
            query.username == "alice" ? DigestCredentials(username: "alice", password: password) : nil
        }
        #expect(verdict.isAuthorized)
        var contact = try #require(try second.firstContact?.nameAddress)
        contact.parameters["expires"] = "3600"
        var ok = try reply(200, to: second)
        ok.headerFields.append(.contact, Contact.address(contact))
        h.apply(h.client.receive(ok))
    }

    @Test func challengedThenRegisteredThenRefreshed() throws {
        var h = try RegistrationHarness()
        var verifier = DigestVerifier(realm: "example.com", kind: .www)
        h.apply(h.client.start())
        #expect(h.states == [.registering])
        let first = try #require(h.last)
        #expect(first.method == .register)
        #expect(try first.expires == 3600)
        #expect(try first.cseq == CSeq(1, .register))
        #expect(!first.headerFields.contains(.via))
        try challengeAndAccept(&h, verifier: &verifier)
        let second = h.sent[1]
        #expect(try second.cseq == CSeq(2, .register))
        #expect(try second.callID == "reg-call-1")
        #expect(try second.from?.tag == "tag-1")
        guard case .registered(let expires, _, let contacts)? = h.states.last else {
            Issue.record("not registered: \(h.states)")
            return
        }
        #expect(expires == 3600)
        #expect(contacts.count == 1)
        // Refresh a margin before expiry (10%), not at expiry.
        #expect(h.timer == .seconds(3240))
        h.apply(h.client.timerFired())
        let refresh = try #require(h.last)
        #expect(h.sent.count == 3)
        #expect(try refresh.cseq == CSeq(3, .register))
        // Pre-emptive credentials with the known nonce, nonce count incremented.
        #expect(try refresh.authorization.first?.nonceCount == 2)
    }

    @Test func wrongPasswordFailsCleanly() throws {
        var h = try RegistrationHarness(password: "wrong")
        var verifier = DigestVerifier(realm: "example.com", kind: .www)
        h.apply(h.client.start())
        var challenge = try reply(401, to: try #require(h.last))
        verifier.addChallenges(to: &challenge, now: 1000)
        h.apply(h.client.receive(challenge))
        let second = try #require(h.last)
        #expect(
            !verifier.verify(second, now: 1001) { _ in DigestCredentials(username: "alice", password: "alicepw") }
                .isAuthorized)
        var again = try reply(401, to: second)
        verifier.addChallenges(to: &again, now: 1002)
        h.apply(h.client.receive(again))
        guard case .failed(let error, let retry)? = h.states.last else {
            Issue.record("expected failure: \(h.states)")
            return
        }
        #expect(error.code == .authenticationFailed)
        #expect(!retry)
        #expect(h.sent.count == 2)
    }

    @Test func intervalTooBriefRetriesWithMinExpires() throws {
        var h = try RegistrationHarness(expires: 30)
        h.apply(h.client.start())
        let brief = try reply(423, to: try #require(h.last), extra: [SIPField(name: .minExpires, value: "60")])
        h.apply(h.client.receive(brief))
        #expect(try h.last?.expires == 60)
        #expect(h.sent.count == 2)
    }

    @Test(arguments: [403, 404])
    func forbiddenAndNotFoundStop(_ status: Int) throws {
        var h = try RegistrationHarness()
        h.apply(h.client.start())
        h.apply(h.client.receive(try reply(status, to: try #require(h.last))))
        guard case .failed(let error, let retry)? = h.states.last else {
            Issue.record("expected failure")
            return
        }
        #expect(error.code == .rejected)
        #expect(error.status == status)
        #expect(!retry)
        #expect(h.timer == nil)
    }

    @Test func timeoutsRetryWithCappedBackoff() throws {
        var h = try RegistrationHarness()
        h.apply(h.client.start())
        var delays: [Duration] = []
        for _ in 0..<6 {
            h.apply(h.client.timedOut())
            delays.append(try #require(h.timer))
            guard case .failed(let error, true)? = h.states.last else {
                Issue.record("expected a retrying failure")
                return
            }
            #expect(error.code == .registrarUnreachable)
            h.apply(h.client.timerFired())
        }
        #expect(delays == [.seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(16), .seconds(16)])
        #expect(h.sent.count == 7)
    }

    @Test func serviceUnavailableHonoursRetryAfter() throws {
        var h = try RegistrationHarness()
        h.apply(h.client.start())
        h.apply(
            h.client.receive(
                try reply(503, to: try #require(h.last), extra: [SIPField(name: .retryAfter, value: "30")])))
        #expect(h.timer == .seconds(30))
    }

    @Test func unregisterOnStop() throws {
        var h = try RegistrationHarness()
        var verifier = DigestVerifier(realm: "example.com", kind: .www)
        h.apply(h.client.start())
        try challengeAndAccept(&h, verifier: &verifier)
        h.apply(h.client.stop())
        let removal = try #require(h.last)
        #expect(try removal.expires == 0)
        #expect(h.states.last == .unregistering)
        h.apply(h.client.receive(try reply(200, to: removal)))
        #expect(h.states.last == .unregistered)
    }

    @Test func natReRegistersWithThePublicContact() throws {
        var h = try RegistrationHarness()
        h.apply(h.client.start())
        var ok = try reply(200, to: try #require(h.last))
        var via = try #require(try ok.topVia)
        via.received = "203.0.113.5"
        via.rport = .value(40_000)
        ok.headerFields.set(.via, via)
        h.apply(h.client.receive(ok))
        let again = try #require(h.last)
        #expect(h.sent.count == 2)
        let contact = try #require(try again.firstContact?.uri?.sipURI)
        #expect(contact.host.text == "203.0.113.5")
        #expect(contact.port == 40_000)
    }

    @Test func overTCPOnlyAnotherHostCountsAsNAT() throws {
        // rport over a stream is the connection's ephemeral port: re-registering with it would leave a
        // second binding at the registrar (Kamailio kept both).
        var h = try RegistrationHarness(contact: "sip:alice@192.0.2.10:5060;transport=tcp")
        h.apply(h.client.start())
        var ok = try reply(200, to: try #require(h.last))
        var via = try #require(try ok.topVia)
        via.received = "192.0.2.10"
        via.rport = .value(47_123)
        ok.headerFields.set(.via, via)
        h.apply(h.client.receive(ok))
        #expect(h.sent.count == 1)
        guard case .registered? = h.states.last else {
            Issue.record("not registered: \(h.states)")
            return
        }
    }

    @Test func severalBindingsAndOurExpires() throws {
        var h = try RegistrationHarness()
        h.apply(h.client.start())
        let request = try #require(h.last)
        let ok = try reply(
            200, to: request,
            extra: [
                SIPField(name: .contact, value: "<sip:alice@198.51.100.7:5070>;expires=100"),
                SIPField(name: .contact, value: "<sip:alice@192.0.2.10:5060>;expires=1800"),
                SIPField(name: .expires, value: "3600"),
            ])
        h.apply(h.client.receive(ok))
        guard case .registered(let expires, _, let contacts)? = h.states.last else {
            Issue.record("not registered")
            return
        }
        #expect(expires == 1800)
        #expect(contacts.count == 2)
    }

    @Test func deadFlowReRegistersAtOnce() throws {
        var h = try RegistrationHarness()
        h.apply(h.client.start())
        h.apply(
            h.client.receive(try reply(200, to: try #require(h.last), extra: [SIPField(name: .expires, value: "600")])))
        let before = h.sent.count
        h.apply(h.client.flowDied())
        #expect(h.sent.count == before + 1)
        #expect(
            h.states.contains {
                if case .failed(let e, _) = $0 { return e.code == .keepAliveTimeout } else { return false }
            })
    }

    @Test func outboundContactCarriesInstanceAndRegID() throws {
        var h = try RegistrationHarness(instance: "urn:uuid:00000000-0000-1000-8000-000A95A0E128")
        h.apply(h.client.start())
        let request = try #require(h.last)
        let contact = try #require(try request.firstContact)
        #expect(contact.instanceID == "urn:uuid:00000000-0000-1000-8000-000A95A0E128")
        #expect(contact.regID == 1)
        #expect(try request.supported.contains("outbound"))
    }

    @Test func staleResponsesAreIgnored() throws {
        var h = try RegistrationHarness()
        h.apply(h.client.start())
        let request = try #require(h.last)
        var old = try reply(200, to: request)
        old.headerFields.set(.cseq, CSeq(99, .register))
        h.apply(h.client.receive(old))
        #expect(h.states == [.registering])
    }
}
