import Foundation
import Switchboard
import SwitchboardTesting
import Synchronization
import Testing

/// Early media on an outgoing call (RFC 3960): a 183 with SDP starts playout and recording of what the early
/// dialog sends, and nothing is sent before the 2xx.
@Suite("CallProvider: early media", .serialized)
struct EarlyMediaTests {
    final class Heard: Sendable {
        let samples = Mutex<[Int16]>([])
    }

    /// The RMS of the last `count` samples.
    static func level(_ heard: Heard, last count: Int) -> Double {
        let tail = heard.samples.withLock { Array($0.suffix(count)) }
        guard !tail.isEmpty else { return 0 }
        return (tail.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(tail.count)).squareRoot()
    }

    @Test func a183WithSDPIsPlayedAndRecordedAndNothingIsSentUntilThe200() async throws {
        let world = VirtualWorld()
        let peer = try PBXPeer(world: world)
        let heard = Heard()
        var configuration = CallProviderConfiguration(
            accounts: [Account(addressOfRecord: "sip:alice@127.0.0.1")], listeners: [.init(.udp, "127.0.0.1:0")],
            codecs: [.pcmu])
        configuration.t1 = .milliseconds(100)
        configuration.audio = CallAudio(
            input: .tone(frequency: 1000), output: .samples { frame in heard.samples.withLock { $0 += frame } },
            sampleRate: 8000)
        let alice = try world.makeProvider(configuration: configuration, host: "127.0.0.1")
        let delegate = RecordingDelegate(world: world)
        alice.setDelegate(delegate, queue: nil)
        defer {
            alice.invalidate(timeout: .seconds(2))
            peer.close()
        }
        let call = try await CallController(provider: alice).startCall(
            to: Handle(type: .generic, value: "sip:announcement@127.0.0.1:\(peer.port)"))
        let invite = try #require(await peer.request("INVITE"))
        let offeredPort = try #require(
            invite.message.body.split(separator: "\r\n").first { $0.hasPrefix("m=audio ") }?
                .split(separator: " ").dropFirst().first.flatMap { UInt16($0) })
        // The announcement: 183 with SDP, then a 440 Hz tone on the early dialog.
        peer.respond(to: invite, "183 Session Progress", sdp: peer.answerSDP)
        peer.startMedia(toPort: offeredPort)
        let status = try #require(
            await delegate.wait { event -> Int? in
                event.hasEarlyMedia && event.callUUID == call ? event.statusCode : nil
            })
        #expect(status == 183)
        // It is played before the answer (the recording is the app's output).
        let playing = await delegate.wait { _ -> Bool? in Self.level(heard, last: 800) > 2000 ? true : nil }
        #expect(playing == true, "early media not played")
        // Receive-only until the 2xx: nothing came from Alice.
        #expect(peer.rtpPackets == 0)
        #expect(alice.call(with: call)?.state == .ringing)
        peer.respond(to: invite, "200 OK", sdp: peer.answerSDP)
        _ = try #require(await delegate.connected(call))
        // Now Alice sends.
        let sending = await delegate.wait { _ -> Bool? in peer.rtpPackets > 5 ? true : nil }
        #expect(sending == true)
        peer.stopMedia()
    }
}
