import Dispatch
import Foundation
import Media
import Synchronization
import Testing

@testable import SwitchboardCLI

/// The media flags of CLI.md over a real loopback call between `answer` and `call` in process: tones
/// both ways found in the recordings, `--dtmf` digits sent and received once, `--hold-after`/`--hold-for`
/// events, and the summary's media figures.
@Suite("CLI media flags")
struct MediaFlagsTests {
    static func tone(in path: String, wanted: Double, unwanted: Double) throws -> Double {
        let reader = try WAVFileReader(path: path)
        var samples: [Int16] = []
        while let frame = try reader.read(samplesPerChannel: 160) { samples += frame }
        let rate = reader.format.sampleRate
        let last = Array(samples.suffix(rate))
        return AudioAnalysis.goertzel(last, sampleRate: rate, frequency: wanted)
            - AudioAnalysis.goertzel(last, sampleRate: rate, frequency: unwanted)
    }

    @Test func playRecordDTMFAndHold() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-media-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bobRecording = folder.appendingPathComponent("bob-%n.wav").path
        let aliceRecording = folder.appendingPathComponent("alice.wav").path

        let bob = try await InProcessAnswer.start([
            "--listen", "127.0.0.1:0", "--auto-answer", "--count", "1", "--play", "tone:440", "--record", bobRecording,
            "--codecs", "pcmu",
        ])
        let answer = bob.capture
        let answerPort = bob.port

        let call = Capture()
        let status = await runCommand(
            [
                "call", "sip:bob@127.0.0.1:\(answerPort)", "--listen", "127.0.0.1:0", "--duration", "4.5",
                "--play", "tone:1000", "--record", aliceRecording, "--dtmf", "42#", "--hold-after", "2.2",
                "--hold-for", "1", "--codecs", "pcmu",
            ], io: call.io)
        #expect(status == 0)
        #expect(await bob.exitStatus() == 0)

        let events = call.out.map { $0.split(separator: " ").dropFirst().first.map(String.init) ?? "" }
        #expect(events.filter { $0 == "dtmf-sent" }.count == 3)
        #expect(events.contains("held"), "\(call.out) \(answer.out)")
        #expect(events.contains("resumed"))
        #expect(call.out.contains { $0.contains("connected codec=PCMU srtp=no transport=udp") })
        let summary = try #require(call.out.first { $0.contains(" summary ") })
        let received = try #require(summary.firstMatch(of: #/rx=(\d+)/#).flatMap { Int($0.1) })
        #expect(received > 100)

        let digits = answer.out.compactMap { $0.firstMatch(of: #/dtmf-received digit=(\S)/#).map { String($0.1) } }
        #expect(digits.joined() == "42#")
        #expect(answer.out.contains { $0.contains("remote-held") })

        #expect(try Self.tone(in: folder.appendingPathComponent("bob-1.wav").path, wanted: 1000, unwanted: 440) >= 20)
        #expect(try Self.tone(in: aliceRecording, wanted: 440, unwanted: 1000) >= 20)
    }
}
