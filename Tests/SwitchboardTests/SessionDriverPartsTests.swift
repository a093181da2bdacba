import Foundation
import SDP
import SIPMessage
import SIPTransaction
import SIPUserAgent
import Testing

@testable import SIPTransport
@testable import Switchboard

/// The session driver's pure parts: the answers outside any dialog, the session directory, what a new
/// session is built from, and the request outside a dialog.
@Suite("Glue: session driver parts")
struct SessionDriverPartsTests {
    private let responder = OutsideDialogResponder(userAgent: "Switchboard test")

    private func status(_ outcome: OutsideDialogResponder.Outcome) -> Int? {
        switch outcome {
        case .invite: nil
        case .respond(let response), .message(let response), .messageSummary(let response, _): response.statusCode
        }
    }

    // MARK: Outside a dialog

    @Test(arguments: [
        ("REGISTER", 405), ("SUBSCRIBE", 489), ("BYE", 481), ("INFO", 481), ("REFER", 481), ("PUBLISH", 501),
        ("OPTIONS", 200), ("MESSAGE", 200), ("NOTIFY", 481),
    ])
    func requestsOutsideADialogGetTheirAnswer(method: String, expected: Int) throws {
        var tags = 0
        let outcome = responder.outcome(for: try Parts.request(method)) {
            tags += 1
            return "t\(tags)"
        }
        #expect(status(outcome) == expected)
        // One To tag per answer, as the core's own responses take.
        #expect(tags == 1)
    }

    @Test func anInviteIsLeftToTheDriverWithoutATag() throws {
        var tags = 0
        let outcome = responder.outcome(for: try Parts.request("INVITE")) {
            tags += 1
            return "t"
        }
        guard case .invite = outcome else {
            Issue.record("an INVITE makes a session")
            return
        }
        #expect(tags == 0)
    }

    @Test func theRefusalsSayWhatIsAllowed() throws {
        guard case .respond(let options) = responder.outcome(for: try Parts.request("OPTIONS"), tag: { "t" }),
            case .respond(let register) = responder.outcome(for: try Parts.request("REGISTER"), tag: { "t" }),
            case .respond(let subscribe) = responder.outcome(for: try Parts.request("SUBSCRIBE"), tag: { "t" })
        else {
            Issue.record("answers expected")
            return
        }
        #expect(options.headerFields[.server] == "Switchboard test")
        #expect(options.headerFields[.allow] != nil)
        #expect(register.headerFields[.allow] == responder.allow)
        #expect(subscribe.headerFields[.allowEvents] == "refer")
        #expect(try options.to?.tag == "t")
    }

    @Test func anUnsolicitedMessageSummaryIsTaken() throws {
        let notify = try Parts.request(
            "NOTIFY", extra: "Event: message-summary\nContent-Type: application/simple-message-summary\n",
            body: "Messages-Waiting: yes\r\nVoice-Message: 1/0\r\n")
        guard case .messageSummary(let response, let summary) = responder.outcome(for: notify, tag: { "t" }) else {
            Issue.record("a message-summary NOTIFY is taken")
            return
        }
        #expect(response.statusCode == 200)
        #expect(summary.messagesWaiting)
        let other = try Parts.request("NOTIFY", extra: "Event: presence\n")
        #expect(status(responder.outcome(for: other, tag: { "t" })) == 481)
    }

    // MARK: Directory

    @Test func sessionsAreFiledUnderNewKeysAndFoundByTheirInvite() {
        var directory = SessionDirectory()
        let (first, _) = directory.add()
        let (second, entry) = directory.add()
        #expect(first != second)
        let transaction = TransactionID(42)
        directory.addInvite(transaction, for: second)
        #expect(entry.inviteTransaction == transaction)
        #expect(directory.session(invitedBy: transaction) == second)
        let removed = directory.remove(second)
        #expect(removed === entry)
        #expect(entry.isFinished)
        #expect(directory.session(invitedBy: transaction) == nil)
        let again = directory.remove(second)
        #expect(again == nil)
        let remaining = directory.removeAll()
        #expect(remaining.count == 1)
        #expect(remaining.allSatisfy { $0.isFinished })
        #expect(directory[first] == nil)
        // Keys are never reused.
        let (third, _) = directory.add()
        #expect(third.raw > second.raw)
        #expect(third != first)
    }

    @Test func aFailedServerInviteIsFoundByItsSessionAndOnlyTheLatestAreKept() {
        var directory = SessionDirectory()
        let (first, _) = directory.add()
        let (second, entry) = directory.add()
        directory.addInvite(TransactionID(1), for: first)
        directory.addInvite(TransactionID(2), for: second)
        // Re-INVITEs of the second session: the initial one and the three latest stay filed.
        for raw in 3...6 { directory.addServerInvite(TransactionID(UInt64(raw)), for: second) }
        #expect(directory.session(withServerInvite: TransactionID(1)) == first)
        #expect(directory.session(withServerInvite: TransactionID(2)) == nil)
        #expect(directory.session(withServerInvite: TransactionID(6)) == second)
        #expect(entry.serverInvites == (3...6).map { TransactionID(UInt64($0)) })
        // The initial INVITE stays the CANCEL's target, however many re-INVITEs came after it.
        #expect(directory.session(invitedBy: TransactionID(2)) == second)
        // A refusal sent before any session (a 503, a 486) belongs to nobody.
        #expect(directory.session(withServerInvite: TransactionID(99)) == nil)
        _ = directory.remove(second)
        #expect(directory.session(withServerInvite: TransactionID(6)) == nil)
        #expect(directory.session(withServerInvite: TransactionID(1)) == first)
        // A transaction filed for a session that is gone files nothing.
        directory.addServerInvite(TransactionID(7), for: second)
        #expect(directory.session(withServerInvite: TransactionID(7)) == nil)
    }

    @Test func anEndedServerInviteIsForgottenAndTheTablesShrink() {
        var directory = SessionDirectory()
        let (key, entry) = directory.add()
        directory.addInvite(TransactionID(1), for: key)
        directory.addServerInvite(TransactionID(2), for: key)
        directory.serverTransactionEnded(TransactionID(1))
        #expect(directory.session(invitedBy: TransactionID(1)) == nil)
        #expect(directory.session(withServerInvite: TransactionID(1)) == nil)
        #expect(entry.inviteTransaction == nil)
        #expect(entry.serverInvites == [TransactionID(2)])
        // A transaction nobody filed (a refusal, a BYE's) changes nothing.
        directory.serverTransactionEnded(TransactionID(99))
        #expect(directory.session(withServerInvite: TransactionID(2)) == key)
        directory.serverTransactionEnded(TransactionID(2))
        #expect(entry.serverInvites.isEmpty && entry.serverInvites.capacity == 0)
        #expect(directory.filedServerTransactionCount == 0)

        // A burst of calls grows the look-ups; once their INVITEs have ended, the room goes with them.
        let keys = (0..<1000).map { _ in directory.add().0 }
        for (n, key) in keys.enumerated() { directory.addInvite(TransactionID(UInt64(1000 + n)), for: key) }
        for n in 0..<990 { directory.serverTransactionEnded(TransactionID(UInt64(1000 + n))) }
        #expect(directory.filedServerTransactionCount == 20)
        #expect(directory.filedServerTransactionCapacity < 100)
        #expect(directory.session(invitedBy: TransactionID(1995)) == keys[995])
        #expect(directory.session(withServerInvite: TransactionID(1999)) == keys[999])
    }

    @Test func sessionsAreFoundByTheFlowTheyCameOn() {
        var directory = SessionDirectory()
        let (first, _) = directory.add()
        let (second, _) = directory.add()
        let (third, thirdEntry) = directory.add()
        let flow = FlowID(raw: 7)
        let other = FlowID(raw: 8)
        directory.setFlow(flow, for: second)
        directory.setFlow(flow, for: first)
        directory.setFlow(other, for: third)
        #expect(directory.sessions(on: flow) == [first, second])
        #expect(directory.sessions(on: other) == [third])
        directory.setFlow(nil, for: first)
        #expect(directory.sessions(on: flow) == [second])
        directory.setFlow(flow, for: third)
        #expect(thirdEntry.flow == flow)
        #expect(directory.sessions(on: other).isEmpty)
        _ = directory.remove(second)
        #expect(directory.sessions(on: flow) == [third])
        _ = directory.removeAll()
        #expect(directory.sessions(on: flow).isEmpty)
    }

    // MARK: Building sessions

    @Test func codecsBecomeSDPCodecsWithTelephoneEventLast() {
        let list = SessionSetup.sdpCodecs([.pcma, .opus])
        #expect(list.map(\.encodingName) == ["PCMA", "opus", "telephone-event"])
        #expect(SessionSetup.policy(.mandatory) == SDP.SRTPPolicy.mandatory)
        #expect(SessionSetup.policy(.off) == SDP.SRTPPolicy.off)
    }

    @Test func anOutgoingCallCarriesItsAddressingAndTransferFields() throws {
        let target = try URI("sip:bob@example.com;transport=tcp")
        var request = OutgoingRequest(
            target: target, from: try SIPURI("sip:alice@example.com"), displayName: "Alice",
            outboundProxy: try SIPURI("sip:proxy.example.com"), transport: .tcp, credentials: nil, codecs: [.pcmu],
            srtp: .off, ice: nil, headers: [SIPField(name: .subject, value: "hi")], replaces: nil,
            referredBy: try NameAddress("<sip:carol@example.com>"))
        let local = try #require(SocketAddress(ip: "10.0.0.1", port: 5060))
        let call = SessionSetup.outgoingCall(
            request, requestURI: target, callID: "c1", localTag: "t1", initialSequence: 7,
            from: try #require(request.from))
        #expect(call.from.description == "\"Alice\" <sip:alice@example.com>")
        #expect(call.to.uri.description == "sip:bob@example.com")
        #expect(call.routeSet.map(\.uri.description) == ["sip:proxy.example.com;lr"])
        #expect(call.headers.map(\.name) == [.subject, .referredBy])
        #expect(call.initialSequence == 7)
        request.from = nil
        request.displayName = nil
        #expect(request.contactUser == "switchboard")
        let anonymous = SessionSetup.outgoingCall(
            request, requestURI: target, callID: "c1", localTag: "t1", initialSequence: 1,
            from: SIPURI(user: request.contactUser, host: HopResolver.host(local)))
        #expect(anonymous.from.description == "<sip:switchboard@10.0.0.1>")
    }

    @Test func routeSetsAndCalleesAreWrittenOneWay() throws {
        #expect([NameAddress](outboundProxy: nil).isEmpty)
        let loose = [NameAddress](outboundProxy: try SIPURI("sip:proxy.example.com;lr"))
        #expect(loose.map(\.uri.description) == ["sip:proxy.example.com;lr"])
        #expect(
            NameAddress.callee(try URI("sip:bob@example.com;transport=tls")).uri.description == "sip:bob@example.com")
        #expect(NameAddress.callee(try URI("tel:+15551234")).uri.description == "tel:+15551234")
    }

    @Test func optionsCarryAContactInTheFlowsFormAndMessagesNone() throws {
        let local = try #require(SocketAddress(ip: "10.0.0.1", port: 5070))
        let options = OutOfDialogSender.request(
            OutOfDialogRequest(
                method: .options, target: try URI("sip:bob@example.com"), from: nil,
                outboundProxy: try SIPURI("sip:proxy.example.com"), transport: nil, credentials: nil),
            requestURI: try URI("sip:bob@example.com"), local: local, flow: .tcp, callID: "c1", localTag: "t1",
            userAgent: "test")
        #expect(options.method == .options)
        #expect(options.headerFields[.contact] == "<sip:switchboard@10.0.0.1:5070;transport=tcp>")
        #expect(options.headerFields[.accept] == "application/sdp")
        #expect(options.headerFields[.route] == "<sip:proxy.example.com;lr>")
        #expect(options.headerFields[.userAgent] == "test")
        let message = OutOfDialogSender.request(
            OutOfDialogRequest(
                method: .message, target: try URI("sip:bob@example.com"), from: try SIPURI("sip:alice@example.com"),
                outboundProxy: nil, transport: nil, credentials: nil, contentType: "text/plain",
                body: Array("hi".utf8)),
            requestURI: try URI("sip:bob@example.com"), local: local, flow: .udp, callID: "c2", localTag: "t2",
            userAgent: "test")
        #expect(message.headerFields[.contact] == nil)
        #expect(message.headerFields[.contentType] == "text/plain")
        #expect(Array(message.body) == Array("hi".utf8))
        #expect(try message.from?.uri.description == "sip:alice@example.com")
    }
}
