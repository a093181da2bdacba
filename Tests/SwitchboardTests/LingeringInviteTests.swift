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

    /// A response to `request` with To tag `tag` (unless it has one), Contact `contact`, and `body` as SDP.
    private static func reply(
        _ status: String, to request: String, body: String? = nil, tag: String = "b1",
        contact: String = "sip:bob@127.0.0.2:5070"
    ) -> String {
        SIPText(request).response(status, tag: tag, contact: contact, sdp: body)
    }

    /// `message` without its Via lines (each ACK of a 2xx goes with a Via of its own).
    private static func withoutVia(_ message: String) -> String {
        message.split(separator: "\r\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("Via:") }
            .joined(separator: "\r\n")
    }

    /// Alice's provider (T1 100 ms) and a raw callee on 127.0.0.2:5070 whose call Alice placed, the callee
    /// answered (tag `b1`) and Alice ended: the BYE is answered, the INVITE's transaction Accepted.
    private final class EndedCall {
        let world = VirtualWorld()
        let delegate: RecordingDelegate
        let provider: CallProvider
        let peer: ScriptedPeer
        let address: SocketAddress
        var invite = ""
        var ok = ""
        var ack = ""

        init() throws {
            delegate = RecordingDelegate(world: world)
            var configuration = CallProviderConfiguration(
                accounts: [Account(addressOfRecord: "sip:alice@127.0.0.1")],
                listeners: [.init(.udp, "127.0.0.1:5060")])
            configuration.t1 = .milliseconds(100)
            provider = try world.makeProvider(configuration: configuration, host: "127.0.0.1")
            provider.setDelegate(delegate, queue: nil)
            peer = try ScriptedPeer(world: world, host: "127.0.0.2", port: 5070)
            address = try #require(SocketAddress(ip: "127.0.0.1", port: 5060))
            let uuid = UUID()
            let controller = CallController(provider: provider)
            let handle = Handle(type: .generic, value: "sip:bob@127.0.0.2:5070")
            controller.request(CallTransaction(action: StartCallAction(call: uuid, handle: handle))) { _ in }
            invite = try #require(request("INVITE", within: .seconds(2)))
            ok = LingeringInviteTests.reply("200 OK", to: invite, body: LingeringInviteTests.answer)
            peer.send(ok, to: address)
            ack = try #require(request("ACK"))
            controller.request(CallTransaction(action: EndCallAction(call: uuid))) { _ in }
            let bye = try #require(request("BYE"))
            peer.send(LingeringInviteTests.reply("200 OK", to: bye), to: address)
            world.advance(by: .milliseconds(10))
        }

        /// The next request of `method` the callee receives within `limit`.
        func request(_ method: String, within limit: Duration = .seconds(1)) -> String? {
            for _ in 0..<32 {
                guard let text = peer.receive(within: limit) else { return nil }
                if text.hasPrefix("\(method) ") { return text }
            }
            return nil
        }

        func close() {
            provider.invalidate(timeout: .seconds(2))
            peer.close()
        }
    }

    @Test func theCallGoesAtTheBYEsAnswerAndA2xxRetransmissionIsStillACKed() throws {
        let call = try EndedCall()
        defer { call.close() }
        let provider = call.provider
        // The INVITE's transaction is Accepted for 64*T1 = 6.4 s; the call and its session are gone already.
        #expect(provider.statistics.sessions == 0)
        #expect(provider.calls.isEmpty)
        #expect(provider.statistics.calls == 0)
        #expect(provider.statistics.transactions > 0)

        // The callee did not hear the ACK and sends its 2xx again: the same ACK goes.
        call.world.advance(by: .seconds(2))
        call.peer.send(call.ok, to: call.address)
        let again = try #require(call.request("ACK"))
        #expect(Self.withoutVia(again) == Self.withoutVia(call.ack))
        #expect(provider.statistics.sessions == 0)

        // Timer M: nothing of the call is left.
        call.world.advance(by: .seconds(6))
        #expect(provider.holdsNoCall)
        #expect(provider.statistics.transactions == 0)
        call.peer.send(call.ok, to: call.address)
        #expect(call.request("ACK", within: .milliseconds(500)) == nil)
    }

    /// A proxy forked the INVITE and a second callee answers after the call ended: its 2xx gets an ACK and a
    /// BYE in its own dialog, a retransmission of it the same ACK and no second BYE, and no call comes back.
    @Test func a2xxFromAnotherForkAfterTheEndIsACKedAndEnded() throws {
        let call = try EndedCall()
        defer { call.close() }
        call.world.advance(by: .seconds(1))
        let fork = Self.reply(
            "200 OK", to: call.invite, body: Self.answer, tag: "c1", contact: "sip:carol@127.0.0.2:5070")
        call.peer.send(fork, to: call.address)
        let ack = try #require(call.request("ACK"))
        let bye = try #require(call.request("BYE"))
        for request in [ack, bye] {
            #expect(request.hasPrefix("\(request.prefix(3)) sip:carol@127.0.0.2:5070 SIP/2.0\r\n"))
            #expect(request.contains(";tag=c1\r\n"))
        }
        // The ACK takes the INVITE's CSeq, the BYE the next one.
        let cseq = try #require(
            call.invite.split(separator: "\r\n").first { $0.hasPrefix("CSeq: ") }?.split(separator: " ").dropFirst()
                .first.flatMap { UInt32($0) })
        #expect(ack.contains("CSeq: \(cseq) ACK\r\n") && bye.contains("CSeq: \(cseq + 1) BYE\r\n"))
        #expect(!ack.contains("application/sdp"))
        call.peer.send(Self.reply("200 OK", to: bye, tag: "c1"), to: call.address)

        call.peer.send(fork, to: call.address)
        let again = try #require(call.request("ACK"))
        #expect(Self.withoutVia(again) == Self.withoutVia(ack))
        #expect(call.request("BYE", within: .milliseconds(500)) == nil)
        // The first callee's ACK is still its own.
        call.peer.send(call.ok, to: call.address)
        #expect(Self.withoutVia(try #require(call.request("ACK"))) == Self.withoutVia(call.ack))
        #expect(call.provider.statistics.sessions == 0 && call.provider.calls.isEmpty)
    }
}
