import SIPTransport
import SwitchboardTesting
import Testing

@testable import Switchboard

/// An answered INVITE's server transaction stays in RFC 6026's Accepted state for 64*T1, absorbing the
/// INVITE's retransmissions; once it has terminated, the call keeps nothing of it filed (issue 17). In
/// virtual time, with a raw caller.
@Suite("CallProvider: the INVITE transaction of an answered call")
struct AcceptedInviteTests {
    private static let callID = "accepted"

    private static func invite(peerPort: UInt16) -> String {
        let body =
            "v=0\r\no=- 1 1 IN IP4 127.0.0.2\r\ns=-\r\nc=IN IP4 127.0.0.2\r\nt=0 0\r\n"
            + "m=audio 6000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n"
        return head("INVITE", to: "<sip:bob@127.0.0.1>", peerPort: peerPort)
            + "Content-Type: application/sdp\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    private static func head(_ method: String, to: String, peerPort: UInt16) -> String {
        "\(method) sip:bob@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.2:\(peerPort);branch=z9hG4bK-\(callID)\r\n"
            + "Max-Forwards: 70\r\nTo: \(to)\r\nFrom: <sip:alice@127.0.0.2>;tag=a-\(callID)\r\n"
            + "Call-ID: \(callID)\r\nCSeq: 1 \(method)\r\nContact: <sip:alice@127.0.0.2:\(peerPort)>\r\n"
    }

    /// The first message within `limit` (virtual) that is not a 100 Trying.
    private static func next(from peer: ScriptedPeer, within limit: Duration = .seconds(3)) -> String? {
        for _ in 0..<12 {
            guard let text = peer.receive(within: limit) else { return nil }
            if !text.hasPrefix("SIP/2.0 100") { return text }
        }
        return nil
    }

    /// The value of header field `name` in `message`.
    private static func field(_ name: String, of message: String) -> String? {
        message.split(separator: "\r\n").first { $0.hasPrefix("\(name): ") }.map {
            String($0.dropFirst(name.count + 2))
        }
    }

    @Test func aRetransmittedInviteIsAbsorbedThenTheTransactionIsForgotten() throws {
        let world = VirtualWorld()
        let delegate = RecordingDelegate(world: world)
        var configuration = CallProviderConfiguration(
            accounts: [Account(addressOfRecord: "sip:bob@127.0.0.1")], listeners: [.init(.udp, "127.0.0.1:5060")])
        configuration.unansweredTimeout = nil
        configuration.t1 = .milliseconds(100)
        let provider = try world.makeProvider(configuration: configuration, host: "127.0.0.1")
        provider.setDelegate(delegate, queue: nil)
        let address = try #require(SocketAddress(ip: "127.0.0.1", port: 5060))
        let peer = try ScriptedPeer(world: world, host: "127.0.0.2")
        defer {
            provider.invalidate(timeout: .seconds(2))
            peer.close()
        }
        let port = peer.address.port
        var filed: Int { world.loop.withLoop { provider.core.calls.sessions.filedServerTransactionCount } }

        peer.send(Self.invite(peerPort: port), to: address)
        #expect(try #require(Self.next(from: peer)).hasPrefix("SIP/2.0 180"))
        let call = try #require(provider.calls.first { $0.callID == Self.callID })
        CallController(provider: provider).request(CallTransaction(action: AnswerCallAction(call: call.uuid))) { _ in }
        let ok = try #require(Self.next(from: peer))
        #expect(ok.hasPrefix("SIP/2.0 200"))
        let to = try #require(Self.field("To", of: ok))
        peer.send(Self.head("ACK", to: to, peerPort: port) + "Content-Length: 0\r\n\r\n", to: address)
        // The CANCEL's and the failures' look-ups hold the live transaction.
        #expect(filed == 2)

        // Accepted (64*T1 = 6.4 s): the INVITE sent again is absorbed, neither answered nor a new call.
        world.advance(by: .seconds(1))
        peer.send(Self.invite(peerPort: port), to: address)
        #expect(Self.next(from: peer, within: .seconds(1)) == nil)
        #expect(provider.calls.count == 1)
        #expect(filed == 2)

        // Terminated: the call keeps nothing of it, and goes on.
        world.advance(by: .seconds(6))
        #expect(filed == 0)
        #expect(provider.calls.count == 1)
        #expect(provider.statistics.transactions == 0)
    }
}
