import SIPMessage
import Testing

@testable import SIPUserAgent

/// The transferee's end of the old dialog after a blind transfer (RFC 3515, RFC 5589 §6): the transferor's
/// BYE, or this side's own once `InviteSession.transferHangUpDelay` passed without one.
@Suite struct TransferHangUpTests {
    /// Alice (the PBX) refers Bob to Carol; Bob accepts and reports the new call's `status` as final.
    func transferred(finalStatus status: Int) throws -> Harness {
        let net = Harness.connected()
        let carol = SIPURI(user: "carol", host: SIPHost("carol.example").unsafelyUnwrappedForTests)
        net.command("alice") { $0.refer(to: .sip(carol)) }
        net.run()
        guard case .referReceived(let referral) = net["bob"].events(of: 1).last else {
            Issue.record("no refer event: \(net["bob"].names())")
            return net
        }
        net.command("bob") { $0.acceptRefer(referral.id) }
        net.run()
        net.command("bob") { $0.notifyRefer(referral.id, status: status) }
        net.run()
        return net
    }

    @Test func withoutTheTransferorsByeTheTransfereeSendsItsOwnAfterTheDelay() throws {
        let net = try transferred(finalStatus: 200)
        #expect(net["alice"].names().last == "refer progress 200 final")
        net.advance(by: InviteSession.transferHangUpDelay - .milliseconds(1))
        #expect(net["bob"].sent(.bye).isEmpty)
        #expect(net["bob"].call?.state == .confirmed)
        net.advance(by: .milliseconds(1))
        let bye = try #require(net["bob"].sent(.bye).first)
        #expect(bye.headerFields[.reason] == #"Q.850;cause=16;text="transferred""#)
        #expect(net["bob"].endReason?.kind == .transferred)
        #expect(net["alice"].endReason?.kind == .remoteEnded)
        #expect(net["bob"].finished.contains(1))
    }

    @Test func theTransferorsByeEndsTheCallAndNoOtherByeFollows() throws {
        let net = try transferred(finalStatus: 200)
        net.advance(by: .seconds(1))
        net.command("alice") { $0.hangUp() }
        net.run()
        #expect(net["bob"].endReason?.kind == .remoteEnded)
        net.advance(by: .seconds(10))
        #expect(net["bob"].sent(.bye).isEmpty)
        #expect(net["bob"].finished.contains(1))
    }

    @Test func aFailedTransferKeepsTheCall() throws {
        let net = try transferred(finalStatus: 486)
        net.advance(by: .seconds(10))
        #expect(net["bob"].sent(.bye).isEmpty)
        #expect(net["bob"].call?.state == .confirmed)
    }
}
