import Foundation
import SIPTransport
import Switchboard
import SwitchboardTesting
import Testing

/// A header field's value in a raw message.
private func header(_ name: String, in message: String) -> String? {
    message.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
        .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
}

/// When the TCP connection an incoming call arrived on dies, the provider reports `reconnecting`,
/// re-establishes the session with a re-INVITE over a new connection, and reports `reconnected`.
@Suite("Reconnecting calls")
struct ReconnectTests {
    static let sdp =
        "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 17010 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n"

    @Test func aLostConnectionIsReestablishedByReINVITE() async throws {
        let pair = try ProviderPair(bobConfiguration: { $0.listeners = [.init(.tcp, "127.0.0.1:0")] })
        defer { pair.close() }
        let bobPort = try #require(
            pair.bob.listeners.first { $0.transport == .tcp }.flatMap {
                UInt16($0.address.split(separator: ":").last ?? "")
            })
        let world = try #require(pair.world)
        let listener = try ScriptedListener(world: world, host: "127.0.0.1")
        defer { listener.close() }
        let peerPort = listener.address.port
        let bob = try #require(SocketAddress(ip: "127.0.0.1", port: bobPort))
        let caller = try ScriptedConnection(world: world, from: "127.0.0.1", to: bob)
        let callID = "reconnect-\(UInt32.random(in: 0...UInt32.max))"
        caller.send(
            """
            INVITE sip:bob@127.0.0.1:\(bobPort);transport=tcp SIP/2.0\r
            Via: SIP/2.0/TCP 127.0.0.1:\(peerPort);branch=z9hG4bK-r1-\(callID)\r
            Max-Forwards: 70\r
            From: <sip:carol@127.0.0.1>;tag=c1\r
            To: <sip:bob@127.0.0.1>\r
            Call-ID: \(callID)\r
            CSeq: 1 INVITE\r
            Contact: <sip:carol@127.0.0.1:\(peerPort);transport=tcp>\r
            Content-Type: application/sdp\r
            Content-Length: \(Self.sdp.utf8.count)\r
            \r
            \(Self.sdp)
            """)
        let invite = try #require(await pair.bobDelegate.invite())
        try await pair.bobController.answerCall(invite.callUUID)
        var ok: String?
        while let message = caller.message(within: .seconds(3)) {
            if message.hasPrefix("SIP/2.0 200") {
                ok = message
                break
            }
        }
        let answer = try #require(ok)
        let to = try #require(header("To", in: answer))
        caller.send(
            """
            ACK sip:bob@127.0.0.1:\(bobPort);transport=tcp SIP/2.0\r
            Via: SIP/2.0/TCP 127.0.0.1:\(peerPort);branch=z9hG4bK-r2-\(callID)\r
            Max-Forwards: 70\r
            From: <sip:carol@127.0.0.1>;tag=c1\r
            To: \(to)\r
            Call-ID: \(callID)\r
            CSeq: 1 ACK\r
            Content-Length: 0\r
            \r

            """)
        _ = try #require(await pair.bobDelegate.connected(invite.callUUID))

        // The connection dies; bob reconnects to carol's Contact with a re-INVITE.
        caller.close()
        #expect(
            await pair.bobDelegate.wait(seconds: 3) { $0.kind == .reconnecting ? $0.callUUID : nil }
                == invite.callUUID)
        let fresh = try #require(listener.accept(within: .seconds(5)))
        defer { fresh.close() }
        let reinvite = try #require(fresh.message(within: .seconds(5)))
        #expect(reinvite.hasPrefix("INVITE sip:carol@127.0.0.1"))
        var reply = "SIP/2.0 200 OK\r\n"
        for name in ["Via", "From", "To", "Call-ID", "CSeq"] {
            reply += "\(name): \(header(name, in: reinvite) ?? "")\r\n"
        }
        reply += "Contact: <sip:carol@127.0.0.1:\(peerPort);transport=tcp>\r\n"
        reply += "Content-Type: application/sdp\r\nContent-Length: \(Self.sdp.utf8.count)\r\n\r\n\(Self.sdp)"
        fresh.send(reply)
        #expect(
            await pair.bobDelegate.wait(seconds: 3) { $0.kind == .reconnected ? $0.callUUID : nil }
                == invite.callUUID)
        let ack = fresh.message(within: .seconds(3))
        #expect(ack?.hasPrefix("ACK ") == true)
    }
}
