import SDP
import SIPMessage
import Testing

@testable import SIPUserAgent

/// RFC 3311: UPDATE both ways, and the offer/answer rules around it (RFC 6337 §3).
@Suite struct UpdateTests {
    @Test func holdAndResumeByUpdateBothWays() throws {
        let net = Harness.connected()
        net.command("alice") { $0.hold(using: .update) }
        net.run()
        let update = try #require(net["alice"].sent(.update).first)
        #expect(update.bodyText.contains("a=sendonly"))
        #expect(update.headerFields[.contact] != nil)
        #expect(net["bob"].names().suffix(2) == ["remote hold", "media updated"])
        #expect(net["alice"].call?.negotiatedSession?.isLocalHold == true)
        #expect(net["alice"].sentACKs.count == 1)
        net.command("bob") { $0.hold(using: .update) }
        net.run()
        #expect(net["bob"].call?.negotiatedSession?.isLocalHold == true)
        #expect(net["alice"].names().suffix(2) == ["remote hold", "media updated"])
        net.command("alice") { $0.resume(using: .update) }
        net.command("bob") { $0.resume(using: .update) }
        net.run()
        // The UPDATEs crossed: 491 both ways, then both retried.
        #expect(net["alice"].sent(status: 491).count == 1)
        net.advance(by: .seconds(5))
        #expect(net["alice"].call?.negotiatedSession?.isLocalHold == false)
        #expect(net["bob"].call?.negotiatedSession?.isLocalHold == false)
        #expect(net["bob"].call?.negotiatedSession?.direction == .sendrecv)
    }

    @Test func updateWithOfferWhileOursIsPendingGets491AndWhileTheirsIsUnanswered500() throws {
        var call = try ScriptedCall { $0.answersOffersAutomatically = false }
        _ = call.receive(try call.reply(200, sdp: peerAnswer))
        // Our UPDATE offer is out.
        _ = call.session.hold(using: .update)
        var update = try request(
            """
            UPDATE sip:alice@192.0.2.10 SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.20;branch=z9hG4bKu1
            From: <sip:bob@biloxi.example>;tag=btag
            To: <sip:alice@atlanta.example>;tag=atag
            Call-ID: scripted-call
            CSeq: 1 UPDATE
            Contact: <sip:bob@192.0.2.20>


            """)
        update.setBody(try SessionDescription(parsing: peerOffer.replacingOccurrences(of: "\n", with: "\r\n")))
        let glare = call.session.receiveRequest(update, transaction: ServerTransactionToken(rawValue: 3))
        #expect(glare.responses.map(\.statusCode) == [491])
        // A re-INVITE with an offer waits for the TU (manual answering); an UPDATE offer meanwhile gets 500.
        var fresh = try ScriptedCall { $0.answersOffersAutomatically = false }
        _ = fresh.receive(try fresh.reply(200, sdp: peerAnswer))
        var reinvite = update
        reinvite.method = .invite
        reinvite.headerFields.set(.cseq, CSeq(2, .invite))
        let waiting = fresh.session.receiveRequest(reinvite, transaction: ServerTransactionToken(rawValue: 4))
        #expect(waiting.names == ["offer"])
        update.headerFields.set(.cseq, CSeq(3, .update))
        let overlap = fresh.session.receiveRequest(update, transaction: ServerTransactionToken(rawValue: 5))
        #expect(overlap.responses.map(\.statusCode) == [500])
        #expect(overlap.responses.first?.headerFields.contains(.retryAfter) == true)
    }

    @Test func updateWithoutSDPIsAnsweredAsARefresh() throws {
        var call = try ScriptedCall()
        _ = call.receive(try call.reply(200, extra: ["Session-Expires: 1800;refresher=uac"], sdp: peerAnswer))
        let update = try request(
            """
            UPDATE sip:alice@192.0.2.10 SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.20;branch=z9hG4bKu2
            From: <sip:bob@biloxi.example>;tag=btag
            To: <sip:alice@atlanta.example>;tag=atag
            Call-ID: scripted-call
            CSeq: 7 UPDATE
            Contact: <sip:bob@192.0.2.22>
            Supported: timer
            Session-Expires: 600;refresher=uac


            """)
        let actions = call.session.receiveRequest(update, transaction: ServerTransactionToken(rawValue: 3))
        let ok = try #require(actions.responses.first)
        #expect(ok.statusCode == 200)
        #expect(ok.body.isEmpty)
        #expect(ok.headerFields[.sessionExpires] == "600;refresher=uac")
        #expect(ok.headerFields[.require] == "timer")
        #expect(actions.names == ["refreshed 600"])
        #expect(call.session.dialog?.remoteTarget.description == "sip:bob@192.0.2.22")
        // Bob (the UAC of that UPDATE) refreshes now: Alice only watches for expiry.
        #expect(actions.timer(.sessionExpiry)?.1 == .seconds(568))
        #expect(!call.session.armedTimers.contains { $0.kind == .sessionRefresh })
    }

    @Test func refusedUpdateIsNotUsedForRefreshAgain() throws {
        var call = try ScriptedCall()
        _ = call.receive(
            try call.reply(
                200, extra: ["Allow: INVITE, ACK, BYE, UPDATE", "Session-Expires: 90;refresher=uac"], sdp: peerAnswer))
        let refresh = call.session.refreshSession(using: .update)
        let update = try #require(refresh.requests.first)
        #expect(update.method == .update)
        #expect(update.body.isEmpty)
        #expect(update.headerFields[.sessionExpires] == "90;refresher=uac")
        let token = try #require(refresh.tokens.first)
        let refused = call.session.receiveResponse(try call.reply(501, to: update), for: token)
        #expect(refused.names == ["offer rejected 501"])
        #expect(call.session.peer.allowsUpdate == false)
    }
}
