import SIPAuthentication
import SIPMessage
import SIPUserAgent
import Testing

/// RFC 5626 outbound in the registration state machine: the REGISTER asks for it, the 200 confirms it (and
/// gives a Flow-Timer), a broken flow is replaced at once, and replacements that fail back off (§4.5).
@Suite struct OutboundRegistrationTests {
    static let instance = "urn:uuid:00000000-0000-1000-8000-000A95A0E128"

    /// Registered with outbound confirmed: `Require: outbound` and `Flow-Timer: 25` in the 200.
    func registeredWithOutbound() throws -> RegistrationHarness {
        var h = try RegistrationHarness(instance: Self.instance, contact: "sip:alice@192.0.2.10:40000;transport=tcp")
        h.apply(h.client.start())
        let request = try #require(h.last)
        let binding = try #require(request.headerFields[.contact])
        h.apply(
            h.client.receive(
                try reply(
                    200, to: request,
                    extra: [
                        SIPField(name: .contact, value: binding + ";expires=600"),
                        SIPField(name: .require, value: "outbound"),
                        SIPField(name: try #require(SIPField.Name("Flow-Timer")), value: "25"),
                    ])))
        return h
    }

    @Test func theRegisterAsksForOutboundOnTheFlow() throws {
        var h = try RegistrationHarness(instance: Self.instance, contact: "sip:alice@192.0.2.10:40000;transport=tcp")
        h.apply(h.client.start())
        let request = try #require(h.last)
        let contact = try #require(try request.firstContact)
        #expect(contact.instanceID == Self.instance)
        #expect(contact.regID == 1)
        guard case .sip(let uri)? = contact.uri else {
            Issue.record("no SIP Contact")
            return
        }
        #expect(uri.parameters.contains("ob"))
        #expect(try request.supported.contains("outbound"))
    }

    @Test func theRegistrarsConfirmationAndFlowTimerAreKept() throws {
        let h = try registeredWithOutbound()
        #expect(h.client.isOutbound)
        #expect(h.client.flowTimer == 25)
        #expect(h.states.last.map { if case .registered = $0 { true } else { false } } == true)
    }

    @Test func withoutConfirmationOutboundIsNotUsed() throws {
        var h = try RegistrationHarness(instance: Self.instance, contact: "sip:alice@192.0.2.10:40000;transport=tcp")
        h.apply(h.client.start())
        let ok = try reply(200, to: try #require(h.last), extra: [SIPField(name: .expires, value: "600")])
        h.apply(h.client.receive(ok))
        #expect(!h.client.isOutbound)
        // A closed connection is then retried after the ordinary back-off, not at once.
        let before = h.sent.count
        h.apply(h.client.flowFailed("connection closed"))
        #expect(h.sent.count == before)
        #expect(h.timer == .seconds(2))
    }

    @Test func aBrokenFlowIsReplacedAtOnceAndFailedReplacementsBackOff() throws {
        var h = try registeredWithOutbound()
        let before = h.sent.count
        h.apply(h.client.flowFailed("connection reset"))
        #expect(h.sent.count == before + 1, "no REGISTER over a new flow at once")
        // The replacement fails: wait a random 50-100% of 30 s, then of 60 s, ... (RFC 5626 §4.5).
        var limits: [(Duration, Duration)] = []
        for failures in 0..<3 {
            h.apply(h.client.transportFailed("connection refused"))
            let wait = try #require(h.timer)
            limits.append((wait, .seconds(30 * (1 << failures))))
            h.apply(h.client.timerFired())
        }
        for (wait, full) in limits {
            #expect(wait >= full / 2 && wait <= full, "waited \(wait) of \(full)")
        }
        // A success resets the count: the next broken flow is again replaced at once.
        let request = try #require(h.last)
        let binding = try #require(request.headerFields[.contact])
        h.apply(
            h.client.receive(
                try reply(
                    200, to: request,
                    extra: [
                        SIPField(name: .contact, value: binding + ";expires=600"),
                        SIPField(name: .require, value: "outbound"),
                    ])))
        let count = h.sent.count
        h.apply(h.client.flowFailed("connection reset"))
        #expect(h.sent.count == count + 1)
    }

    /// A contact that names its connection (no listener) follows the NAT's address and port: the registrar
    /// finds the connection by the address it saw.
    @Test func aContactNamingTheFlowFollowsTheNATsPortToo() throws {
        var configuration = RegistrationConfiguration(
            addressOfRecord: try SIPURI("sip:alice@example.com"), registrar: try SIPURI("sip:example.com"),
            contact: try SIPURI("sip:alice@192.168.1.20:51634;transport=tcp"))
        configuration.contactNamesFlow = true
        var h = try RegistrationHarness()
        h.client = RegistrationClient(
            configuration: configuration, callID: "reg-call-2", fromTag: "tag-2",
            authenticator: DigestAuthenticator { _ in nil })
        h.apply(h.client.start())
        var ok = try reply(200, to: try #require(h.last))
        var via = try #require(try ok.topVia)
        via.received = "203.0.113.5"
        via.rport = .value(40_001)
        ok.headerFields.set(.via, via)
        h.apply(h.client.receive(ok))
        #expect(h.sent.count == 2)
        #expect(h.client.contact.host.text == "203.0.113.5")
        #expect(h.client.contact.port == 40_001)
    }
}
