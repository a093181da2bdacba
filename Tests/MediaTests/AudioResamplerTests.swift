import Media
import Testing

@Suite struct AudioResamplerTests {
    /// Rate pairs covering decimation, interpolation and fractional ratios.
    static let pairs: [(Int, Int)] = [
        (48000, 8000), (44100, 8000), (48000, 16000), (16000, 8000), (44100, 48000), (22050, 16000),
        (32000, 44100), (8000, 48000), (8000, 16000), (11025, 8000),
    ]

    /// Runs `input` through a resampler in 20 ms blocks and drops the first 50 ms of output (the filter's
    /// start-up).
    func resample(_ input: [Int16], from inputRate: Int, to outputRate: Int) -> [Int16] {
        var resampler = Resampler(inputRate: inputRate, outputRate: outputRate)
        var output: [Int16] = []
        for block in AudioFixtures.frames(input, size: inputRate / 50) {
            resampler.process(block, appendingTo: &output)
        }
        return Array(output.dropFirst(outputRate / 20))
    }

    @Test(arguments: pairs)
    func aToneAboveTheTargetNyquistFrequencyIsSixtyDecibelsDown(inputRate: Int, outputRate: Int) {
        let level = -1.0
        if outputRate < inputRate {
            // Between the output's Nyquist frequency and the input's: it would alias to outputRate - f.
            for fraction in [1.02, 1.3] {
                let frequency = min(Double(outputRate) / 2 * fraction, Double(inputRate) / 2 * 0.95)
                let input = AudioFixtures.tone(frequency, count: inputRate, sampleRate: inputRate, level: level)
                let output = resample(input, from: inputRate, to: outputRate)
                let attenuation = level - AudioAnalysis.level(output)
                #expect(attenuation >= 60, "\(frequency) Hz: \(attenuation) dB down")
            }
        } else {
            // Interpolation: the images of a pass-band tone (around multiples of the input rate) are the stop
            // band; they show as residual around the tone.
            let input = AudioFixtures.tone(1000, count: inputRate, sampleRate: inputRate, level: level)
            let output = resample(input, from: inputRate, to: outputRate)
            let tone = AudioAnalysis.measureTone(output, sampleRate: outputRate, frequency: 1000)
            #expect(tone.toneToResidual >= 60, "images \(tone.toneToResidual) dB down")
        }
    }

    @Test(arguments: pairs)
    func aPassBandToneKeepsItsLevelWithinHalfADecibel(inputRate: Int, outputRate: Int) {
        let nyquist = Double(min(inputRate, outputRate)) / 2
        for frequency in [1000, nyquist * 0.8] {
            let input = AudioFixtures.tone(frequency, count: inputRate, sampleRate: inputRate, level: -6)
            let output = resample(input, from: inputRate, to: outputRate)
            let level = AudioAnalysis.goertzel(output, sampleRate: outputRate, frequency: frequency)
            #expect(abs(level - -6) <= 0.5, "\(frequency) Hz at \(level) dBFS")
            #expect(AudioAnalysis.isDominant(frequency: frequency, in: output, sampleRate: outputRate))
        }
    }

    @Test(arguments: pairs)
    func blocksOfAnySizeGiveTheSameOutputAsOneBlock(inputRate: Int, outputRate: Int) {
        var random = SplitMix64(seed: UInt64(inputRate * 7 + outputRate))
        let input = (0..<inputRate / 5).map { _ in Int16.random(in: -20000...20000, using: &random) }
        var whole = Resampler(inputRate: inputRate, outputRate: outputRate)
        let reference = whole.process(input)
        var pieces = Resampler(inputRate: inputRate, outputRate: outputRate)
        var joined: [Int16] = []
        var start = 0
        while start < input.count {
            let size = min(Int.random(in: 0...700, using: &random), input.count - start)
            joined += pieces.process(Array(input[start..<start + size]))
            start += size
        }
        #expect(joined == reference)
        // The output count follows the ratio to within a sample.
        let expected = Double(input.count) * Double(outputRate) / Double(inputRate)
        #expect(abs(Double(reference.count) - expected) <= 1)
    }

    @Test func equalRatesPassThroughAndOddRatesAreApproximated() {
        var same = Resampler(inputRate: 16000, outputRate: 16000)
        #expect(same.process([1, 2, 3]) == [1, 2, 3])
        #expect(same.tapsPerPhase == 0)
        // 7999/8000 needs 8000 phases: the closest ratio with at most 1024 is used.
        var odd = Resampler(inputRate: 7999, outputRate: 8000)
        let output = odd.process(AudioFixtures.tone(1000, count: 7999, sampleRate: 7999))
        #expect(abs(output.count - 8000) <= 10)
        #expect(AudioAnalysis.isDominant(frequency: 1000, in: Array(output.dropFirst(400)), sampleRate: 8000))
    }

    @Test func converterMixesStereoToMonoAndResamples() {
        let left = AudioFixtures.tone(1000, count: 44100, sampleRate: 44100, level: -6)
        var stereo: [Int16] = []
        for sample in left { stereo += [sample, sample] }
        var converter = AudioConverter(from: AudioFormat(sampleRate: 44100, channels: 2), to: .narrowband)
        var output: [Int16] = []
        for block in AudioFixtures.frames(stereo, size: 882 * 2) { output += converter.convert(block) }
        #expect(abs(output.count - 8000) <= 2)
        let steady = Array(output.dropFirst(400))
        #expect(abs(AudioAnalysis.goertzel(steady, sampleRate: 8000, frequency: 1000) - -6) < 0.5)
        var up = AudioConverter(from: .narrowband, to: AudioFormat(sampleRate: 16000, channels: 2))
        let doubled = up.convert(Array(output.prefix(800)))
        #expect(abs(doubled.count - 3200) <= 4 && doubled.count % 2 == 0)
        #expect(doubled[2000] == doubled[2001])
        #expect(AudioConverter.mix([100, 300, -100, -300], from: 2, to: 1) == [200, -200])
        #expect(AudioConverter.mix([7, 8], from: 1, to: 2) == [7, 7, 8, 8])
    }

    @Test func convertingSourceGivesWholeFramesAtTheTargetRate() throws {
        var source = ConvertingSource(
            ToneSource(frequency: 440, format: AudioFormat(sampleRate: 44100, channels: 2)), format: .narrowband)
        var output: [Int16] = []
        for _ in 0..<50 {
            let frame = try #require(try source.read(samplesPerChannel: 160))
            #expect(frame.count == 160)
            output += frame
        }
        #expect(AudioAnalysis.isDominant(frequency: 440, in: output, sampleRate: 8000))
        let collected = Counter()
        var sink = ConvertingSink(CallbackSink(format: .narrowband) { collected.add($0.count) }, format: .fullband)
        for _ in 0..<50 { try sink.write([Int16](repeating: 1000, count: 960)) }
        #expect(abs(collected.value - 8000) <= 2)
    }
}
