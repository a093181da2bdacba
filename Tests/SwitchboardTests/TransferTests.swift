import Foundation
import Switchboard
import SwitchboardTesting
import Synchronization
import Testing

/// A blind transfer seen by the transferee (RFC 3515, RFC 5589): the app hears `wasTransferredTo` with the
/// new call, the new call's answer goes back in the final NOTIFY, and the old call ends on the transferor's
/// BYE or, without one, on this side's own.
@Suite("CallProvider: transfers", .serialized)
struct TransferTests {
    /// A third provider that answers every call.
    static func carol(in world: VirtualWorld) throws -> (CallProvider, RecordingDelegate, String) {
        var configuration = CallProviderConfiguration(
            accounts: [Account(addressOfRecord: "sip:carol@127.0.0.1")], listeners: [.init(.udp, "127.0.0.1:0")])
        configuration.t1 = .milliseconds(100)
        let provider = try world.makeProvider(configuration: configuration, host: "127.0.0.1")
        let delegate = RecordingDelegate(world: world)
        provider.setDelegate(delegate, queue: nil)
        let address = provider.listeners.first { $0.transport == .udp }?.address ?? ""
        return (provider, delegate, "sip:carol@\(address)")
    }

    @Test func theTransfereeTellsTheAppAndTheTransferorsByeEndsTheOldCall() async throws {
        let pair = try ProviderPair()
        let (carol, carolDelegate, carolURI) = try Self.carol(in: try #require(pair.world))
        defer {
            pair.close()
            carol.invalidate(timeout: .seconds(2))
        }
        let (aliceCall, bobCall) = try await pair.connect()
        // Bob (the transferor) sends Alice to Carol.
        try await pair.bobController.transfer(bobCall, to: Handle(type: .generic, value: carolURI))
        let (old, target, newCall) = try #require(
            await pair.aliceDelegate.wait { event -> (Call, Handle, UUID)? in
                if let call = event.call, let target = event.transferTarget, let new = event.newCallUUID {
                    (call, target, new)
                } else {
                    nil
                }
            })
        #expect(old.uuid == aliceCall)
        #expect(target.value == carolURI)
        // The app hears of the transfer before anything of the new call.
        let order = pair.aliceDelegate.events.withLock { events in
            events.compactMap { event -> String? in
                switch event.kind {
                case .transferred: "transferred"
                case .startedConnecting where event.callUUID == newCall: "new call"
                default: nil
                }
            }
        }
        #expect(order.first == "transferred")
        let invite = try #require(await carolDelegate.invite())
        try await CallController(provider: carol).answerCall(invite.callUUID)
        _ = try #require(await pair.aliceDelegate.connected(newCall))
        // Carol's answer reaches Bob in the final NOTIFY; Bob hangs up; Alice's old call ends.
        let ended = try #require(await pair.aliceDelegate.ended(aliceCall))
        #expect(ended.reason == .remoteEnded)
        #expect(ended.reasonPhrase == nil)
        let bobEnded = try #require(await pair.bobDelegate.ended(bobCall))
        #expect(bobEnded.reason == .localEnded)
        #expect(pair.alice.call(with: newCall)?.state == .connected)
    }

    @Test func withoutTheTransferorsByeTheTransfereeHangsUpTheOldCall() async throws {
        let world = VirtualWorld()
        let peer = try PBXPeer(world: world)
        let (carol, carolDelegate, carolURI) = try Self.carol(in: world)
        var configuration = CallProviderConfiguration(
            accounts: [Account(addressOfRecord: "sip:alice@127.0.0.1")], listeners: [.init(.udp, "127.0.0.1:0")])
        configuration.t1 = .milliseconds(100)
        let alice = try world.makeProvider(configuration: configuration, host: "127.0.0.1")
        let aliceDelegate = RecordingDelegate(world: world)
        alice.setDelegate(aliceDelegate, queue: nil)
        defer {
            alice.invalidate(timeout: .seconds(2))
            carol.invalidate(timeout: .seconds(2))
            peer.close()
        }
        // Alice calls the PBX; it answers, then transfers her to Carol and never sends BYE.
        let call = try await CallController(provider: alice).startCall(
            to: Handle(type: .generic, value: "sip:pbx@127.0.0.1:\(peer.port)"))
        let invite = try #require(await peer.request("INVITE"))
        peer.respond(to: invite, "200 OK", sdp: peer.answerSDP)
        _ = try #require(await aliceDelegate.connected(call))
        _ = try #require(await peer.request("ACK"))
        peer.sendInDialog("REFER", of: invite, cseq: 1, headers: ["Refer-To: <\(carolURI)>"])
        let newCall = try #require(
            await aliceDelegate.wait { event -> UUID? in
                event.callUUID == call ? event.newCallUUID : nil
            })
        let carolInvite = try #require(await carolDelegate.invite())
        try await CallController(provider: carol).answerCall(carolInvite.callUUID)
        _ = try #require(await aliceDelegate.connected(newCall))
        // The final NOTIFY says 200; no BYE comes from the PBX: Alice sends hers (4 s later).
        let final = try #require(
            await peer.message {
                $0.startLine.hasPrefix("NOTIFY ") && $0["Subscription-State"]?.hasPrefix("terminated") == true
            })
        #expect(final.message["Event"] == "refer")
        #expect(final.message.body.hasPrefix("SIP/2.0 200"))
        let ended = try #require(await aliceDelegate.ended(call, seconds: 15))
        #expect(ended.reason == .remoteEnded)
        #expect(ended.reasonPhrase == "transferred")
        let bye = try #require(await peer.request("BYE"))
        #expect(bye.message["Reason"] == #"Q.850;cause=16;text="transferred""#)
        #expect(alice.call(with: newCall)?.state == .connected)
    }
}
