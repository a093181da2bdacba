import Foundation
import SIPTransport
import Switchboard
import SwitchboardTesting
import Synchronization
import Testing

/// RFC 5923 connection reuse between two Switchboards over TCP: Alice listens on TCP, so her Contact names
/// her listener; her Via carries `;alias`, so Bob's requests to her listener's address go over the
/// connection she opened instead of a new one.
@Suite("RFC 5923 alias", .serialized)
struct ViaAliasTests {
    /// One trace event: direction, local and remote address, start line.
    struct Seen: Sendable {
        let received: Bool
        let local: String
        let remote: String
        let startLine: String
    }

    final class Trace: Sendable {
        let items = Mutex<[Seen]>([])
    }

    @Test func requestsToAnAliasedSentByReuseTheConnection() async throws {
        let pair = try ProviderPair(
            seed: 31,
            aliceConfiguration: {
                $0.accounts = [Account(addressOfRecord: "sip:alice@127.0.0.1", transport: .tcp)]
                $0.listeners = [.init(.udp, "127.0.0.1:5070"), .init(.tcp, "127.0.0.1:5070")]
            },
            bobConfiguration: {
                $0.listeners = [.init(.udp, "127.0.0.1:5060"), .init(.tcp, "127.0.0.1:5060")]
            })
        defer { pair.close() }
        let trace = Trace()
        let traces = pair.alice.traces
        let reading = Task {
            for await event in traces {
                let line = String(decoding: event.bytes.prefix { $0 != 0x0D }, as: UTF8.self)
                trace.items.withLock {
                    $0.append(
                        Seen(
                            received: event.direction == .received, local: event.localAddress,
                            remote: event.remoteAddress, startLine: line))
                }
            }
        }
        let alice = try await pair.aliceController.startCall(
            to: Handle(type: .generic, value: "sip:bob@127.0.0.1:5060"))
        let invite = try #require(await pair.bobDelegate.invite())
        try await pair.bobController.answerCall(invite.callUUID)
        _ = try #require(await pair.aliceDelegate.connected(alice))
        try await pair.bobController.endCall(invite.callUUID)
        _ = try #require(await pair.aliceDelegate.ended(alice, seconds: 2))
        pair.close()
        await reading.value

        let seen = trace.items.withLock { $0 }
        let sent = try #require(seen.first { !$0.received && $0.startLine.hasPrefix("INVITE ") })
        let bye = try #require(seen.first { $0.received && $0.startLine.hasPrefix("BYE ") })
        // The INVITE left from an ephemeral port (a connection Alice opened), not her listener's 5070...
        #expect(!sent.local.hasSuffix(":5070"), "INVITE from \(sent.local)")
        // ...and Bob's BYE, sent to her Contact (the listener), came back over that connection.
        #expect(bye.local == sent.local, "BYE on \(bye.local), INVITE from \(sent.local)")
    }

    /// A peer may alias only its own address: an `;alias` naming another host's address is ignored, so
    /// requests to that host still open a connection to it (RFC 5923 §11's hijacking concern).
    @Test func anAliasForAnotherAddressIsIgnored() async throws {
        let world = VirtualWorld(seed: 37)
        let delegate = RecordingDelegate(world: world)
        var configuration = CallProviderConfiguration(
            accounts: [Account(addressOfRecord: "sip:alice@127.0.0.1", transport: .tcp)],
            listeners: [.init(.udp, "127.0.0.1:5070"), .init(.tcp, "127.0.0.1:5070")])
        configuration.t1 = .milliseconds(100)
        let alice = try world.makeProvider(configuration: configuration, host: "127.0.0.1")
        alice.setDelegate(delegate, queue: nil)
        defer { alice.invalidate(timeout: .seconds(1)) }
        let victim = try ScriptedListener(world: world, host: "127.0.0.3", port: 5099)
        let attacker = try ScriptedConnection(
            world: world, from: "127.0.0.2", to: try #require(SocketAddress(ip: "127.0.0.1", port: 5070)))
        attacker.send(
            [
                "OPTIONS sip:alice@127.0.0.1:5070;transport=tcp SIP/2.0",
                "Via: SIP/2.0/TCP 127.0.0.3:5099;branch=z9hG4bK-alias-1;alias", "Max-Forwards: 70",
                "From: <sip:mallory@127.0.0.3>;tag=m1", "To: <sip:alice@127.0.0.1>", "Call-ID: alias-options-1",
                "CSeq: 1 OPTIONS", "Content-Length: 0", "", "",
            ].joined(separator: "\r\n"))
        #expect(attacker.message(within: .seconds(2))?.hasPrefix("SIP/2.0 200") == true)
        _ = try await CallController(provider: alice).startCall(
            to: Handle(type: .generic, value: "sip:bob@127.0.0.3:5099;transport=tcp"))
        let connection = try #require(victim.accept(within: .seconds(5)), "no connection to 127.0.0.3")
        #expect(connection.message(within: .seconds(2))?.hasPrefix("INVITE ") == true)
        #expect(attacker.takeBytes().isEmpty)
    }
}
