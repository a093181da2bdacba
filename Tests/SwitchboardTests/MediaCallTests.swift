import Foundation
import Media
import Switchboard
import Synchronization
import Testing

/// Audio both ways between two providers on loopback (issue 5 §7): each side plays its own tone and
/// records what it hears; RFC 4733 digits arrive once each.
@Suite("Media: loopback calls between two providers", .serialized)
struct MediaCallTests {
    final class Recording: Sendable {
        let samples = Mutex<[Int16]>([])
        func append(_ frame: [Int16]) { samples.withLock { $0.append(contentsOf: frame) } }
    }

    static let rate = 16000

    static func audio(tone: Double, into recording: Recording) -> CallAudio {
        CallAudio(input: .tone(frequency: tone), output: .samples { recording.append($0) }, sampleRate: rate)
    }

    /// How far `wanted` stands above `unwanted` in the last second of a recording, in dB.
    static func separation(_ recording: Recording, wanted: Double, unwanted: Double) -> Double {
        let samples = Array(recording.samples.withLock { $0 }.suffix(rate))
        return AudioAnalysis.goertzel(samples, sampleRate: rate, frequency: wanted)
            - AudioAnalysis.goertzel(samples, sampleRate: rate, frequency: unwanted)
    }

    @Test(arguments: [(Codec.opus, SRTPPolicy.mandatory), (.pcmu, .off), (.pcma, .optional)])
    func tonesCrossBothWaysAndDigitsArriveOnce(codec: Codec, srtp: SRTPPolicy) async throws {
        let heardByAlice = Recording()
        let heardByBob = Recording()
        let pair = try ProviderPair(
            aliceConfiguration: {
                $0.codecs = [codec]
                $0.srtp = srtp
                $0.audio = Self.audio(tone: 1000, into: heardByAlice)
            },
            bobConfiguration: {
                $0.codecs = [.opus, .pcmu, .pcma]
                $0.srtp = srtp
                $0.audio = Self.audio(tone: 440, into: heardByBob)
            })
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        let call = try #require(pair.alice.call(with: alice))
        #expect(call.codec?.lowercased() == codec.rawValue)
        #expect(call.isSecure == (srtp != .off))

        try await pair.pause(.milliseconds(1500))
        try await pair.aliceController.request(
            CallTransaction(action: PlayDTMFCallAction(call: alice, digits: "159#")))
        let digits = await pair.bobDelegate.wait(seconds: 5) { _ -> String? in
            let received = pair.bobDelegate.events.withLock {
                String($0.compactMap(\.digit))
            }
            return received.count >= 4 ? received : nil
        }
        try await pair.pause(.milliseconds(600))
        let quality = try #require(pair.bob.call(with: bob)?.quality)
        try await pair.aliceController.endCall(alice)
        _ = await pair.aliceDelegate.ended(alice)

        let final = pair.bobDelegate.events.withLock {
            String($0.compactMap(\.digit))
        }
        #expect(digits == "159#")
        #expect(final == "159#")
        // Each side hears the other's tone, at least 20 dB above its own (a recorder that mixed both
        // directions would fail this).
        #expect(Self.separation(heardByBob, wanted: 1000, unwanted: 440) >= 20)
        #expect(Self.separation(heardByAlice, wanted: 440, unwanted: 1000) >= 20)
        #expect(heardByBob.samples.withLock { $0.count } >= Self.rate * 2)
        #expect(quality.packetsReceived > 80)
        #expect(quality.packetsSent > 80)
        #expect(quality.lossFraction < 0.05)
        #expect(quality.meanOpinionScore > 3.5)
    }

    @Test func mutingSendsSilence() async throws {
        let heardByBob = Recording()
        let pair = try ProviderPair(
            aliceConfiguration: { $0.audio = CallAudio(input: .tone(frequency: 1000)) },
            bobConfiguration: { $0.audio = Self.audio(tone: 440, into: heardByBob) })
        defer { pair.close() }
        let (alice, _) = try await pair.connect()
        try await pair.pause(.milliseconds(1200))
        let before = Self.separation(heardByBob, wanted: 1000, unwanted: 300)
        try await pair.aliceController.request(CallTransaction(action: SetMutedCallAction(call: alice, muted: true)))
        try await pair.pause(.milliseconds(1500))
        let samples = Array(heardByBob.samples.withLock { $0 }.suffix(Self.rate))
        #expect(before >= 20)
        #expect(AudioAnalysis.level(samples) < -50)
    }
}
