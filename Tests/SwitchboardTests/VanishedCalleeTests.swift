import Foundation
import SIPTransport
import SwitchboardTesting
import Synchronization
import Testing

@testable import Switchboard

/// A far end that sends a provisional response and then vanishes (a load target that stopped, a crashed
/// PBX) must not leave the caller's call, session or INVITE transaction alive for ever: the call is
/// cancelled after `outgoingAnswerTimeout`, and a CANCEL nobody answers gives the INVITE up 64*T1 later
/// (RFC 3261 §9.1). In virtual time, against a raw peer that never sends a final response.
@Suite("CallProvider: a callee that vanishes after ringing")
struct VanishedCalleeTests {
    private struct Alice {
        let world: VirtualWorld
        let provider: CallProvider
        let peer: ScriptedPeer
        let delegate: RecordingDelegate
        let address: SocketAddress

        init(_ configure: (inout CallProviderConfiguration) -> Void = { _ in }) throws {
            world = VirtualWorld()
            delegate = RecordingDelegate(world: world)
            var configuration = CallProviderConfiguration(
                accounts: [Account(addressOfRecord: "sip:alice@127.0.0.1")], listeners: [.init(.udp, "127.0.0.1:5060")])
            configure(&configuration)
            provider = try world.makeProvider(configuration: configuration, host: "127.0.0.1")
            provider.setDelegate(delegate, queue: nil)
            peer = try ScriptedPeer(world: world, host: "127.0.0.2", port: 5070)
            address = try #require(SocketAddress(ip: "127.0.0.1", port: 5060))
        }

        /// Places a call to the peer and returns its UUID and the INVITE the peer received.
        func call() throws -> (UUID, String) {
            let uuid = UUID()
            let handle = Handle(type: .generic, value: "sip:bob@127.0.0.2:5070")
            CallController(provider: provider).request(
                CallTransaction(action: StartCallAction(call: uuid, handle: handle))
            ) {
                _ in
            }
            return (uuid, try #require(request("INVITE", within: .seconds(2))))
        }

        /// The next request `method` the peer receives within `limit` (virtual), skipping others.
        func request(_ method: String, within limit: Duration) -> String? {
            for _ in 0..<32 {
                guard let text = peer.receive(within: limit) else { return nil }
                if text.hasPrefix("\(method) ") { return text }
            }
            return nil
        }

        func end(_ uuid: UUID) {
            CallController(provider: provider).request(CallTransaction(action: EndCallAction(call: uuid))) { _ in }
        }

        func endDetails(_ uuid: UUID) -> CallEndDetails? {
            delegate.events.withLock { $0 }.lazy.compactMap { $0.callUUID == uuid ? $0.endDetails : nil }.first
        }

        /// Nothing of any call is left (`CallProvider.holdsNoCall`).
        var holdsNothing: Bool { provider.holdsNoCall }

        func close() {
            provider.invalidate(timeout: .seconds(2))
            peer.close()
        }
    }

    /// A response to `request` with its Via, From, Call-ID and CSeq; a To tag unless `tag` is nil.
    private static func reply(_ status: String, to request: String, tag: String? = "b1") -> String {
        SIPText(request).response(status, tag: tag, contact: "sip:bob@127.0.0.2:5070")
    }

    @Test(arguments: ["100 Trying", "180 Ringing"])
    func aCallThatNeverGetsAnAnswerIsCancelledAtTheAnswerTimeoutAndLeavesNothing(_ provisional: String) throws {
        let alice = try Alice { $0.outgoingAnswerTimeout = .seconds(60) }
        defer { alice.close() }
        let startedAt = alice.world.loop.now
        let (uuid, invite) = try alice.call()
        alice.peer.send(
            Self.reply(provisional, to: invite, tag: provisional.hasPrefix("100") ? nil : "b1"), to: alice.address)

        let cancel = try #require(alice.request("CANCEL", within: .seconds(90)))
        let waited = alice.world.loop.now - startedAt
        #expect(waited >= .seconds(60) && waited < .seconds(61))
        // The CANCEL is the INVITE's (§9.1): the same Call-ID.
        let callID = try #require(invite.split(separator: "\r\n").first { $0.hasPrefix("Call-ID:") })
        #expect(cancel.contains("\r\n\(callID)\r\n"))
        #expect(cancel.contains(" CANCEL\r\n"))
        let details = try #require(alice.endDetails(uuid))
        #expect(details.reason == .unanswered)
        #expect(alice.provider.statistics.liveCalls == 0)

        // Neither the CANCEL nor the INVITE is ever answered: 64*T1 after the CANCEL the INVITE is given up.
        alice.world.advance(by: .seconds(31))
        #expect(alice.provider.statistics.sessions == 1)
        alice.world.advance(by: .seconds(2))
        #expect(alice.holdsNothing)
    }

    @Test func aCallerThatHangsUpWhileAVanishedCalleeRingsKeepsNothingAfter64T1() throws {
        let alice = try Alice { $0.outgoingAnswerTimeout = nil }
        defer { alice.close() }
        let (uuid, invite) = try alice.call()
        alice.peer.send(Self.reply("180 Ringing", to: invite), to: alice.address)
        alice.world.advance(by: .seconds(5))
        alice.end(uuid)
        _ = try #require(alice.request("CANCEL", within: .seconds(1)))
        let cancelledAt = alice.world.loop.now
        #expect(alice.endDetails(uuid)?.reason == .localEnded)

        alice.world.advance(by: .seconds(31))
        #expect(!alice.holdsNothing)
        alice.world.run(until: { alice.holdsNothing }, within: .seconds(5))
        #expect(alice.holdsNothing)
        #expect(alice.world.loop.now - cancelledAt >= .milliseconds(31_900))
    }

    @Test func withNoAnswerTimeoutACallRingsAsLongAsTheFarEndLetsIt() throws {
        let alice = try Alice { $0.outgoingAnswerTimeout = nil }
        defer { alice.close() }
        let (uuid, invite) = try alice.call()
        alice.peer.send(Self.reply("180 Ringing", to: invite), to: alice.address)
        alice.world.advance(by: .seconds(600))
        #expect(alice.endDetails(uuid) == nil)
        #expect(alice.provider.statistics.liveCalls == 1)
        #expect(alice.request("CANCEL", within: .milliseconds(10)) == nil)
    }

    @Test func aFarEndThatRingsAgainEveryMinuteKeepsTheCallRinging() throws {
        let alice = try Alice { $0.outgoingAnswerTimeout = .seconds(90) }
        defer { alice.close() }
        let (uuid, invite) = try alice.call()
        // §13.3.1.1: a 180 a minute, for five minutes; each starts the 90 s wait again.
        for _ in 0..<5 {
            alice.peer.send(Self.reply("180 Ringing", to: invite), to: alice.address)
            alice.world.advance(by: .seconds(60))
            #expect(alice.endDetails(uuid) == nil)
        }
        #expect(alice.request("CANCEL", within: .milliseconds(10)) == nil)
        // Then it stops: 90 s after the last 180 (30 s of them already gone), the call is cancelled.
        let cancel = alice.request("CANCEL", within: .seconds(61))
        #expect(cancel != nil)
        #expect(alice.endDetails(uuid)?.reason == .unanswered)
    }

    @Test func aCallAnsweredBeforeTheTimeoutIsNotCancelled() throws {
        let alice = try Alice { $0.outgoingAnswerTimeout = .seconds(60) }
        defer { alice.close() }
        let (uuid, invite) = try alice.call()
        alice.peer.send(Self.reply("180 Ringing", to: invite), to: alice.address)
        alice.world.advance(by: .seconds(59))
        let body =
            "v=0\r\no=- 1 1 IN IP4 127.0.0.2\r\ns=-\r\nc=IN IP4 127.0.0.2\r\nt=0 0\r\n"
            + "m=audio 6000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n"
        let ok = Self.reply("200 OK", to: invite).replacingOccurrences(
            of: "Content-Length: 0\r\n\r\n",
            with: "Content-Type: application/sdp\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        alice.peer.send(ok, to: alice.address)
        _ = try #require(alice.request("ACK", within: .seconds(1)))
        alice.world.advance(by: .seconds(120))
        #expect(alice.endDetails(uuid) == nil)
        #expect(alice.provider.statistics.liveCalls == 1)
        #expect(alice.request("CANCEL", within: .milliseconds(10)) == nil)
    }

    @Test func theAnswerTimeoutIsThreeMinutesByDefault() {
        #expect(CallProviderConfiguration().outgoingAnswerTimeout == .seconds(180))
    }
}
