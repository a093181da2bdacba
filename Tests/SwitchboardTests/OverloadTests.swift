import Foundation
import SIPTransport
import SwitchboardTesting
import Testing

@testable import Switchboard

/// Under overload (an INVITE waited in the socket queue longer than the backlog delay) the provider refuses
/// new calls with 503 and Retry-After (RFC 3261 §21.5.4) instead of taking them on late; once it has caught
/// up it takes calls again. The loop falling behind is a stall of the virtual host: what arrives meanwhile
/// is read late, stamped with how long it waited.
@Suite("CallProvider: overload shedding")
struct OverloadTests {
    private func request(_ method: String, callID: String, branch: String, peerPort: UInt16) -> String {
        let body =
            method == "INVITE"
            ? "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
                + "m=audio 6000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n" : ""
        let type = method == "INVITE" ? "Content-Type: application/sdp\r\n" : ""
        return
            "\(method) sip:bob@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:\(peerPort);rport;branch=\(branch)\r\n"
            + "Max-Forwards: 70\r\nTo: <sip:bob@127.0.0.1>\r\nFrom: <sip:alice@127.0.0.1>;tag=a1\r\n"
            + "Call-ID: \(callID)\r\nCSeq: 1 \(method)\r\nContact: <sip:alice@127.0.0.1:\(peerPort)>\r\n"
            + "\(type)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    /// The first response within 3 s (virtual) whose Call-ID is `callID`.
    private func response(to callID: String, from peer: ScriptedPeer) -> String? {
        for _ in 0..<8 {
            guard let text = peer.receive(within: .seconds(3)) else { return nil }
            if text.contains("Call-ID: \(callID)\r\n") { return text }
        }
        return nil
    }

    /// Bob's provider on 127.0.0.1:5060 in a new world, and a raw peer on 127.0.0.2.
    private static func setUp() throws -> (VirtualWorld, CallProvider, SocketAddress, ScriptedPeer) {
        let world = VirtualWorld()
        var configuration = CallProviderConfiguration(
            accounts: [Account(addressOfRecord: "sip:bob@127.0.0.1")], listeners: [.init(.udp, "127.0.0.1:5060")])
        configuration.unansweredTimeout = nil
        let provider = try world.makeProvider(configuration: configuration, host: "127.0.0.1")
        let bob = try #require(SocketAddress(ip: "127.0.0.1", port: 5060))
        let peer = try ScriptedPeer(world: world, host: "127.0.0.2")
        return (world, provider, bob, peer)
    }

    @Test func newCallsAreRefusedWhileTheLoopIsBehindItsInput() throws {
        let (world, provider, bob, peer) = try Self.setUp()
        defer {
            provider.invalidate(timeout: .seconds(2))
            peer.close()
        }

        // The loop falls 800 ms behind with an INVITE queued from the start: it waited longer than the
        // backlog delay (500 ms).
        world.network.stall("127.0.0.1", for: .milliseconds(800))
        peer.send(request("INVITE", callID: "shed", branch: "z9hG4bKshed", peerPort: peer.address.port), to: bob)
        let shed = try #require(response(to: "shed", from: peer))
        #expect(shed.hasPrefix("SIP/2.0 503"))
        #expect(shed.contains("\r\nRetry-After: 1\r\n"))
        #expect(!provider.calls.contains { $0.callID == "shed" })

        // Caught up: the next INVITE becomes a call.
        let callsBefore = provider.calls.count
        peer.send(request("INVITE", callID: "taken", branch: "z9hG4bKtaken", peerPort: peer.address.port), to: bob)
        let taken = try #require(response(to: "taken", from: peer))
        #expect(!taken.hasPrefix("SIP/2.0 503"))
        #expect(provider.calls.count == callsBefore + 1)
    }

    @Test func aStallShorterThanTheBacklogDelaySheddsNothing() throws {
        let (world, provider, bob, peer) = try Self.setUp()
        defer {
            provider.invalidate(timeout: .seconds(2))
            peer.close()
        }
        world.network.stall("127.0.0.1", for: .milliseconds(400))
        peer.send(request("INVITE", callID: "late", branch: "z9hG4bKlate", peerPort: peer.address.port), to: bob)
        let late = try #require(response(to: "late", from: peer))
        #expect(!late.hasPrefix("SIP/2.0 503"))
        #expect(provider.calls.contains { $0.callID == "late" })
    }
}
