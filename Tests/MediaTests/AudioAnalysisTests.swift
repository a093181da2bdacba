import Media
import Synchronization
import Testing

@Suite struct AudioAnalysisTests {
    @Test func goertzelReadsATonesLevelAndIgnoresOtherFrequencies() {
        let tone = AudioFixtures.tone(1000, count: 8000, sampleRate: 8000, level: -10)
        #expect(abs(AudioAnalysis.goertzel(tone, sampleRate: 8000, frequency: 1000) - -10) < 0.05)
        #expect(AudioAnalysis.goertzel(tone, sampleRate: 8000, frequency: 1500) < -60)
        let quiet = AudioFixtures.tone(697, count: 16000, sampleRate: 16000, level: -33)
        #expect(abs(AudioAnalysis.goertzel(quiet, sampleRate: 16000, frequency: 697) - -33) < 0.1)
        #expect(AudioAnalysis.goertzel([], sampleRate: 8000, frequency: 1000) == -.infinity)
    }

    @Test func levelIsRelativeToAFullScaleSine() {
        #expect(abs(AudioAnalysis.level(AudioFixtures.tone(440, count: 8000, sampleRate: 8000, level: -6)) - -6) < 0.05)
        #expect(abs(AudioAnalysis.level(AudioFixtures.tone(440, count: 8000, sampleRate: 8000, level: 0))) < 0.05)
        #expect(AudioAnalysis.level([Int16](repeating: 0, count: 100)) == -.infinity)
        #expect(AudioAnalysis.rms([Int16](repeating: -300, count: 10)) == 300)
    }

    @Test func toneMeasurementSeparatesTheToneFromAddedNoise() {
        var random = SplitMix64(seed: 42)
        let tone = AudioFixtures.tone(1000, count: 16000, sampleRate: 16000, level: -10)
        // Uniform noise of ±a has RMS a/√3: a = 400 gives 231, -40 dBFS against the -10 dBFS tone: 30 dB.
        let noisy = tone.map { Int16(clamping: Int($0) + Int.random(in: -400...400, using: &random)) }
        let measured = AudioAnalysis.measureTone(noisy, sampleRate: 16000, frequency: 1000)
        #expect(abs(measured.level - -10) < 0.1)
        #expect(abs(measured.toneToResidual - 30) < 0.5, "\(measured)")
        // Measuring at the wrong frequency finds no tone.
        #expect(AudioAnalysis.measureTone(noisy, sampleRate: 16000, frequency: 1300).toneToResidual < 0)
        let snr = AudioAnalysis.signalToNoise(reference: tone, signal: noisy)
        #expect(abs(snr - 30) < 0.5)
        #expect(AudioAnalysis.signalToNoise(reference: tone, signal: tone) == .infinity)
    }

    @Test(arguments: [(440.0, 8000), (1000.0, 8000), (3150.0, 44100), (697.0, 16000), (7000.0, 48000)])
    func dominantFrequencyIsFoundWithinAFractionOfAPercent(frequency: Double, sampleRate: Int) throws {
        let tone = AudioFixtures.tone(frequency, count: sampleRate, sampleRate: sampleRate)
        let found = try #require(AudioAnalysis.dominantFrequency(tone, sampleRate: sampleRate))
        #expect(abs(found - frequency) / frequency < 0.002, "found \(found) Hz")
        #expect(AudioAnalysis.isDominant(frequency: frequency, in: tone, sampleRate: sampleRate))
        #expect(!AudioAnalysis.isDominant(frequency: frequency * 1.03, in: tone, sampleRate: sampleRate))
    }

    @Test func theLouderOfTwoTonesDominates() {
        let low = AudioFixtures.tone(770, count: 8000, sampleRate: 8000, level: -12)
        let high = AudioFixtures.tone(1336, count: 8000, sampleRate: 8000, level: -9)
        let mixed = zip(low, high).map { $0 &+ $1 }
        #expect(AudioAnalysis.isDominant(frequency: 1336, in: mixed, sampleRate: 8000))
        #expect(AudioAnalysis.dominantFrequency([Int16](repeating: 0, count: 1000), sampleRate: 8000) == nil)
        #expect(AudioAnalysis.dominantFrequency([1, 2, 3], sampleRate: 8000) == nil)
    }

    @Test func toneSourceKeepsItsPhaseAcrossFrames() {
        var whole = ToneSource(frequency: 1234.5, level: -3, format: AudioFormat(sampleRate: 16000))
        var pieces = whole
        let reference = whole.read(samplesPerChannel: 1000) ?? []
        var joined: [Int16] = []
        for size in [7, 160, 333, 500] { joined += pieces.read(samplesPerChannel: size) ?? [] }
        #expect(joined == reference)
        // A frequency or level parsed from user input (`--play tone:nan`) gives silence, never a trap.
        var broken = ToneSource(frequency: .nan, level: .nan)
        #expect(broken.read(samplesPerChannel: 160) == [Int16](repeating: 0, count: 160))
        #expect(broken.read(samplesPerChannel: -1) == [])
        var stereo = ToneSource(frequency: 500, format: AudioFormat(sampleRate: 8000, channels: 2))
        let frame = stereo.read(samplesPerChannel: 160) ?? []
        #expect(frame.count == 320 && frame[10] == frame[11] && frame[10] != 0)
    }

    @Test func silenceCallbackAndNullEndpoints() {
        let silence = SilenceSource(format: .wideband)
        #expect(silence.read(samplesPerChannel: 320) == [Int16](repeating: 0, count: 320))
        let blocks = Counter()
        let source = CallbackSource(format: .narrowband) { count in
            blocks.increment() < 2 ? [Int16](repeating: 5, count: count + 10) : nil
        }
        #expect(source.read(samplesPerChannel: 160)?.count == 160, "a long block is cut")
        let short = CallbackSource(format: .narrowband) { _ in [1, 2, 3] }
        #expect(short.read(samplesPerChannel: 5) == [1, 2, 3, 0, 0], "a short one padded")
        #expect(source.read(samplesPerChannel: 160) != nil)
        #expect(source.read(samplesPerChannel: 160) == nil, "nil ends the source")
        let received = Counter()
        let sink = CallbackSink(format: .narrowband) { samples in received.add(samples.count) }
        sink.write([1, 2, 3])
        #expect(received.value == 3)
        var null = NullSink(format: .fullband)
        null.write([Int16](repeating: 1, count: 960))
        #expect(null.samplesWritten == 960)
    }
}

/// A counter the `@Sendable` callback closures can share with the test.
final class Counter: Sendable {
    private let count = Mutex(0)

    var value: Int { count.withLock { $0 } }

    /// Adds one; returns the value before.
    func increment() -> Int {
        count.withLock { value in
            value += 1
            return value - 1
        }
    }

    func add(_ amount: Int) { count.withLock { $0 += amount } }
}
