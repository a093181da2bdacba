import SDP
import SIPMessage
import Testing

@testable import SIPUserAgent

/// RFC 3261 §13-§15: a call set up and torn down between two sessions over the harness.
@Suite struct BasicCallTests {
    @Test func callWithOfferInInviteConnectsBothSides() throws {
        let net = Harness("alice", "bob")
        net.call(from: "alice", to: "bob")
        net.run()
        #expect(net["bob"].names() == ["offer"])
        net.command("bob") { $0.ring() }
        net.run()
        net.command("bob") { $0.answer() }
        net.run()
        #expect(net["alice"].names() == ["ringing 180", "connected"])
        #expect(net["bob"].names() == ["offer", "connected"])
        #expect(net["alice"].call?.state == .confirmed)
        #expect(net["bob"].call?.state == .confirmed)
        let alice = try #require(net["alice"].call?.negotiatedSession)
        let bob = try #require(net["bob"].call?.negotiatedSession)
        #expect(alice.remoteRTPAddress?.port == 40100)
        #expect(bob.remoteRTPAddress?.port == 40000)
        #expect(alice.codec.encodingName == bob.codec.encodingName)
        // One ACK, no retransmitted 2xx once it arrived.
        #expect(net["alice"].sentACKs.count == 1)
        #expect(net["bob"].sent(status: 200).count == 1)
        net.advance(by: .seconds(10))
        #expect(net["bob"].sent(status: 200).count == 1)
    }

    @Test func inviteCarriesTheHeadersOfItsExtensions() throws {
        let net = Harness("alice", "bob")
        net.call(from: "alice", to: "bob")
        let invite = try #require(net["alice"].sent(.invite).first)
        #expect(invite.headerFields[.supported] == "100rel, timer, replaces, norefersub")
        #expect(invite.headerFields[.sessionExpires] == "1800")
        #expect(invite.headerFields[.minSE] == "90")
        #expect(invite.headerFields[.contact] == "<sip:alice@alice.example>")
        #expect(invite.headerFields[.maxForwards] == "70")
        #expect(invite.headerFields[.contentType] == "application/sdp")
        #expect(try invite.from?.tag == "alicetag1")
        #expect(try invite.to?.tag == nil)
        #expect(!invite.headerFields.contains(.via))
        #expect(invite.headerFields[.allow]?.contains("UPDATE") == true)
    }

    @Test func calleeHangsUp() throws {
        let net = Harness("alice", "bob")
        net.call(from: "alice", to: "bob")
        net.run()
        net.command("bob") { $0.answer() }
        net.run()
        net.command("bob") { $0.hangUp(reason: Reason(protocol: "Q.850", cause: 16)) }
        net.run()
        #expect(net["alice"].names().last == "ended remote-ended")
        #expect(net["alice"].endReason?.reasons.first?.cause == 16)
        #expect(net["bob"].names().last == "ended local-ended")
        #expect(net["bob"].sent(.bye).count == 1)
        #expect(net["alice"].sent(status: 200).count == 1)
        #expect(net["alice"].call?.state == .terminated)
        #expect(
            net["bob"].finished.contains(1), "\(net["bob"].call.map { "\($0.transactions) \($0.armedTimers)" } ?? "")")
        #expect(net["bob"].dialogs.isEmpty)
        // The caller's INVITE transaction lingers for forked 2xx until Timer M, then the session is done.
        net.advance(by: .seconds(40))
        #expect(net["alice"].finished.contains(1))
        #expect(net["alice"].dialogs.isEmpty)
    }

    @Test func callerHangsUpAndTheByeCarriesTheDialog() throws {
        let net = Harness("alice", "bob")
        net.call(from: "alice", to: "bob")
        net.run()
        net.command("bob") { $0.answer() }
        net.run()
        net.command("alice") { $0.hangUp() }
        net.run()
        let bye = try #require(net["alice"].sent(.bye).first)
        #expect(bye.uri.description == "sip:bob@bob.example")
        #expect(bye.headerFields[.cseq] == "2 BYE")
        #expect(try bye.to?.tag == "bobtag1")
        #expect(net["bob"].names().last == "ended remote-ended")
        #expect(net["alice"].names().last == "ended local-ended")
    }

    @Test func requestInAFinishedDialogGets481() throws {
        let net = Harness("alice", "bob")
        net.call(from: "alice", to: "bob")
        net.run()
        net.command("bob") { $0.answer() }
        net.run()
        guard var stale = net["bob"].call else { return }
        net.command("alice") { $0.hangUp() }
        net.run()
        net.advance(by: .seconds(40))
        // Bob's copy from before the BYE sends an INFO into the dialog Alice dropped: 481 from the table.
        let actions = stale.sendDTMF(try #require(DTMFRelay(signal: "5")))
        net.process(actions, agent: 1, session: 1)
        net.agents[1].sessions[1] = stale
        net.run()
        #expect(net["alice"].sent(status: 481).count == 1)
    }
}
