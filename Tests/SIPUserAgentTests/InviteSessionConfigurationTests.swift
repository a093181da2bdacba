import SIPMessage
import Testing

@testable import SIPUserAgent

/// The configuration's values sit in one storage object that its copies share until one of them writes: a copy
/// changed leaves the original as it was, and sessions made from one configuration share its storage.
@Suite struct InviteSessionConfigurationTests {
    @Test func aChangedCopyLeavesTheOriginalAsItWas() throws {
        let original = InviteSessionConfiguration(
            contact: try address("<sip:alice@192.0.2.10>"), userAgent: "switchboard")
        var copy = original
        copy.userAgent = "other"
        copy.contact = try address("<sip:bob@192.0.2.20>")
        copy.allowedMethods = [.invite, .ack, .bye]
        copy.sessionTimer = nil
        copy.reliableProvisionalResponses = .required
        copy.answersOffersAutomatically = false
        copy.t1 = .milliseconds(250)
        copy.t2 = .seconds(2)
        #expect(original.userAgent == "switchboard")
        #expect(original.contact.description == (try address("<sip:alice@192.0.2.10>")).description)
        #expect(original.allowedMethods == InviteSessionConfiguration.defaultAllowedMethods)
        #expect(original.sessionTimer != nil)
        #expect(original.reliableProvisionalResponses == .supported)
        #expect(original.answersOffersAutomatically)
        #expect(original.t1 == .milliseconds(500) && original.t2 == .seconds(4))
        #expect(copy.userAgent == "other")
        #expect(copy.contact.description == (try address("<sip:bob@192.0.2.20>")).description)
        #expect(copy.allowedMethods == [.invite, .ack, .bye])
        #expect(copy.sessionTimer == nil)
        #expect(copy.reliableProvisionalResponses == .required)
        #expect(!copy.answersOffersAutomatically)
        #expect(copy.t1 == .milliseconds(250) && copy.t2 == .seconds(2))
    }

    @Test func aSessionHoldsOneReferenceToItsConfiguration() {
        #expect(MemoryLayout<InviteSessionConfiguration>.size == MemoryLayout<Int>.size)
    }
}
