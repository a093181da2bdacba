import Foundation
import Switchboard
import SwitchboardTesting
import Synchronization
import Testing

/// A PBX that keeps its SSRC and sequence numbers but jumps its RTP timestamp after the first RFC 4733
/// event (FreeSWITCH's `send_dtmf` after reading digits), with the marker bit set on each new event:
/// every digit must still arrive once.
@Suite struct DTMFTimestampJumpTests {
    /// The packets of one event: a start (marker), two updates, three end packets (RFC 4733 §2.5.1).
    static func event(_ code: UInt8, timestamp: UInt32, sequence: inout UInt16) -> [[UInt8]] {
        var packets: [[UInt8]] = []
        for (index, duration) in [160, 320, 480, 640, 640, 640].enumerated() {
            let isEnd = index >= 3
            var packet: [UInt8] = [
                0x80, (index == 0 ? 0x80 : 0x00) | 101, UInt8(sequence >> 8), UInt8(sequence & 0xFF),
            ]
            packet += withUnsafeBytes(of: timestamp.bigEndian, Array.init)
            packet += withUnsafeBytes(of: UInt32(0x5EED_0101).bigEndian, Array.init)
            packet += [code, (isEnd ? 0x80 : 0x00) | 10, UInt8(duration >> 8), UInt8(duration & 0xFF)]
            packets.append(packet)
            sequence &+= 1
        }
        return packets
    }

    @Test(arguments: [UInt32(3_300_000_000), UInt32(400_000_000)])
    func digitsAfterATimestampJumpAllArrive(jump: UInt32) async throws {
        let world = VirtualWorld(seed: 9)
        let peer = try PBXPeer(world: world)
        var configuration = CallProviderConfiguration(
            accounts: [Account(addressOfRecord: "sip:alice@127.0.0.1")], listeners: [.init(.udp, "127.0.0.1:0")],
            codecs: [.pcmu])
        configuration.t1 = .milliseconds(100)
        let alice = try world.makeProvider(configuration: configuration, host: "127.0.0.1")
        let delegate = RecordingDelegate(world: world)
        alice.setDelegate(delegate, queue: nil)
        defer {
            alice.invalidate(timeout: .seconds(2))
            peer.close()
        }
        let call = try await CallController(provider: alice).startCall(
            to: Handle(type: .generic, value: "sip:ivr@127.0.0.1:\(peer.port)"))
        let invite = try #require(await peer.request("INVITE"))
        let offeredPort = try #require(
            invite.message.body.split(separator: "\r\n").first { $0.hasPrefix("m=audio ") }?
                .split(separator: " ").dropFirst().first.flatMap { UInt16($0) })
        let sdp = peer.answerSDP.replacingOccurrences(of: "RTP/AVP 0\r\n", with: "RTP/AVP 0 101\r\n")
            .replacingOccurrences(
                of: "a=sendrecv", with: "a=rtpmap:101 telephone-event/8000\r\na=fmtp:101 0-16\r\na=sendrecv")
        peer.respond(to: invite, "200 OK", sdp: sdp)
        _ = try #require(await delegate.connected(call))
        // Digits 1, 2, 3, 4; the timestamp jumps by `jump` after the first (serially forward for 4e8,
        // backward for 3.3e9).
        var sequence: UInt16 = 100
        var packets: [[UInt8]] = []
        for (index, code) in [UInt8(1), 2, 3, 4].enumerated() {
            let timestamp = UInt32(8_000) &+ UInt32(index) &* 1_600 &+ (index == 0 ? 0 : jump)
            packets += Self.event(code, timestamp: timestamp, sequence: &sequence)
        }
        for packet in packets {
            peer.sendRTP(packet, toPort: offeredPort)
            world.advance(by: .milliseconds(20))
        }
        world.advance(by: .milliseconds(500))
        let digits = delegate.events.withLock {
            $0.compactMap(\.digit)
        }
        #expect(String(digits) == "1234")
    }
}
