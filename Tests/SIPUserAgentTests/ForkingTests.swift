import SDP
import SIPMessage
import Testing

@testable import SIPUserAgent

/// RFC 3261 §13.2.2.4, §12.1.2: a forked INVITE: several early dialogs, several 2xx.
@Suite struct ForkingTests {
    func forkedCall() -> Harness {
        let net = Harness("alice", "bob", "carol")
        net.forkTargets = [1, 2]
        net.call(from: "alice", to: "fork")
        net.run()
        return net
    }

    @Test func twoRingingForksThenOneAnswer() throws {
        let net = forkedCall()
        net.command("bob") { $0.ring() }
        net.command("carol") { $0.ring() }
        net.run()
        let alice = net["alice"]
        let ringing = alice.events(of: 1).compactMap { event -> DialogID? in
            if case .ringing(180, _, let dialog) = event { return dialog }
            return nil
        }
        #expect(ringing.count == 2)
        #expect(Set(ringing.map(\.remoteTag)) == ["bobtag1", "carol" + "tag1"])
        #expect(alice.dialogs.count == 2)
        #expect(alice.call?.dialogIDs.count == 2)

        net.command("carol") { $0.answer() }
        net.run()
        #expect(alice.names() == ["ringing 180", "ringing 180", "connected"])
        #expect(alice.call?.dialog?.id.remoteTag == "caroltag1")
        #expect(alice.dialogs.count == 1)
        #expect(alice.call?.dialogIDs.count == 1)
        // The proxy cancelled Bob's branch: answered elsewhere.
        #expect(net["bob"].endReason?.kind == .answeredElsewhere)
        #expect(net["bob"].sent(status: 487).count == 1)
        #expect(net["carol"].names() == ["offer", "connected"])
        // The call goes to Carol.
        net.command("alice") { $0.hangUp() }
        net.run()
        #expect(net["carol"].names().last == "ended remote-ended")
        #expect(try net["alice"].sent(.bye).first?.to?.tag == "caroltag1")
    }

    @Test func twoAnswersAreBothACKedAndTheSecondGetsBye() throws {
        let net = forkedCall()
        net.command("bob") { $0.ring() }
        net.command("carol") { $0.ring() }
        net.run()
        // Both answer before either 200 reaches the proxy.
        net.command("bob") { $0.answer() }
        net.command("carol") { $0.answer() }
        net.run()
        let alice = net["alice"]
        #expect(alice.sentACKs.count == 2)
        #expect(Set(try alice.sentACKs.map { try $0.to?.tag }) == ["bobtag1", "caroltag1"])
        let byes = alice.sent(.bye)
        #expect(byes.count == 1)
        #expect(try byes.first?.to?.tag == "caroltag1")
        #expect(alice.names() == ["ringing 180", "ringing 180", "connected"])
        #expect(net["bob"].names() == ["offer", "connected"])
        #expect(net["carol"].names() == ["offer", "connected", "ended remote-ended"])
        #expect(alice.call?.state == .confirmed)
    }

    @Test func earlyMediaPerForkIsNegotiatedSeparately() throws {
        let net = forkedCall()
        net["alice"].configuration.reliableProvisionalResponses = .disabled
        net.command("bob") { $0.ring(status: 183, earlyMedia: true) }
        net.command("carol") { $0.ring(status: 183, earlyMedia: true) }
        net.run()
        let media = net["alice"].events(of: 1).compactMap { event -> NegotiatedSession? in
            if case .earlyMedia(let session) = event { return session }
            return nil
        }
        #expect(media.map { $0.remoteRTPAddress?.port } == [40100, 40200])
        net.command("bob") { $0.answer() }
        net.run()
        #expect(net["alice"].call?.negotiatedSession?.remoteRTPAddress?.port == 40100)
    }

    @Test func everyBranchFailingEndsTheCallWithTheLastAnswer() throws {
        let net = forkedCall()
        net.command("bob") { $0.reject(status: 486) }
        net.run()
        #expect(net["alice"].names().isEmpty)
        net.command("carol") { $0.reject(status: 603) }
        net.run()
        #expect(net["alice"].names() == ["ended declined 603"])
    }
}
