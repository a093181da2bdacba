import Foundation
import Testing

@testable import Switchboard

/// A port pair outlives its call: it rests in the engine's pool, dropping what still comes, and the next call
/// that takes it gets its media (`MediaPair`). In virtual time, with one pair for Bob's calls.
@Suite("Media: a pooled port pair carries the next call's media")
struct MediaPairReuseTests {
    @Test func theSecondCallOnTheRestedPairSendsAndReceives() async throws {
        // Bob has one pair (away from Alice's, on the same virtual host): the second call can only have it back.
        let pair = try ProviderPair(bobConfiguration: { $0.mediaPorts = 44_000...44_001 })
        defer { pair.close() }
        let (firstAlice, firstBob) = try await pair.connect()
        try await pair.pause(.seconds(1))
        let first = try #require(pair.bob.call(with: firstBob)?.quality)
        #expect(first.packetsReceived > 20)
        try await pair.aliceController.endCall(firstAlice)
        _ = try #require(await pair.bobDelegate.ended(firstBob))
        // The pair rests past the reuse delay: Alice's stream is gone, so nothing arrives for it.
        try await pair.pause(.seconds(2))

        let secondAlice = try await pair.aliceController.startCall(to: pair.bobHandle)
        let invite = try #require(
            await pair.bobDelegate.wait { event in
                event.invite.flatMap { $0.callUUID == firstBob ? nil : $0 }
            })
        try await pair.bobController.answerCall(invite.callUUID)
        _ = try #require(await pair.aliceDelegate.connected(secondAlice))
        _ = try #require(await pair.bobDelegate.connected(invite.callUUID))
        try await pair.pause(.seconds(1))

        // The one pair served both calls, and the second call's packets reach its own stream both ways.
        #expect(pair.bob.engine.media.reusedPairCount == 1)
        let bobQuality = try #require(pair.bob.call(with: invite.callUUID)?.quality)
        let aliceQuality = try #require(pair.alice.call(with: secondAlice)?.quality)
        #expect(bobQuality.packetsReceived > 20)
        #expect(aliceQuality.packetsReceived > 20)
        #expect(bobQuality.lossFraction < 0.05)
    }
}
