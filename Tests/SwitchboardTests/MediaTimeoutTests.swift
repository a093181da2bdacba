import Foundation
import SIPAuthentication
import Switchboard
import Synchronization
import Testing

/// `CallProviderConfiguration.mediaTimeout` counts only while RTP is due: a call whose media flows, or that
/// this side holds (sendonly, so the peer sends nothing), is not ended. The call that does time out (a peer
/// that answers and never sends RTP) is proven against sipp in Interop (`media-timeout-bye`).
@Suite("Media timeout", .serialized)
struct MediaTimeoutTests {
    static func endings(_ delegate: RecordingDelegate) -> Int {
        delegate.events.withLock { $0.filter { $0.kind == .ended }.count }
    }

    @Test func flowingMediaAndHoldNeverTimeOut() async throws {
        let pair = try ProviderPair(
            aliceConfiguration: { $0.mediaTimeout = .milliseconds(700) },
            bobConfiguration: { $0.mediaTimeout = .milliseconds(700) })
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        try await pair.pause(.milliseconds(1500))
        #expect(pair.alice.call(with: alice)?.state == .connected)

        // Alice holds: Bob answers recvonly and sends nothing, for twice the timeout.
        try await pair.aliceController.setHeld(alice, true)
        try await pair.pause(.milliseconds(1600))
        #expect(pair.alice.call(with: alice)?.isOnHold == true)
        #expect(pair.alice.call(with: alice)?.state == .connected)
        #expect(pair.bob.call(with: bob)?.state == .connected)

        // Resumed, the wait starts again: media arrives within it.
        try await pair.aliceController.setHeld(alice, false)
        try await pair.pause(.milliseconds(1500))
        #expect(pair.alice.call(with: alice)?.state == .connected)
        #expect(Self.endings(pair.aliceDelegate) == 0)
        #expect(Self.endings(pair.bobDelegate) == 0)
        let received = try #require(pair.alice.call(with: alice)?.quality?.packetsReceived)
        #expect(received > 100)
    }
}
