import Foundation
import SIPAuthentication
import SIPMessage
import SIPTransport
import SIPUserAgent
import Testing

@testable import Switchboard

/// The accounts' rules (which account a call or message belongs to, the default, unknown ids), what each
/// account gives its drivers, and the registration states the app hears.
@Suite("Glue: accounts and registration states")
struct AccountBookTests {
    @Test func anAddressFindsItsAccountByUserAndHostThenByUser() throws {
        let book = try Parts.accounts()
        #expect(book.ids == ["alice", "bob", "carol"])
        let bob = try SIPURI("sip:bob@example.com")
        let carol = try SIPURI("sip:carol@10.0.0.9")
        let dave = try SIPURI("sip:dave@example.com")
        #expect(book.matching(bob)?.id == "bob")
        #expect(book.matching(carol)?.id == "carol")
        #expect(book.matching(dave)?.id == "alice")
        #expect(book.matching(nil)?.id == "alice")
    }

    @Test func theFirstAccountIsTheDefault() throws {
        let book = try Parts.accounts()
        #expect(book.entry(orDefault: nil)?.id == "alice")
        #expect(book.entry(orDefault: "carol")?.id == "carol")
        #expect(book.entry(orDefault: "dave")?.id == "alice")
        #expect(try book.lookUp(nil)?.id == "alice")
        #expect(throws: CallError.unknownAccount("dave")) { try book.lookUp("dave") }
        #expect(try AccountBook([]).first == nil)
    }

    @Test func aHandleIsCompletedWithTheAccountsDomain() throws {
        let book = try Parts.accounts()
        let (uri, entry) = try book.target(Handle(type: .generic, value: "dave"), from: "carol")
        #expect(uri.description == "sip:dave@other.example")
        #expect(entry?.id == "carol")
        #expect(throws: CallError.unknownAccount("erin")) {
            try book.target(Handle(type: .generic, value: "dave"), from: "erin")
        }
    }

    @Test func unusableAccountsAreConfigurationErrors() {
        #expect(throws: CallError.configuration("two accounts have the same id")) {
            try AccountBook([Account(addressOfRecord: "sip:a@x.example"), Account(addressOfRecord: "sip:a@x.example")])
        }
        #expect(throws: CallError.configuration("account x: bad address of record sip:x.example")) {
            try AccountBook([Account(addressOfRecord: "sip:x.example", id: "x")])
        }
        #expect(throws: CallError.configuration("account a: bad registrar ::")) {
            try AccountBook([Account(addressOfRecord: "sip:a@x.example", id: "a", registrar: "::")])
        }
    }

    @Test func anAccountGivesItsDriversWhatTheyNeed() throws {
        let entry = try AccountEntry(
            Account(
                addressOfRecord: "sip:alice@example.com", displayName: "Alice", credentials: .password("secret"),
                registrar: "sip:pbx.example.com", outboundProxy: "sip:proxy.example.com", transport: .tcp,
                expires: 120, messageSummaryURI: "sip:vm@example.com"))
        let registrar = try #require(entry.registrar)
        let settings = entry.registrationSettings(registrar: registrar, userAgent: "test")
        #expect(settings.transport == .tcp)
        #expect(settings.contactUser == "alice")
        #expect(settings.expires == 120)
        #expect(entry.credentials("realm")?.username == "alice")
        let target = entry.messageSummaryTarget
        #expect(target.uri.description == "sip:vm@example.com")
        #expect(target.from.displayName == "Alice")
        #expect(target.outboundProxy?.description == "sip:proxy.example.com")
        #expect(entry.defaultDomain == "example.com")
    }

    @Test func registrationStatesMapToTheAppsTerms() throws {
        let now = Date(timeIntervalSince1970: 1000)
        #expect(RegistrationState(.idle, now: now) == nil)
        #expect(RegistrationState(.unregistering, now: now) == nil)
        #expect(RegistrationState(.registering, now: now) == .registering)
        #expect(RegistrationState(.unregistered, now: now) == .unregistered)
        let contact = try SIPURI("sip:alice@10.0.0.1:5060")
        #expect(
            RegistrationState(.registered(expires: 60, contact: contact, contacts: []), now: now)
                == .registered(expires: Date(timeIntervalSince1970: 1060), contact: "sip:alice@10.0.0.1:5060"))
        let refused = RegistrationError(.authenticationFailed, status: 403, reason: "Forbidden")
        guard case .failed(let failure, let willRetry)? = RegistrationState(.failed(refused, willRetry: true), now: now)
        else {
            Issue.record("a failure maps to a failure")
            return
        }
        #expect(failure.kind == .authenticationFailed)
        #expect(failure.statusCode == 403)
        #expect(willRetry)
        #expect(RegistrationFailure(RegistrationError(.transportFailed, reason: "closed")).kind == .transportClosed)
    }
}
