import Foundation
import SIPMessage
import SIPUserAgent
import Testing

/// RFC 8599 §4-5 on the registration client: a 555 drops the push parameters and registers without them,
/// `+sip.pnsreg` in Feature-Caps shortens the refresh, and a new push token replaces the old binding in
/// the same REGISTER.
@Suite("Registration client: push parameters")
struct PushRegistrationTests {
    static let pushContact = "sip:alice@192.0.2.10:5060;pn-provider=apns;pn-param=T.com.example.voip;pn-prid=00fc13"

    /// Registers with a plain 200 that echoes the Contact, plus `extra` header fields.
    static func accept(_ h: inout RegistrationHarness, extra: [SIPField] = []) throws {
        let request = try #require(h.last)
        var ok = try reply(200, to: request, extra: extra)
        for field in request.headerFields[fields: .contact] { ok.headerFields.append(field) }
        ok.headerFields.append(.expires, 600)
        h.apply(h.client.receive(ok))
    }

    @Test func aRegistrarWithoutPushAnswers555AndTheBindingIsMadeWithoutTheParameters() throws {
        var h = try RegistrationHarness(expires: 600, contact: Self.pushContact)
        h.apply(h.client.start())
        let first = try #require(try h.last?.firstContact?.nameAddress?.uri.sipURI)
        #expect(first.parameters["pn-prid"] == "00fc13")
        h.apply(h.client.receive(try reply(555, to: try #require(h.last))))
        guard case .failed(let error, let willRetry)? = h.states.dropLast().last else {
            Issue.record("no failure reported: \(h.states)")
            return
        }
        #expect(error.status == 555 && willRetry)
        #expect(h.sent.count == 2)
        let second = try #require(try h.last?.firstContact?.nameAddress?.uri.sipURI)
        #expect(!second.parameters.contains("pn-provider") && !second.parameters.contains("pn-prid"))
        #expect(!second.parameters.contains("pn-param"))
        try Self.accept(&h)
        guard case .registered? = h.states.last else {
            Issue.record("not registered: \(h.states)")
            return
        }
    }

    @Test func a555WithoutPushParametersIsAServerErrorRetriedLater() throws {
        var h = try RegistrationHarness()
        h.apply(h.client.start())
        h.apply(h.client.receive(try reply(555, to: try #require(h.last))))
        #expect(h.sent.count == 1)
        guard case .failed(let error, let willRetry)? = h.states.last else {
            Issue.record("no failure: \(h.states)")
            return
        }
        #expect(error.status == 555 && willRetry)
        #expect(h.timer == .seconds(2))
    }

    @Test func pnsregInFeatureCapsShortensTheRefresh() throws {
        var h = try RegistrationHarness(expires: 600, contact: Self.pushContact)
        h.apply(h.client.start())
        let caps = try #require(SIPField.Name("Feature-Caps"))
        try Self.accept(&h, extra: [SIPField(name: caps, value: "*;+sip.pns=\"apns\";+sip.pnsreg=\"120\"")])
        #expect(h.client.registrarSupportsPush)
        #expect(h.client.pushRefreshInterval == 120)
        #expect(h.timer == .seconds(120))
    }

    @Test func withoutFeatureCapsTheRefreshIsTheUsualOne() throws {
        var h = try RegistrationHarness(expires: 600, contact: Self.pushContact)
        h.apply(h.client.start())
        try Self.accept(&h)
        #expect(!h.client.registrarSupportsPush)
        #expect(h.timer == .seconds(540))
    }

    @Test func aNewTokenBindsTheNewContactAndRemovesTheOldInOneRegister() throws {
        var h = try RegistrationHarness(expires: 600, contact: Self.pushContact)
        h.apply(h.client.start())
        try Self.accept(&h)
        let rotated = try SIPURI(Self.pushContact.replacingOccurrences(of: "00fc13", with: "77ab99"))
        h.apply(h.client.replaceContact(rotated))
        #expect(h.sent.count == 2)
        let contacts = try #require(try h.last?.contacts)
        #expect(contacts.count == 2)
        let old = try #require(contacts.first?.nameAddress)
        #expect(old.uri.sipURI?.parameters["pn-prid"] == "00fc13")
        #expect(old.parameters["expires"] == "0")
        #expect(contacts.last?.nameAddress?.uri.sipURI?.parameters["pn-prid"] == "77ab99")
        #expect(contacts.last?.nameAddress?.parameters["expires"] == nil)
        // Once the registrar took it, refreshes carry the new Contact only.
        try Self.accept(&h)
        h.apply(h.client.timerFired())
        #expect(try h.last?.contacts.count == 1)
        #expect(try h.last?.firstContact?.nameAddress?.uri.sipURI?.parameters["pn-prid"] == "77ab99")
    }
}
