import SIPMessage
import Testing

@testable import Switchboard

/// What SIP URI a handle becomes: schemes in any case, spaces around the value, and completion of bare
/// names and numbers with the account's domain.
@Suite struct HandleURITests {
    @Test func schemesAreRecognisedInAnyCase() throws {
        let sip = try Handle(type: .generic, value: "SIP:bob@example.com").uri(defaultDomain: "other.test")
        #expect(sip.sipURI?.host.description == "example.com")
        let sips = try Handle(type: .generic, value: "Sips:bob@example.com").uri(defaultDomain: nil)
        #expect(sips.sipURI?.isSecure == true)
        let tel = try Handle(type: .generic, value: "TEL:+15551234").uri(defaultDomain: nil)
        guard case .tel = tel else {
            Issue.record("expected a tel URI, got \(tel)")
            return
        }
        let phone = try Handle(type: .phoneNumber, value: "Sip:5551234@pbx.test").uri(defaultDomain: "other.test")
        #expect(phone.sipURI?.host.description == "pbx.test")
    }

    @Test func spacesAndTabsAroundTheValueAreDropped() throws {
        let uri = try Handle(type: .generic, value: " \tsip:bob@example.com \t").uri(defaultDomain: nil)
        #expect(uri.sipURI?.user == "bob")
        #expect(uri.sipURI?.host.description == "example.com")
        #expect("no-spaces".trimmingSpaces == "no-spaces")
        #expect(" \t ".trimmingSpaces == "")
        #expect("".trimmingSpaces == "")
    }

    @Test func bareNamesAndNumbersTakeTheDefaultDomain() throws {
        let name = try Handle(type: .generic, value: "bob").uri(defaultDomain: "example.com")
        #expect(name.sipURI?.user == "bob")
        #expect(name.sipURI?.host.description == "example.com")
        let number = try Handle(type: .phoneNumber, value: "5551234").uri(defaultDomain: "pbx.test")
        #expect(number.sipURI?.userParameter == "phone")
        #expect(throws: CallError.invalidHandle("5551234")) {
            try Handle(type: .phoneNumber, value: "5551234").uri(defaultDomain: nil)
        }
    }

    @Test func asciiPrefixesIgnoreOnlyASCIICase() {
        #expect("SiPs:x".hasPrefixIgnoringASCIICase("sips:"))
        #expect(!"si".hasPrefixIgnoringASCIICase("sip"))
        #expect(!"sip\u{1A}x".hasPrefixIgnoringASCIICase("sip:"))
        #expect(!"ſip:x".hasPrefixIgnoringASCIICase("sip:"))
    }
}
