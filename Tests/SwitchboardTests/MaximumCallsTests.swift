import Foundation
import Switchboard
import Synchronization
import Testing

/// `CallProviderConfiguration.maximumCalls`: an INVITE beyond the limit is refused with 486 before the
/// delegate hears of it, and an ended call frees its place.
@Suite("Maximum calls", .serialized)
struct MaximumCallsTests {
    static func invites(_ delegate: RecordingDelegate) -> Int {
        delegate.events.withLock { $0.filter { $0.kind == .invite }.count }
    }

    @Test func theCallBeyondTheLimitGets486AndAnEndedCallFreesItsPlace() async throws {
        let pair = try ProviderPair(bobConfiguration: { $0.maximumCalls = 1 })
        defer { pair.close() }
        let (first, firstAtBob) = try await pair.connect()

        let second = try await pair.aliceController.startCall(to: pair.bobHandle)
        let refused = try #require(await pair.aliceDelegate.ended(second))
        #expect(refused.statusCode == 486)
        #expect(Self.invites(pair.bobDelegate) == 1)

        try await pair.aliceController.endCall(first)
        _ = try #require(await pair.aliceDelegate.ended(first))
        try await pair.pause(.milliseconds(300))
        let third = try await pair.aliceController.startCall(to: pair.bobHandle)
        let invite = try #require(
            await pair.bobDelegate.wait { event -> CallInvite? in
                if let invite = event.invite, invite.callUUID != firstAtBob { invite } else { nil }
            })
        try await pair.bobController.answerCall(invite.callUUID)
        _ = try #require(await pair.aliceDelegate.connected(third))
    }

    /// A call whose INVITE gets no client transaction (the limit is reached) fails at once: its session
    /// ends inside the start, and the end reaches the call instead of leaving it live for good.
    @Test func aCallWhoseINVITEGetsNoTransactionEnds() async throws {
        let pair = try ProviderPair(aliceConfiguration: { $0.maximumTransactions = 1 })
        defer { pair.close() }
        let first = try await pair.aliceController.startCall(to: pair.bobHandle)
        _ = try #require(await pair.bobDelegate.invite())
        let second = try await pair.aliceController.startCall(to: pair.bobHandle)
        let ended = try #require(await pair.aliceDelegate.ended(second))
        #expect(ended.reason != .remoteEnded)
        #expect(pair.alice.statistics.liveCalls == 1)
        #expect(Self.invites(pair.bobDelegate) == 1)
        try await pair.aliceController.endCall(first)
        _ = try #require(await pair.aliceDelegate.ended(first))
    }
}
