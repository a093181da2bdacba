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
        // 64*T1, worked out when T1 is set, follows it (the ACK and PRACK waits).
        #expect(original.t1Times64 == .seconds(32))
        #expect(copy.t1Times64 == .seconds(16))
    }

    /// The response fields the configuration writes once are what appending its values field by field writes,
    /// and each setter of a value they are made of writes them again (a copy's leave the original's alone).
    @Test func responseFieldsFollowTheValuesTheyAreMadeOf() throws {
        func expectWritten(_ configuration: InviteSessionConfiguration) {
            var server = SIPFields()
            if let userAgent = configuration.userAgent { server.append(.server, userAgent) }
            var contact = SIPFields()
            contact.append(.contact, configuration.contact)
            var success = SIPFields()
            success.append(.allow, configuration.allowedMethods.headerValue)
            success.append(.supported, configuration.supportedHeaderValue)
            var successWithSDP = success
            successWithSDP.append(.contentType, MediaType.sdp)
            let written = configuration.responseFields
            #expect(written.server == server)
            #expect(written.contact == contact)
            #expect(written.success == success)
            #expect(written.successWithSDP == successWithSDP)
            #expect(written.successWithSDP.map(\.value) == successWithSDP.map(\.value))
            for refresher in [SessionExpires.Refresher.uac, .uas] {
                let expires = SessionExpires(
                    deltaSeconds: configuration.sessionTimer?.interval ?? 1800, refresher: refresher)
                var alone = SIPFields()
                alone.append(.sessionExpires, expires)
                var requiring = alone
                requiring.append(.require, "timer")
                let isWritten = configuration.sessionTimer != nil
                #expect(written.sessionTimerFields(expires, requiringTimer: false) == (isWritten ? alone : nil))
                #expect(written.sessionTimerFields(expires, requiringTimer: true) == (isWritten ? requiring : nil))
                #expect(
                    written.sessionTimerFields(expires, requiringTimer: true)?.map(\.value) ?? []
                        == (isWritten ? requiring.map(\.value) : []))
            }
            #expect(written.sessionTimerFields(SessionExpires(deltaSeconds: 77), requiringTimer: false) == nil)
        }
        let original = InviteSessionConfiguration(contact: try address("<sip:alice@192.0.2.10>"))
        expectWritten(original)
        #expect(original.responseFields.server.isEmpty)
        var copy = original
        copy.userAgent = "other"
        expectWritten(copy)
        #expect(copy.responseFields.server[.server] == "other")
        copy.contact = try address("\"Bob\" <sip:bob@192.0.2.20>;expires=60")
        expectWritten(copy)
        copy.allowedMethods = [.invite, .ack, .bye]
        expectWritten(copy)
        #expect(copy.responseFields.success[.allow] == "INVITE, ACK, BYE")
        copy.sessionTimer = SessionTimerConfiguration(interval: 600)
        expectWritten(copy)
        copy.sessionTimer = nil
        expectWritten(copy)
        copy.reliableProvisionalResponses = .disabled
        expectWritten(copy)
        #expect(copy.responseFields.success[.supported] == "replaces, norefersub")
        copy.answersOffersAutomatically = false
        copy.t1 = .milliseconds(250)
        expectWritten(copy)
        copy.userAgent = nil
        expectWritten(copy)
        // The original kept its own.
        expectWritten(original)
        #expect(original.responseFields.contact[.contact] == "<sip:alice@192.0.2.10>")
    }

    @Test func aSessionHoldsOneReferenceToItsConfiguration() {
        #expect(MemoryLayout<InviteSessionConfiguration>.size == MemoryLayout<Int>.size)
    }
}
