import DTLS
import Foundation
import Media
import SIPTransport
import SwitchboardTesting
import Synchronization
import Testing

@testable import Switchboard

/// A call's DTLS association is its RTP component's (RFC 5764 §4.1, with rtcp-mux the only one): DTLS records
/// arriving on the separate RTCP port (a peer without rtcp-mux starts a second handshake there, or a
/// stranger) never reach it. Before, a ClientHello there during the handshake was taken as the RTP client's
/// retransmission: the server's flight went to its sender, signed over the wrong client random.
@Suite("DTLS-SRTP and the RTCP port", .serialized)
struct DTLSComponentTests {
    @Test func aClientHelloOnTheRTCPPortNeverReachesTheCallsAssociation() async throws {
        let pair = try ICEPair(
            alice: {
                $0.srtp = .mandatory
                $0.srtpKeying = .dtls
                $0.mediaPorts = 40_000...40_001
            },
            bob: { $0.srtp = .optional })
        defer { pair.close() }
        pair.world.network.setConditions(LinkConditions(latency: .milliseconds(30)))
        let stranger = try ScriptedPeer(world: pair.world, host: "10.0.0.66", port: 4444)
        let client = try DTLSEngine(configuration: .init(role: .client, identity: try DTLSIdentity.generate()))
        var hello: [UInt8] = []
        for case .send(let bytes) in client.start(at: .zero) { hello = bytes }
        let rtcpPort = try #require(SocketAddress(ip: ICEPair.aliceHost, port: 40_001))
        // ClientHellos on Alice's RTCP port every 10 ms while the call sets up and its handshake runs.
        let uuid = try await pair.aliceController.startCall(to: Handle(type: .generic, value: pair.bobURI))
        var invite: CallInvite?
        for _ in 0..<100 where invite == nil {
            stranger.send(bytes: hello, to: rtcpPort)
            pair.world.advance(by: .milliseconds(10))
            invite = pair.bobDelegate.events.withLock { $0 }.lazy.compactMap(\.invite).first
        }
        let incoming = try #require(invite)
        try await pair.bobController.answerCall(incoming.callUUID)
        for _ in 0..<100 {
            stranger.send(bytes: hello, to: rtcpPort)
            pair.world.advance(by: .milliseconds(10))
        }
        let call = try #require(pair.connectedCall(pair.aliceDelegate, uuid))
        #expect(call.srtpKeying == .dtls)
        let toStranger = pair.world.network.records.filter {
            $0.source.host == ICEPair.aliceHost && $0.destination.host == "10.0.0.66"
        }
        #expect(toStranger.isEmpty)
        pair.world.advance(by: .seconds(2))
        #expect(pair.hearsBothWays)
    }
}
