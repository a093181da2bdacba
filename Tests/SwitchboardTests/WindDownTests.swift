import Foundation
import SwitchboardTesting
import Testing

@testable import Switchboard

/// `CallProvider.invalidate(timeout:)` waits for what the peer is still owed (a BYE's answer), not for
/// transactions that only absorb retransmissions: the INVITE's, 64*T1 in RFC 6026's Accepted state.
@Suite("Winding a provider down", .serialized)
struct WindDownTests {
    @Test func aCallTheOtherSideEndedHoldsNothingUp() async throws {
        let pair = try ICEPair()
        defer { pair.bob.invalidate(timeout: .seconds(2)) }
        let (alice, bob) = try await pair.connect()
        try await pair.bobController.endCall(bob)
        _ = try #require(await pair.aliceDelegate.ended(alice))
        // Alice's INVITE transaction stays Accepted for 64*T1 = 6.4 s (T1 100 ms); invalidate does not wait.
        let before = pair.world.loop.elapsedTime
        pair.alice.invalidate(timeout: .seconds(10))
        #expect(pair.world.loop.elapsedTime - before < .milliseconds(100))
    }

    @Test func invalidatingDuringACallWaitsForTheBYEsAnswerOnly() async throws {
        let pair = try ICEPair()
        defer { pair.bob.invalidate(timeout: .seconds(2)) }
        pair.world.network.setConditions(LinkConditions(latency: .milliseconds(50)))
        let (_, bob) = try await pair.connect()
        let before = pair.world.loop.elapsedTime
        pair.alice.invalidate(timeout: .seconds(10))
        let spent = pair.world.loop.elapsedTime - before
        // The BYE's round trip, not the rest of the INVITE's Accepted state.
        #expect(spent >= .milliseconds(100) && spent < .milliseconds(500))
        let ended = try #require(await pair.bobDelegate.ended(bob))
        #expect(ended.reason == .remoteEnded)
    }
}
