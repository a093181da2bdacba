import SIPTransport
import SwitchboardTesting
import Testing

@testable import Switchboard

/// What an overload leaves behind must not stay (issue 20): an INVITE refused at the call limit takes no
/// session or media, a shortage of RTP ports refuses with 503 instead of answering with port 0, and the
/// pairs of ended calls go back to the system once they have waited `PairPool.idleLimit`. In virtual time,
/// with a raw caller that never ACKs and never comes back.
@Suite("CallProvider: what abandoned calls leave behind")
struct AbandonedCallTests {
    private static func invite(_ callID: String, peerPort: UInt16) -> String {
        let body =
            "v=0\r\no=- 1 1 IN IP4 127.0.0.2\r\ns=-\r\nc=IN IP4 127.0.0.2\r\nt=0 0\r\n"
            + "m=audio 6000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n"
        return head("INVITE", callID, peerPort: peerPort)
            + "Content-Type: application/sdp\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    private static func cancel(_ callID: String, peerPort: UInt16) -> String {
        head("CANCEL", callID, peerPort: peerPort) + "Content-Length: 0\r\n\r\n"
    }

    private static func head(_ method: String, _ callID: String, peerPort: UInt16) -> String {
        "\(method) sip:bob@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.2:\(peerPort);branch=z9hG4bK-\(callID)\r\n"
            + "Max-Forwards: 70\r\nTo: <sip:bob@127.0.0.1>\r\nFrom: <sip:alice@127.0.0.2>;tag=a-\(callID)\r\n"
            + "Call-ID: \(callID)\r\nCSeq: 1 \(method)\r\nContact: <sip:alice@127.0.0.2:\(peerPort)>\r\n"
    }

    /// The first response within 3 s (virtual) to `method` of `callID` that is not 100 Trying.
    private static func response(to callID: String, _ method: String = "INVITE", from peer: ScriptedPeer) -> String? {
        for _ in 0..<12 {
            guard let text = peer.receive(within: .seconds(3)) else { return nil }
            if text.contains("Call-ID: \(callID)\r\n"), text.contains(" \(method)\r\n"),
                !text.hasPrefix("SIP/2.0 100")
            {
                return text
            }
        }
        return nil
    }

    private struct Bob {
        let world: VirtualWorld
        let provider: CallProvider
        let address: SocketAddress
        let peer: ScriptedPeer

        let delegate: RecordingDelegate

        init(_ configure: (inout CallProviderConfiguration) -> Void) throws {
            world = VirtualWorld()
            delegate = RecordingDelegate(world: world)
            var configuration = CallProviderConfiguration(
                accounts: [Account(addressOfRecord: "sip:bob@127.0.0.1")], listeners: [.init(.udp, "127.0.0.1:5060")])
            configuration.unansweredTimeout = nil
            configure(&configuration)
            provider = try world.makeProvider(configuration: configuration, host: "127.0.0.1")
            provider.setDelegate(delegate, queue: nil)
            address = try #require(SocketAddress(ip: "127.0.0.1", port: 5060))
            peer = try ScriptedPeer(world: world, host: "127.0.0.2")
        }

        var openStreams: Int { world.loop.withLoop { provider.core.calls.media.openStreamCount } }
        var pooledPairs: Int { provider.engine.media.pooledPairCount }

        /// Answers the ringing call `callID` as the app would.
        func answer(_ callID: String) throws {
            let call = try #require(provider.calls.first { $0.callID == callID })
            CallController(provider: provider).request(CallTransaction(action: AnswerCallAction(call: call.uuid))) {
                _ in
            }
        }

        /// Nothing of any call is left (`CallProvider.holdsNoCall`).
        var holdsNothing: Bool { provider.holdsNoCall }

        func close() {
            provider.invalidate(timeout: .seconds(2))
            peer.close()
        }
    }

    @Test func anInviteRefusedAtTheCallLimitTakesNoSessionAndNoMedia() throws {
        let bob = try Bob { $0.maximumCalls = 1 }
        defer { bob.close() }
        bob.peer.send(Self.invite("first", peerPort: bob.peer.address.port), to: bob.address)
        let ringing = try #require(Self.response(to: "first", from: bob.peer))
        #expect(ringing.hasPrefix("SIP/2.0 180"))
        #expect(bob.openStreams == 1)

        // Callers that vanish after their 486 (no ACK): nothing of theirs is kept while Timer H runs.
        for n in 1...5 {
            bob.peer.send(Self.invite("over-\(n)", peerPort: bob.peer.address.port), to: bob.address)
            let refused = try #require(Self.response(to: "over-\(n)", from: bob.peer))
            #expect(refused.hasPrefix("SIP/2.0 486"))
        }
        #expect(bob.openStreams == 1)
        #expect(bob.provider.calls.count == 1)
    }

    @Test func noFreePortPairIsA503WithRetryAfterAndThePortComesBack() throws {
        let bob = try Bob {
            $0.maximumCalls = 10
            $0.mediaPorts = 40_000...40_001
        }
        defer { bob.close() }
        let port = bob.peer.address.port
        bob.peer.send(Self.invite("holder", peerPort: port), to: bob.address)
        #expect(try #require(Self.response(to: "holder", from: bob.peer)).hasPrefix("SIP/2.0 180"))

        // The one pair is taken: the next caller is told to come back, and never becomes a call.
        bob.peer.send(Self.invite("short", peerPort: port), to: bob.address)
        let refused = try #require(Self.response(to: "short", from: bob.peer))
        #expect(refused.hasPrefix("SIP/2.0 503"))
        #expect(refused.contains("\r\nRetry-After: 1\r\n"))
        #expect(!bob.provider.calls.contains { $0.callID == "short" })
        #expect(bob.openStreams == 1)

        // The holder cancels: its pair rests in the pool, then serves the next call.
        bob.peer.send(Self.cancel("holder", peerPort: port), to: bob.address)
        #expect(try #require(Self.response(to: "holder", "CANCEL", from: bob.peer)).hasPrefix("SIP/2.0 200"))
        bob.world.advance(by: .seconds(2))
        #expect(bob.openStreams == 0)
        #expect(bob.pooledPairs == 1)
        bob.peer.send(Self.invite("next", peerPort: port), to: bob.address)
        let next = try #require(Self.response(to: "next", from: bob.peer))
        #expect(next.hasPrefix("SIP/2.0 180"))
        #expect(bob.openStreams == 1)
        #expect(bob.pooledPairs == 0)
    }

    /// Calls Bob as `callID`, waits for the 180, and cancels the call.
    private static func ringAndCancel(_ callID: String, at bob: Bob) throws {
        let port = bob.peer.address.port
        bob.peer.send(invite(callID, peerPort: port), to: bob.address)
        #expect(try #require(response(to: callID, from: bob.peer)).hasPrefix("SIP/2.0 180"))
        bob.peer.send(cancel(callID, peerPort: port), to: bob.address)
        _ = try #require(response(to: callID, "CANCEL", from: bob.peer))
    }

    @Test func aPooledPairIsClosedOnceItWaitedTheIdleLimit() throws {
        let bob = try Bob { $0.mediaPorts = 40_000...40_001 }
        defer { bob.close() }
        try Self.ringAndCancel("gone", at: bob)
        bob.world.advance(by: .seconds(1))
        #expect(bob.pooledPairs == 1)

        bob.world.advance(by: PairPool.idleLimit)
        #expect(bob.pooledPairs == 0)
        // Its ports are the system's again.
        let rtp = try #require(SocketAddress(ip: "127.0.0.1", port: 40_000))
        let socket = try bob.world.network.makeDatagramSocket(binding: rtp)
        socket.close()
    }

    @Test func aRangeHeldByThePoolAndLiveCallsGivesPooledPairsBack() throws {
        // Four pairs: the pool may keep two (half the range), the live calls take the rest.
        let bob = try Bob { $0.mediaPorts = 40_000...40_007 }
        defer { bob.close() }
        let port = bob.peer.address.port
        let begun = bob.world.loop.elapsedTime
        try Self.ringAndCancel("first", at: bob)
        try Self.ringAndCancel("second", at: bob)
        for callID in ["third", "fourth"] {
            bob.peer.send(Self.invite(callID, peerPort: port), to: bob.address)
            #expect(try #require(Self.response(to: callID, from: bob.peer)).hasPrefix("SIP/2.0 180"))
        }
        #expect(bob.pooledPairs == 2 && bob.openStreams == 2)

        // Every port is bound and no pooled pair has rested: this call is refused, and the pool gives its
        // pairs back rather than keep refusing until they have rested.
        bob.peer.send(Self.invite("fifth", peerPort: port), to: bob.address)
        #expect(try #require(Self.response(to: "fifth", from: bob.peer)).hasPrefix("SIP/2.0 503"))
        #expect(bob.pooledPairs == 0)
        bob.peer.send(Self.invite("sixth", peerPort: port), to: bob.address)
        #expect(try #require(Self.response(to: "sixth", from: bob.peer)).hasPrefix("SIP/2.0 180"))
        #expect(bob.openStreams == 3)
        // All within the rest: the ports came back by eviction, not by the pool's own reuse.
        #expect(bob.world.loop.elapsedTime - begun < PairPool.reuseDelay)
    }

    @Test func aRestedPooledPairIsReusedAndCountedAsSuch() throws {
        let bob = try Bob { $0.mediaPorts = 40_000...40_003 }
        defer { bob.close() }
        let port = bob.peer.address.port
        try Self.ringAndCancel("first", at: bob)
        // Too soon: the pair has not rested, so the next call binds the other one.
        bob.peer.send(Self.invite("second", peerPort: port), to: bob.address)
        #expect(try #require(Self.response(to: "second", from: bob.peer)).hasPrefix("SIP/2.0 180"))
        var figures = bob.provider.statistics
        #expect(figures.reusedPortPairs == 0 && figures.boundPortPairs == 2)

        bob.world.advance(by: PairPool.reuseDelay)
        bob.peer.send(Self.invite("third", peerPort: port), to: bob.address)
        #expect(try #require(Self.response(to: "third", from: bob.peer)).hasPrefix("SIP/2.0 180"))
        figures = bob.provider.statistics
        #expect(figures.reusedPortPairs == 1 && figures.boundPortPairs == 2)
        #expect(figures.pooledPortPairs == 0 && figures.mediaStreams == 2)
    }

    /// The first request `method` of `callID` that Bob sends within `limit` (virtual), skipping the rest.
    private static func request(
        _ method: String, of callID: String, from peer: ScriptedPeer, within limit: Duration
    ) -> String? {
        for _ in 0..<64 {
            guard let text = peer.receive(within: limit) else { return nil }
            if text.hasPrefix("\(method) "), text.contains("Call-ID: \(callID)\r\n") { return text }
        }
        return nil
    }

    @Test func anAnswerNeverAcknowledgedIsHungUpAfter64T1AndLeavesNothing() throws {
        let bob = try Bob { _ in }
        defer { bob.close() }
        let port = bob.peer.address.port
        bob.peer.send(Self.invite("no-ack", peerPort: port), to: bob.address)
        #expect(try #require(Self.response(to: "no-ack", from: bob.peer)).hasPrefix("SIP/2.0 180"))
        let answeredAt = bob.world.loop.now
        try bob.answer("no-ack")
        #expect(try #require(Self.response(to: "no-ack", from: bob.peer)).hasPrefix("SIP/2.0 200"))
        let during = bob.provider.statistics
        #expect(during.liveCalls == 1 && during.calls == 1 && during.sessions == 1 && during.mediaStreams == 1)
        #expect(during.transactions == 1)

        // RFC 3261 §13.3.1.4: the 2xx is resent until 64*T1 (32 s) passes without an ACK, then the UAS ends
        // the session with a BYE.
        let bye = try #require(Self.request("BYE", of: "no-ack", from: bob.peer, within: .seconds(40)))
        let waited = bob.world.loop.now - answeredAt
        #expect(waited >= .seconds(32) && waited < .seconds(33))
        #expect(bye.contains("CSeq: "))
        #expect(bob.provider.statistics.liveCalls == 0)
        #expect(bob.openStreams == 0)

        // The caller never answers the BYE either: its transaction times out (Timer F, 32 s), and then
        // nothing of the call is left.
        bob.world.advance(by: .seconds(40))
        #expect(bob.holdsNothing)
        bob.world.advance(by: PairPool.idleLimit)
        #expect(bob.pooledPairs == 0)
    }

    @Test func aCallerGoneAfterItsAckIsEndedByTheMediaTimeoutAndLeavesNothing() throws {
        let bob = try Bob { $0.mediaTimeout = .seconds(30) }
        defer { bob.close() }
        let port = bob.peer.address.port
        bob.peer.send(Self.invite("gone-after-ack", peerPort: port), to: bob.address)
        _ = try #require(Self.response(to: "gone-after-ack", from: bob.peer))
        try bob.answer("gone-after-ack")
        let ok = try #require(Self.response(to: "gone-after-ack", from: bob.peer))
        #expect(ok.hasPrefix("SIP/2.0 200"))
        let to = try #require(ok.split(separator: "\r\n").first { $0.hasPrefix("To: ") })
        let ack =
            "ACK sip:bob@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.2:\(port);branch=z9hG4bK-ack\r\n"
            + "Max-Forwards: 70\r\n\(to)\r\nFrom: <sip:alice@127.0.0.2>;tag=a-gone-after-ack\r\n"
            + "Call-ID: gone-after-ack\r\nCSeq: 1 ACK\r\nContent-Length: 0\r\n\r\n"
        bob.peer.send(ack, to: bob.address)
        let acknowledgedAt = bob.world.loop.now

        // No RTP ever comes: the media timeout ends the call with a BYE 30 s on.
        _ = try #require(Self.request("BYE", of: "gone-after-ack", from: bob.peer, within: .seconds(40)))
        let waited = bob.world.loop.now - acknowledgedAt
        #expect(waited >= .seconds(30) && waited < .seconds(32))
        bob.world.advance(by: .seconds(40))
        #expect(bob.holdsNothing)
    }

    @Test func signallingOnlyAnswersTheOfferWithoutOpeningMedia() throws {
        let bob = try Bob { $0.mediaMode = .signallingOnly }
        defer { bob.close() }
        bob.peer.send(Self.invite("no-media", peerPort: bob.peer.address.port), to: bob.address)
        _ = try #require(Self.response(to: "no-media", from: bob.peer))
        try bob.answer("no-media")
        let ok = try #require(Self.response(to: "no-media", from: bob.peer))
        #expect(ok.hasPrefix("SIP/2.0 200"))
        #expect(ok.contains("\r\nm=audio 9 RTP/AVP 0"))
        #expect(bob.provider.statistics.mediaStreams == 0)
        #expect(bob.provider.statistics.liveCalls == 1)
        #expect(bob.pooledPairs == 0)
    }
}
