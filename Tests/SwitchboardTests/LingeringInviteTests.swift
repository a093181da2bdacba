import Foundation
import SIPTransport
import SwitchboardTesting
import Testing

@testable import Switchboard

/// An ended outgoing call must not keep its session and call for the 64*T1 its INVITE client transaction stays
/// in RFC 6026's Accepted state: the call goes once the BYE is answered, and a retransmission of the 2xx that
/// reaches the transaction after that still gets the same ACK (RFC 3261 §13.2.2.4; issue 17). In virtual
/// time, against a raw callee.
@Suite("CallProvider: the Accepted INVITE of an ended outgoing call")
struct LingeringInviteTests {
    private static let answer =
        "v=0\r\no=- 1 1 IN IP4 127.0.0.2\r\ns=-\r\nc=IN IP4 127.0.0.2\r\nt=0 0\r\n"
        + "m=audio 6000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n"

    /// A response to `request` with its Via, From, Call-ID and CSeq, To tag `b1`, and `body` as SDP.
    private static func reply(_ status: String, to request: String, body: String = "") -> String {
        var lines = ["SIP/2.0 \(status)"]
        for line in request.split(separator: "\r\n", omittingEmptySubsequences: false) {
            if line.isEmpty { break }
            if ["Via:", "From:", "Call-ID:", "CSeq:"].contains(where: { line.hasPrefix($0) }) {
                lines.append(String(line))
            } else if line.hasPrefix("To:") {
                lines.append(line.contains(";tag=") ? String(line) : "\(line);tag=b1")
            }
        }
        lines.append("Contact: <sip:bob@127.0.0.2:5070>")
        if !body.isEmpty { lines.append("Content-Type: application/sdp") }
        return lines.joined(separator: "\r\n") + "\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    /// `message` without its Via lines (each ACK of a 2xx goes with a Via of its own).
    private static func withoutVia(_ message: String) -> String {
        message.split(separator: "\r\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("Via:") }
            .joined(separator: "\r\n")
    }

    @Test func theCallGoesAtTheBYEsAnswerAndA2xxRetransmissionIsStillACKed() throws {
        let world = VirtualWorld()
        let delegate = RecordingDelegate(world: world)
        var configuration = CallProviderConfiguration(
            accounts: [Account(addressOfRecord: "sip:alice@127.0.0.1")], listeners: [.init(.udp, "127.0.0.1:5060")])
        configuration.t1 = .milliseconds(100)
        let provider = try world.makeProvider(configuration: configuration, host: "127.0.0.1")
        provider.setDelegate(delegate, queue: nil)
        let peer = try ScriptedPeer(world: world, host: "127.0.0.2", port: 5070)
        let address = try #require(SocketAddress(ip: "127.0.0.1", port: 5060))
        defer {
            provider.invalidate(timeout: .seconds(2))
            peer.close()
        }
        func request(_ method: String, within limit: Duration = .seconds(1)) -> String? {
            for _ in 0..<32 {
                guard let text = peer.receive(within: limit) else { return nil }
                if text.hasPrefix("\(method) ") { return text }
            }
            return nil
        }
        let uuid = UUID()
        let controller = CallController(provider: provider)
        let handle = Handle(type: .generic, value: "sip:bob@127.0.0.2:5070")
        controller.request(CallTransaction(action: StartCallAction(call: uuid, handle: handle))) { _ in }
        let invite = try #require(request("INVITE", within: .seconds(2)))
        let ok = Self.reply("200 OK", to: invite, body: Self.answer)
        peer.send(ok, to: address)
        let ack = try #require(request("ACK"))

        controller.request(CallTransaction(action: EndCallAction(call: uuid))) { _ in }
        let bye = try #require(request("BYE"))
        peer.send(Self.reply("200 OK", to: bye), to: address)
        world.advance(by: .milliseconds(10))
        // The INVITE's transaction is Accepted for 64*T1 = 6.4 s; the call and its session are gone already.
        #expect(provider.statistics.sessions == 0)
        #expect(provider.calls.isEmpty)
        #expect(provider.statistics.calls == 0)
        #expect(provider.statistics.transactions > 0)

        // The callee did not hear the ACK and sends its 2xx again: the same ACK goes.
        world.advance(by: .seconds(2))
        peer.send(ok, to: address)
        let again = try #require(request("ACK"))
        #expect(Self.withoutVia(again) == Self.withoutVia(ack))
        #expect(provider.statistics.sessions == 0)

        // Timer M: nothing of the call is left.
        world.advance(by: .seconds(6))
        #expect(provider.holdsNoCall)
        #expect(provider.statistics.transactions == 0)
        peer.send(ok, to: address)
        #expect(request("ACK", within: .milliseconds(500)) == nil)
    }
}
