import Foundation
import Media
import Testing

@testable import Switchboard

/// The audio device a call's media session talks to: `CallAudio` in the codec's formats.
@Suite("Call audio port")
struct CallAudioPortTests {
    static func frame(_ format: AudioFormat, value: Int16 = 1000) -> MediaAudioFrame {
        MediaAudioFrame(
            samples: [Int16](repeating: value, count: format.samplesPerChannel(milliseconds: 20)), format: format,
            origin: .media, instant: .zero)
    }

    @Test func theRecordingLastsAcrossACodecChange() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("port-\(UUID()).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var port = CallAudioPort(CallAudio(output: .file(path: path), sampleRate: 16000))
        port.adapt(send: .narrowband, receive: .narrowband)
        for _ in 0..<50 { port.play(Self.frame(.narrowband)) }
        // A re-offer moves the call to Opus: the same file goes on, at its own rate.
        port.adapt(send: .fullband, receive: .fullband)
        for _ in 0..<50 { port.play(Self.frame(.fullband)) }
        port.close()
        let reader = try WAVFileReader(path: path)
        #expect(reader.format == .wideband)
        #expect(abs(reader.frameCount - 32000) <= 64)
    }

    @Test func sourcesFollowTheEncodersFormat() throws {
        var port = CallAudioPort(CallAudio(input: .tone(frequency: 1000)))
        let before = port.capture(count: 160, format: .narrowband)
        #expect(before == nil, "silent until the codec is known")
        port.adapt(send: .narrowband, receive: .narrowband)
        let captured = port.capture(count: 160, format: .narrowband)
        let tone = try #require(captured)
        #expect(tone.count == 160 && AudioAnalysis.rms(tone) > 1000)
        port.adapt(send: .fullband, receive: .fullband)
        let opus = port.capture(count: 960, format: .fullband)
        #expect(opus?.count == 960)
    }

    @Test func theAppsNilIsSilenceAndNewAudioTakesOver() throws {
        var port = CallAudioPort(CallAudio(input: .samples { _ in nil }, sampleRate: 8000))
        port.adapt(send: .narrowband, receive: .narrowband)
        let silence = port.capture(count: 160, format: .narrowband)
        #expect(silence == [Int16](repeating: 0, count: 160))
        port.replace(with: CallAudio(input: .samples { count in [Int16](repeating: 7, count: count) }))
        let app = port.capture(count: 160, format: .narrowband)
        #expect(app == [Int16](repeating: 7, count: 160))
        #expect(port.audio.sampleRate == nil)
    }

    @Test func theDefaultAudioIsSilenceWithoutDevicesUntilOtherAudioComes() throws {
        var port = CallAudioPort(CallAudio())
        let before = port.capture(count: 160, format: .narrowband)
        #expect(before == nil, "silent until the codec is known")
        port.adapt(send: .narrowband, receive: .narrowband)
        let silence = port.capture(count: 160, format: .narrowband)
        #expect(silence == [Int16](repeating: 0, count: 160))
        port.play(Self.frame(.narrowband))
        port.replace(with: CallAudio(input: .tone(frequency: 1000)))
        let captured = port.capture(count: 160, format: .narrowband)
        let tone = try #require(captured)
        #expect(AudioAnalysis.rms(tone) > 1000)
        port.close()
        let after = port.capture(count: 160, format: .narrowband)
        #expect(after == nil, "silent once closed")
    }
}
