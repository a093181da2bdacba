import SIPCore
import SIPMessage
import SIPTransaction
import SIPTransport
import SwitchboardTesting
import Testing

/// The INVITE server transaction's 100 Trying (RFC 3261 §17.2.1): sent when the TU has not answered within
/// 200 ms, and never when it answers at once (the core arms the timer only once the INVITE's handling ends).
struct SIPCoreTryingTests {
    @Test func anUnansweredInviteGetsTryingAfter200Milliseconds() throws {
        let world = CoreWorld()
        let alice = try world.core("10.0.0.1", seed: 1)
        let bob = try world.core("10.0.0.2", seed: 2)
        world.loop.withLoop { bob.onRequest = { _ in } }
        let outcome = world.send(.invite, from: alice, to: "10.0.0.2")
        world.loop.advance(by: .milliseconds(150))
        #expect(outcome.statuses.isEmpty)
        world.loop.advance(by: .milliseconds(100))
        #expect(outcome.statuses == [100])
    }

    @Test func anInviteAnsweredAtOnceGetsNoTryingAndItsTimersStillRun() throws {
        let world = CoreWorld()
        let alice = try world.core("10.0.0.1", seed: 1)
        let bob = try world.core("10.0.0.2", seed: 2)
        bob.answerEverything(with: 486)
        let outcome = world.send(.invite, from: alice, to: "10.0.0.2")
        world.loop.advance(by: .milliseconds(300))
        #expect(outcome.statuses == [486])
        // Timer H (64*T1) ends bob's transaction without an ACK only if it was armed; the ACK alice's
        // transaction sends stops it first, and Timer I then ends it.
        world.loop.advance(by: .seconds(40))
        #expect(bob.transactionCount == 0)
        #expect(alice.transactionCount == 0)
    }
}
