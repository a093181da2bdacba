import SDP
import SIPMessage
import Testing

@testable import SIPUserAgent

/// RFC 3261 §14 and RFC 3264 §8: re-INVITE both ways: hold, resume, media change, glare (491) and retry.
@Suite struct ReinviteTests {
    @Test func holdAndResumeByReinvite() throws {
        let net = Harness.connected()
        net.command("alice") { $0.hold() }
        net.run()
        let hold = try #require(net["alice"].sent(.invite).last)
        #expect(hold.headerFields[.cseq] == "2 INVITE")
        #expect(hold.bodyText.contains("a=sendonly"))
        #expect(hold.headerFields[.contact] == "<sip:alice@alice.example>")
        #expect(net["bob"].names().suffix(2) == ["remote hold", "media updated"])
        #expect(net["alice"].names().last == "media updated")
        #expect(net["alice"].call?.negotiatedSession?.isLocalHold == true)
        #expect(net["bob"].call?.negotiatedSession?.isRemoteHold == true)
        #expect(net["alice"].sentACKs.count == 2)
        net.command("alice") { $0.resume() }
        net.run()
        #expect(try #require(net["alice"].sent(.invite).last).bodyText.contains("a=sendrecv"))
        #expect(net["bob"].names().suffix(2) == ["remote resume", "media updated"])
        #expect(net["alice"].call?.negotiatedSession?.isLocalHold == false)
        // Bob holds too: the other direction.
        net.command("bob") { $0.hold() }
        net.run()
        #expect(net["alice"].names().suffix(2) == ["remote hold", "media updated"])
        #expect(try #require(net["bob"].sent(.invite).first).headerFields[.cseq] == "1 INVITE")
    }

    @Test func glareGets491OnBothSidesAndEachRetriesAfterItsBackOff() throws {
        let net = Harness.connected()
        // Both re-offer at once: the re-INVITEs cross.
        net.command("alice") { $0.hold() }
        net.command("bob") { $0.hold() }
        net.run()
        #expect(net["alice"].sent(status: 491).count == 1)
        #expect(net["bob"].sent(status: 491).count == 1)
        #expect(!net["alice"].names().contains("offer rejected 491"))
        let aliceBackOff = try #require(
            net.scheduled.compactMap { entry -> Duration? in
                if case .timer(0, _, let timer) = entry.item, timer.kind == .glareRetry { return entry.at - net.now }
                return nil
            }.first)
        let bobBackOff = try #require(
            net.scheduled.compactMap { entry -> Duration? in
                if case .timer(1, _, let timer) = entry.item, timer.kind == .glareRetry { return entry.at - net.now }
                return nil
            }.first)
        // §14.1: the Call-ID owner (Alice, the UAC) waits 2.1-4 s, the other 0-2 s, in 10 ms steps.
        #expect(aliceBackOff >= .milliseconds(2100) && aliceBackOff <= .seconds(4))
        #expect(bobBackOff >= .zero && bobBackOff <= .seconds(2))
        #expect(aliceBackOff.components.attoseconds % 10_000_000_000_000_000 == 0)
        net.advance(by: .seconds(5))
        // Both retried with new CSeqs, one after the other, and both holds took.
        #expect(net.count(.invite, from: "alice") == 3)
        #expect(net.count(.invite, from: "bob") == 2)
        #expect(try net["alice"].sent(.invite).last?.cseq?.sequenceNumber == 3)
        #expect(net["alice"].call?.negotiatedSession?.isLocalHold == true)
        #expect(net["bob"].call?.negotiatedSession?.isLocalHold == true)
        #expect(net["alice"].call?.offerAnswer.state == .stable)
        #expect(net["bob"].call?.offerAnswer.state == .stable)
        #expect(net["alice"].sentACKs.count == 2)
        #expect(net["bob"].sentACKs.count == 1)
    }

    @Test func aSecondReofferWaitsForTheFirst() throws {
        let net = Harness.connected()
        net.command("alice") { $0.hold() }
        net.command("alice") { $0.resume() }
        #expect(net.count(.invite, from: "alice") == 2)
        net.run()
        #expect(net.count(.invite, from: "alice") == 3)
        #expect(try #require(net["alice"].sent(.invite).last).bodyText.contains("a=sendrecv"))
        #expect(net["alice"].call?.negotiatedSession?.isLocalHold == false)
    }

    @Test func offerRejectedKeepsTheSessionAndManualAnsweringWorks() throws {
        let net = Harness.connected { $0["bob"].configuration.answersOffersAutomatically = false }
        let before = net["alice"].call?.negotiatedSession
        net.command("alice") { $0.hold() }
        net.run()
        #expect(net["bob"].names().last == "offer")
        // While Bob's TU thinks, his own re-offer must wait.
        net.command("bob") { $0.renegotiate() }
        #expect(net.count(.invite, from: "bob") == 0)
        net.command("bob") { $0.rejectOffer(status: 488) }
        net.run()
        #expect(net["alice"].names().contains("offer rejected 488"))
        #expect(net["alice"].call?.negotiatedSession == before)
        #expect(net["alice"].call?.offerAnswer.isLocalHold == false)
        // Bob's queued re-offer went once the first exchange was over; Alice answered it at once, and as it
        // changed nothing it counts as a session refresh.
        #expect(net.count(.invite, from: "bob") == 1)
        #expect(net["alice"].names().last == "refreshed 1800")
        #expect(net["alice"].call?.offerAnswer.state == .stable)
        net.command("alice") { $0.hold() }
        net.run()
        net.command("bob") { $0.answerOffer() }
        net.run()
        #expect(net["alice"].call?.negotiatedSession?.isLocalHold == true)
        #expect(net["bob"].names().suffix(2) == ["remote hold", "media updated"])
    }

    @Test func renegotiationChangesTheCodec() throws {
        let net = Harness.connected()
        net.command("alice") { session in
            session.offerAnswerConfiguration.codecs = [Codec.pcma, Codec.telephoneEvent()]
            return session.renegotiate()
        }
        net.run()
        #expect(net["alice"].call?.negotiatedSession?.codec.encodingName == "PCMA")
        #expect(net["bob"].call?.negotiatedSession?.codec.encodingName == "PCMA")
    }

    @Test func reinviteTimeoutEndsTheCallWithBye() throws {
        let net = Harness.connected()
        net.drop = { delivery in
            if case .request(let request, _, _, _) = delivery { return request.method == .invite }
            return false
        }
        net.command("alice") { $0.hold() }
        net.advance(by: .seconds(33))
        #expect(net.count(.bye, from: "alice") == 1)
        #expect(net["alice"].endReason?.kind == .timeout)
        #expect(net["bob"].endReason?.kind == .remoteEnded)
    }

    @Test func reinviteGetting481EndsTheCallWithoutBye() throws {
        var call = try ScriptedCall()
        _ = call.receive(try call.reply(200, sdp: peerAnswer))
        let hold = call.session.hold()
        let reinvite = try #require(hold.requests.first)
        let token = try #require(hold.tokens.first)
        let gone = call.session.receiveResponse(try call.reply(481, to: reinvite), for: token)
        #expect(gone.requests.isEmpty)
        #expect(gone.names == ["ended failed 481"])
    }

    @Test func reinviteOKRetransmissionGetsTheSameACK() throws {
        var call = try ScriptedCall()
        _ = call.receive(try call.reply(200, sdp: peerAnswer))
        let hold = call.session.hold()
        let reinvite = try #require(hold.requests.first)
        let token = try #require(hold.tokens.first)
        let held = peerAnswer.replacingOccurrences(of: "a=sendrecv", with: "a=recvonly")
        let ok = try call.reply(200, to: reinvite, sdp: held)
        let first = call.session.receiveResponse(ok, for: token)
        let ack = try #require(first.acks.first)
        #expect(ack.headerFields[.cseq] == "11 ACK")
        #expect(first.names == ["media updated"])
        let again = call.session.receiveResponse(ok, for: token)
        #expect(again.acks == [ack])
        #expect(again.names.isEmpty)
    }

    @Test func offerlessReinviteIsAnsweredWithAnOfferAndTheACKAnswers() throws {
        var call = try ScriptedCall()
        _ = call.receive(try call.reply(200, sdp: peerAnswer))
        let reinvite = try request(
            """
            INVITE sip:alice@192.0.2.10 SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.20;branch=z9hG4bKr1
            From: <sip:bob@biloxi.example>;tag=btag
            To: Alice <sip:alice@atlanta.example>;tag=atag
            Call-ID: scripted-call
            CSeq: 1 INVITE
            Contact: <sip:bob@192.0.2.21>


            """)
        let answer = call.session.receiveRequest(reinvite, transaction: ServerTransactionToken(rawValue: 9))
        let ok = try #require(answer.responses.first)
        #expect(ok.statusCode == 200)
        #expect(ok.headerFields[.contentType] == "application/sdp")
        #expect(call.session.dialog?.remoteTarget.description == "sip:bob@192.0.2.21")
        var ack = try request(
            """
            ACK sip:alice@192.0.2.10 SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.20;branch=z9hG4bKr2
            From: <sip:bob@biloxi.example>;tag=btag
            To: Alice <sip:alice@atlanta.example>;tag=atag
            Call-ID: scripted-call
            CSeq: 1 ACK


            """)
        ack.setBody(try SessionDescription(parsing: peerAnswer.replacingOccurrences(of: "50000", with: "50002")))
        let done = call.session.receiveACK(ack)
        #expect(done.names == ["media updated"])
        #expect(call.session.negotiatedSession?.remoteRTPAddress?.port == 50002)
    }

    @Test func reinviteWhileOneIsBeingAnsweredGets500WithRetryAfter() throws {
        let net = Harness.connected { $0["bob"].configuration.answersOffersAutomatically = false }
        net.command("alice") { $0.hold() }
        net.run()
        // A second re-INVITE from Alice's side built by hand while Bob still holds the first one.
        guard var stale = net["alice"].call else { return }
        stale.offerAnswer.cancelPendingOffer()
        stale.transactions.removeAll()
        let actions = stale.resume()
        net.process(actions, agent: 0, session: 1)
        net.run()
        let overlap = try #require(net["bob"].sent(status: 500).first)
        #expect(overlap.headerFields.contains(.retryAfter))
    }
}
