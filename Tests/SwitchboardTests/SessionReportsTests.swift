import Foundation
import SDP
import SIPMessage
import SIPUserAgent
import Testing

@testable import Switchboard

/// What the sessions report, turned into the app's values: end reasons (CALLKIT.md "Mapping to SIP"),
/// invites, messages and the app's header fields.
@Suite("Glue: session reports in the app's terms")
struct SessionReportsTests {
    private func details(
        _ reason: EndReason, direction: Call.Direction = .outgoing, wasConnected: Bool = true,
        local: CallEndedReason? = nil
    ) -> CallEndDetails {
        CallEndDetails(reason, direction: direction, wasConnected: wasConnected, localEndReason: local)
    }

    @Test(arguments: [
        (EndReason.Kind.remoteEnded, CallEndedReason.remoteEnded), (.replaced, .remoteEnded),
        (.transferred, .remoteEnded), (.localEnded, .localEnded), (.cancelledByCaller, .unanswered),
        (.answeredElsewhere, .answeredElsewhere), (.declined, .declinedElsewhere),
        (.declinedElsewhere, .declinedElsewhere), (.busy, .failed), (.unreachable, .failed), (.failed, .failed),
    ])
    func endKindsMapToCallKitReasons(kind: EndReason.Kind, reason: CallEndedReason) {
        #expect(details(EndReason(kind)).reason == reason)
    }

    @Test func aTimeoutIsUnansweredOnlyForAnOutgoingCallThatNeverConnected() {
        #expect(details(EndReason(.timeout), wasConnected: false).reason == .unanswered)
        #expect(details(EndReason(.timeout), wasConnected: true).reason == .failed)
        #expect(details(EndReason(.timeout), direction: .incoming, wasConnected: false).reason == .failed)
    }

    @Test func aLocalEndKeepsItsCauseAndItsPhrase() {
        let media = Reason(protocol: "Q.850", cause: 102, text: "media timeout")
        let ended = details(EndReason(.localEnded, reasons: [media]), local: .failed)
        #expect(ended.reason == .failed)
        #expect(ended.reasonPhrase == "media timeout")
        #expect(ended.reasons == [media.description])
        // Only a local end or a transfer takes its phrase from the Reason.
        #expect(details(EndReason(.remoteEnded, reasons: [media])).reasonPhrase == nil)
        let busy = details(EndReason(.busy, statusCode: 486, reasonPhrase: "Busy Here"))
        #expect(busy.statusCode == 486)
        #expect(busy.reasonPhrase == "Busy Here")
    }

    @Test func anInviteNamesItsCallerOffersAndHidesCredentials() throws {
        let sdp =
            "v=0\r\no=- 1 1 IN IP4 10.0.0.1\r\ns=-\r\nc=IN IP4 10.0.0.1\r\nt=0 0\r\n"
            + "m=audio 4000 RTP/SAVP 0 8 101 13\r\na=rtpmap:101 telephone-event/8000\r\n"
        let request = try Parts.request(
            "INVITE",
            extra: "P-Asserted-Identity: \"Boss\" <sip:boss@example.com>\nAuthorization: Digest username=\"alice\"\n"
                + "Content-Type: application/sdp\n",
            body: sdp)
        let offer = try SessionDescription(parsing: Array(sdp.utf8))
        let uuid = UUID()
        let date = Date(timeIntervalSince1970: 5)
        let incoming = IncomingInvite(request, offer: offer, uuid: uuid, account: "bob", date: date)
        #expect(incoming.call.uuid == uuid)
        #expect(incoming.call.state == .ringing)
        #expect(incoming.call.direction == .incoming)
        #expect(incoming.call.callID == "c1@10.0.0.1")
        #expect(incoming.call.remoteHandle.value == "sip:boss@example.com")
        #expect(incoming.call.remoteDisplayName == "Boss")
        #expect(incoming.call.startedAt == date)
        #expect(incoming.invite.offeredCodecs == ["PCMU", "PCMA"])
        #expect(incoming.invite.offersSRTP)
        #expect(incoming.invite.account == "bob")
        #expect(incoming.invite.header("authorization") == "<redacted>")
        #expect(incoming.invite.header("call-id") == "c1@10.0.0.1")
    }

    @Test func anInvitesReadOnDemandFieldsTakeWhatTheAppSets() throws {
        let sdp = "v=0\r\no=- 1 1 IN IP4 10.0.0.1\r\ns=-\r\nc=IN IP4 10.0.0.1\r\nt=0 0\r\nm=audio 4000 RTP/AVP 8\r\n"
        let request = try Parts.request("INVITE", extra: "Content-Type: application/sdp\n", body: sdp)
        let offer = try SessionDescription(parsing: Array(sdp.utf8))
        var invite = IncomingInvite(request, offer: offer, uuid: UUID(), account: nil, date: Date()).invite
        #expect(invite.offeredCodecs == ["PCMA"])
        #expect(!invite.offersSRTP)
        invite.offeredCodecs = ["opus"]
        invite.offersSRTP = true
        invite.headers = [("X-Test", "1")]
        #expect(invite.offeredCodecs == ["opus"])
        #expect(invite.offersSRTP)
        #expect(invite.header("x-test") == "1")
        #expect(invite.header("call-id") == nil)
    }

    @Test func anInviteWithoutOfferOrIdentityUsesFrom() throws {
        let incoming = IncomingInvite(try Parts.request("INVITE"), offer: nil, uuid: UUID(), account: nil, date: Date())
        #expect(incoming.call.remoteHandle.value == "sip:alice@example.com")
        #expect(incoming.call.remoteDisplayName == "Alice")
        #expect(incoming.invite.offeredCodecs.isEmpty)
        #expect(!incoming.invite.offersSRTP)
    }

    @Test func aMessageKeepsItsSenderTypeAndBody() throws {
        let request = try Parts.request("MESSAGE", extra: "Content-Type: text/html\n", body: "<b>hi</b>")
        let message = TextMessage(request, account: "bob")
        #expect(message.from.value == "sip:alice@example.com")
        #expect(message.to.value == "sip:bob@example.com")
        #expect(message.contentType == "text/html")
        #expect(message.text == "<b>hi</b>")
        #expect(message.account == "bob")
        #expect(TextMessage(try Parts.request("MESSAGE"), account: nil).contentType == "text/plain")
    }

    @Test func appHeadersSkipWhatIsNotAField() {
        let fields = [SIPField](appHeaders: [
            ("X-Tenant", "7"), ("bad name", "x"), ("X-Injected", "a\r\nVia: evil"), ("Subject", "hello"),
        ])
        #expect(fields.map(\.name.description) == ["X-Tenant", "Subject"])
        #expect(fields.map(\.value) == ["7", "hello"])
    }

    @Test func summariesCountVoiceMessages() throws {
        let body = Array("Messages-Waiting: yes\r\nMessage-Account: sip:vm@example.com\r\nVoice-Message: 2/5\r\n".utf8)
        let parsing: SIPUserAgent.MessageSummary? = .init(parsing: body)
        let parsed = try #require(parsing)
        let summary = MessageSummary(parsed)
        #expect(summary.messagesWaiting)
        #expect(summary.messageAccount == "sip:vm@example.com")
        #expect(summary.newMessages == 2)
        #expect(summary.oldMessages == 5)
    }
}
