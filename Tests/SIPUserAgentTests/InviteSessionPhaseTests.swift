import SDP
import SIPMessage
import Testing

@testable import SIPUserAgent

/// What each stage of a call carries goes with it: the UAS's INVITE and its reliable provisional responses
/// end with the final response, a 2xx's ACK wait with its ACK, and the end reason exists only once the call
/// is over. Late messages meant for a stage that is gone get the answer of the stage the call is in.
@Suite struct InviteSessionPhaseTests {
    static let invite = """
        INVITE sip:bob@192.0.2.20 SIP/2.0
        Via: SIP/2.0/UDP 192.0.2.10;branch=z9hG4bKa1
        Max-Forwards: 70
        From: Alice <sip:alice@atlanta.example>;tag=atag
        To: <sip:bob@biloxi.example>
        Call-ID: phase-1
        CSeq: 5 INVITE
        Contact: <sip:alice@192.0.2.10>
        Supported: 100rel
        Content-Type: application/sdp

        v=0
        o=alice 1 1 IN IP4 192.0.2.10
        s=-
        c=IN IP4 192.0.2.10
        t=0 0
        m=audio 40000 RTP/AVP 0
        a=rtpmap:0 PCMU/8000
        a=sendrecv

        """

    func incoming(reliably policy: ReliableProvisionalPolicy = .supported) throws -> InviteSession {
        let configuration = InviteSessionConfiguration(
            contact: try address("<sip:bob@192.0.2.20>"), reliableProvisionalResponses: policy)
        var session = InviteSession(
            incoming: try request(Self.invite), transaction: ServerTransactionToken(rawValue: 1), localTag: "btag",
            configuration: configuration, offerAnswer: .testing(address: "192.0.2.20", port: 50000),
            random: SeededRandom(5))
        _ = session.start()
        return session
    }

    /// A request from Alice in the dialog, with CSeq `number` and the extra `fields`.
    func inDialog(_ method: String, _ number: Int, fields: String = "") throws -> SIPRequest {
        try request(
            """
            \(method) sip:bob@192.0.2.20 SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.10;branch=z9hG4bK\(method.lowercased())\(number)
            Max-Forwards: 70
            From: Alice <sip:alice@atlanta.example>;tag=atag
            To: <sip:bob@biloxi.example>;tag=btag
            Call-ID: phase-1
            CSeq: \(number) \(method)
            \(fields)


            """)
    }

    var ack: SIPRequest {
        get throws { try inDialog("ACK", 5) }
    }

    /// The unanswered INVITE is changed in place; a copy of the session still has its own.
    @Test func copiesOfAnUnansweredSessionGoOnApart() throws {
        let original = try incoming(reliably: .required)
        var copy = original
        var other = original
        let first = try #require(copy.ring().responses.first)
        let second = try #require(other.ring().responses.first)
        #expect(try first.rseq == second.rseq)
        #expect(original.state == .incoming)
        #expect(copy.state == .early && other.state == .early)
    }

    /// `ring()` and `answer()` change the INVITE's record where the phase holds it: a copy of the session made
    /// in between keeps its own, and answers alike.
    @Test func aCopyMadeBeforeTheAnswerAnswersAlike() throws {
        var session = try incoming()
        let ringing = try #require(session.ring().responses.first)
        #expect(ringing.statusCode == 180)
        var copy = session
        let first = try #require(session.answer().responses.first)
        #expect(copy.state == .early)
        let second = try #require(copy.answer().responses.first)
        #expect(first.statusCode == 200)
        #expect(first.serialized() == second.serialized())
        #expect(session.state == .connecting && copy.state == .connecting)
    }

    @Test func anACKAfterTheCallEndedIsIgnored() throws {
        var session = try incoming()
        _ = session.answer()
        #expect(session.receiveACK(try ack).names == ["connected"])
        let bye = session.hangUp()
        #expect(bye.requests.map(\.method) == [.bye])
        #expect(session.endReason?.kind == .localEnded)
        // The 2xx was ACKed before: a retransmitted ACK finds nothing to stop, and no second BYE goes.
        #expect(session.receiveACK(try ack).isEmpty)
        #expect(session.state == .terminated)
        #expect(session.endReason?.kind == .localEnded)
    }

    @Test func theBYEThatWaitedForTheACKGoesOnce() throws {
        var session = try incoming()
        _ = session.answer()
        #expect(session.state == .connecting)
        let hangUp = session.hangUp(reason: Reason(protocol: "Q.850", cause: 16))
        #expect(hangUp.requests.isEmpty)
        #expect(hangUp.names == ["ended local-ended"])
        #expect(session.armedTimers.map(\.kind) == [.retransmit2xx, .ackTimeout])
        let acked = session.receiveACK(try ack)
        let bye = try #require(acked.requests.first)
        #expect(bye.method == .bye)
        #expect(bye.headerFields[.reason] == "Q.850;cause=16")
        #expect(acked.names.isEmpty)
        #expect(session.armedTimers.isEmpty)
        #expect(session.receiveACK(try ack).isEmpty)
        #expect(session.endReason?.kind == .localEnded)
    }

    @Test func aBYEThatOvertookTheACKConfirmsTheCallFirst() throws {
        var session = try incoming()
        _ = session.answer()
        #expect(session.state == .connecting)
        let bye = session.receiveRequest(try inDialog("BYE", 6), transaction: ServerTransactionToken(rawValue: 2))
        #expect(bye.responses.map(\.statusCode) == [200])
        #expect(bye.names == ["connected", "ended remote-ended"])
        #expect(session.armedTimers.isEmpty)
        // The ACK arrives after it: nothing more happens.
        #expect(session.receiveACK(try ack).isEmpty)
        #expect(session.endReason?.kind == .remoteEnded)
    }

    @Test func aBYEBeforeTheACKThatCarriesTheAnswerEndsWithoutConnecting() throws {
        // No offer in the INVITE: the 2xx carries this side's offer, the ACK the answer (§13.2.1).
        let body = try #require(Self.invite.firstRange(of: "Content-Type:"))
        let offerless = String(Self.invite[..<body.lowerBound]) + "\n"
        var session = InviteSession(
            incoming: try request(offerless), transaction: ServerTransactionToken(rawValue: 1), localTag: "btag",
            configuration: InviteSessionConfiguration(contact: try address("<sip:bob@192.0.2.20>")),
            offerAnswer: .testing(address: "192.0.2.20", port: 50000), random: SeededRandom(5))
        _ = session.start()
        _ = session.answer()
        #expect(session.state == .connecting)
        let bye = session.receiveRequest(try inDialog("BYE", 6), transaction: ServerTransactionToken(rawValue: 2))
        #expect(bye.responses.map(\.statusCode) == [200])
        #expect(bye.names == ["ended remote-ended"])
        #expect(session.armedTimers.isEmpty)
    }

    @Test func aPRACKAfterTheFinalResponseGets481() throws {
        var session = try incoming(reliably: .required)
        let ringing = session.ring(status: 183, earlyMedia: true)
        let progress = try #require(ringing.responses.first)
        let rseq = try #require(try progress.rseq)
        let rack = "RAck: \(rseq) 5 INVITE"
        // Before the final response the PRACK matches and is answered 200.
        let acknowledged = session.receiveRequest(
            try inDialog("PRACK", 6, fields: rack), transaction: ServerTransactionToken(rawValue: 2))
        #expect(acknowledged.responses.map(\.statusCode) == [200])
        // A reliable 180 goes, then the 2xx: the 180's PRACK comes too late.
        let second = session.ring(status: 180)
        let secondRSeq = try #require(try second.responses.first?.rseq)
        _ = session.answer()
        #expect(session.state == .connecting)
        #expect(!session.armedTimers.contains { $0.kind == .retransmitProvisional })
        let late = session.receiveRequest(
            try inDialog("PRACK", 7, fields: "RAck: \(secondRSeq) 5 INVITE"),
            transaction: ServerTransactionToken(rawValue: 3))
        #expect(late.responses.map(\.statusCode) == [481])
        _ = session.receiveACK(try ack)
        let confirmed = session.receiveRequest(
            try inDialog("PRACK", 8, fields: rack), transaction: ServerTransactionToken(rawValue: 4))
        #expect(confirmed.responses.map(\.statusCode) == [481])
        #expect(session.state == .confirmed)
    }

    @Test func theINVITEsCommandsEndWithItsFinalResponse() throws {
        var session = try incoming()
        #expect(session.endReason == nil)
        let rejected = session.reject(status: 486)
        #expect(rejected.responses.map(\.statusCode) == [486])
        #expect(session.endReason?.statusCode == 486)
        #expect(session.ring().isEmpty)
        #expect(session.answer().isEmpty)
        #expect(session.reject().isEmpty)
        #expect(session.receiveCancel(try inDialog("CANCEL", 5)).isEmpty)
        #expect(session.serverTransactionFailed(ServerTransactionToken(rawValue: 1)).isEmpty)
        #expect(session.endReason?.statusCode == 486)
        #expect(session.isFinished)
    }

    @Test func aReinvitesACKWaitEndsWithTheCall() throws {
        var session = try incoming()
        _ = session.answer()
        _ = session.receiveACK(try ack)
        // A re-INVITE without an offer: the 2xx offers and waits for the ACK's answer.
        let reinvite = session.receiveRequest(
            try inDialog("INVITE", 6, fields: "Contact: <sip:alice@192.0.2.10>"),
            transaction: ServerTransactionToken(rawValue: 2))
        #expect(reinvite.responses.map(\.statusCode) == [200])
        #expect(session.armedTimers.map(\.kind).contains(.retransmit2xx))
        let bye = session.hangUp()
        #expect(bye.requests.map(\.method) == [.bye])
        #expect(session.armedTimers.isEmpty)
        // Its ACK, late, neither confirms nor answers anything.
        #expect(session.receiveACK(try inDialog("ACK", 6)).isEmpty)
        #expect(session.endReason?.kind == .localEnded)
    }
}
