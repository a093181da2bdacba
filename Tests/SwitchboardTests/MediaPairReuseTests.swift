import Foundation
import Media
import SIPTransport
import SwitchboardTesting
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

/// Pooled pairs on one engine, in virtual time: what waits on a pair when a new stream takes it is the ended
/// call's, and is dropped, not handed to the new stream (where a stale peer's RTP could latch it); and a pool
/// too small for a second of ended calls still lends its pairs.
@Suite("Media: pooled pairs on one engine")
struct PooledPairEngineTests {
    /// A media engine on 10.0.0.2 of a new virtual world, its loop the signalling one too.
    private static func engine(pooledPairs: Int) throws -> (VirtualWorld, MediaEngine) {
        let world = VirtualWorld()
        let environment = EngineEnvironment(
            loop: world.loop, network: world.network.host("10.0.0.2"),
            mediaClock: LoopMediaClock(loop: world.loop, wallOrigin: world.wallClockOrigin), deliversOnLoop: true)
        return (world, try MediaEngine(signalling: world.loop, environment: environment, pooledPairs: pooledPairs))
    }

    @Test func aDatagramWaitingOnAPooledPairNeverReachesTheNextStream() throws {
        let (world, engine) = try Self.engine(pooledPairs: 4)
        let loop = world.loop
        defer { engine.shutdown() }
        // One pair: the second stream can only have the first one's back.
        let ports: ClosedRange<UInt16> = 40_000...40_001
        func open() throws -> MediaStream {
            try loop.withLoop { () throws(TransportError) -> MediaStream in
                try engine.open(
                    host: "10.0.0.2", ports: ports, audio: CallAudio(), mediaTimeout: nil, events: MediaStreamEvents())
            }
        }
        let first = try open()
        world.advance(by: .milliseconds(20))
        loop.withLoop { engine.perform { first.close() } }
        world.advance(by: .milliseconds(20))
        #expect(engine.pooledPairCount == 1)

        // The old peer's packet comes while the host is too busy to read its sockets: it waits in the queue.
        let peer = try DatagramSocket(
            binding: try #require(SocketAddress(ip: "10.0.0.3", port: 5_000)), on: world.network.host("10.0.0.3"))
        defer { peer.close() }
        world.network.stall("10.0.0.2", for: .seconds(2))
        let rtp: [UInt8] =
            [0x80, 0x00, 0x00, 0x01, 0, 0, 0, 160, 0x12, 0x34, 0x56, 0x78] + [UInt8](repeating: 0xFF, count: 160)
        peer.send(rtp, to: try #require(SocketAddress(ip: "10.0.0.2", port: 40_000)))
        world.advance(by: .milliseconds(1_500))

        let second = try open()
        world.advance(by: .seconds(1))
        #expect(engine.reusedPairCount == 1)
        // The stall is over and the loop has offered the sockets again: nothing was left for the new stream.
        let statistics = loop.withLoop { second.reading { $0.statistics } }
        #expect(statistics.unconfigured == 0)
        #expect(statistics.demultiplexed.received.isEmpty)
        // What the peer sends now does reach it.
        peer.send(rtp, to: try #require(SocketAddress(ip: "10.0.0.2", port: 40_000)))
        world.advance(by: .milliseconds(20))
        #expect(loop.withLoop { second.reading { $0.statistics } }.unconfigured == 1)
        loop.withLoop { engine.perform { second.close() } }
        world.advance(by: .milliseconds(20))
    }

    /// Calls end faster than the pool holds a second of them (room for 2 pairs, a call every 50 ms): once
    /// full, the pool lends its oldest pair after the short rest, and the calls stop binding pairs of their own.
    @Test func aFullPoolKeepsLendingPairsAtARateAboveItsCapacityPerSecond() throws {
        let (world, engine) = try Self.engine(pooledPairs: 2)
        let loop = world.loop
        defer { engine.shutdown() }
        var live: [MediaStream] = []
        for _ in 0..<40 {
            let stream = try loop.withLoop { () throws(TransportError) -> MediaStream in
                try engine.open(
                    host: "10.0.0.2", ports: 40_000...40_011, audio: CallAudio(), mediaTimeout: nil,
                    events: MediaStreamEvents())
            }
            live.append(stream)
            // Each call lasts 100 ms.
            if live.count > 2 {
                let ended = live.removeFirst()
                loop.withLoop { engine.perform { ended.close() } }
            }
            world.advance(by: .milliseconds(50))
        }
        // The first calls bind; from the pool's first eviction on, calls take pooled pairs.
        #expect(engine.boundPairCount <= 8)
        #expect(engine.reusedPairCount >= 32)
        #expect(engine.boundPairCount + engine.reusedPairCount == 40)
        for stream in live { loop.withLoop { engine.perform { stream.close() } } }
        world.advance(by: .milliseconds(50))
    }
}
