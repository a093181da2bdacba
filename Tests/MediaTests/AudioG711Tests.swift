import Media
import Testing

/// G.711 against the values of its Tables 1 and 2: decoded values at each segment's ends, and the decision
/// values where the encoder moves from one segment to the next.
@Suite struct AudioG711Tests {
    /// μ-law segment ends on G.711's 14-bit scale: (segment, first quantized value, last quantized value).
    static let muLawSegments: [(Int, Int, Int)] = [
        (0, 0, 30), (1, 33, 93), (2, 99, 219), (3, 231, 471), (4, 495, 975), (5, 1023, 1983), (6, 2079, 3999),
        (7, 4191, 8031),
    ]
    /// A-law segment ends on G.711's 13-bit scale.
    static let aLawSegments: [(Int, Int, Int)] = [
        (0, 1, 31), (1, 33, 63), (2, 66, 126), (3, 132, 252), (4, 264, 504), (5, 528, 1008), (6, 1056, 2016),
        (7, 2112, 4032),
    ]

    @Test func muLawDecodesToTheTableValuesAtEverySegmentEnd() {
        for (segment, first, last) in Self.muLawSegments {
            // Wire codes are inverted: positive segment s, step m is ~(s<<4 | m) with the sign bit set.
            let positiveFirst = UInt8(0x80 | (~UInt8(segment << 4) & 0x7F))
            let positiveLast = UInt8(0x80 | (~UInt8(segment << 4 | 0x0F) & 0x7F))
            #expect(Int(G711.linear(muLaw: positiveFirst)) == first * 4, "segment \(segment) first")
            #expect(Int(G711.linear(muLaw: positiveLast)) == last * 4, "segment \(segment) last")
            #expect(Int(G711.linear(muLaw: positiveFirst & 0x7F)) == -first * 4)
            #expect(Int(G711.linear(muLaw: positiveLast & 0x7F)) == -last * 4)
        }
        #expect(G711.linear(muLaw: 0xFF) == 0)
        #expect(G711.linear(muLaw: 0x80) == 32124)
        #expect(G711.linear(muLaw: 0x00) == -32124)
    }

    @Test func aLawDecodesToTheTableValuesAtEverySegmentEnd() {
        for (segment, first, last) in Self.aLawSegments {
            let positiveFirst = UInt8(0x80 | segment << 4) ^ 0x55
            let positiveLast = UInt8(0x80 | segment << 4 | 0x0F) ^ 0x55
            #expect(Int(G711.linear(aLaw: positiveFirst)) == first * 8, "segment \(segment) first")
            #expect(Int(G711.linear(aLaw: positiveLast)) == last * 8, "segment \(segment) last")
            #expect(Int(G711.linear(aLaw: positiveFirst ^ 0x80)) == -first * 8)
            #expect(Int(G711.linear(aLaw: positiveLast ^ 0x80)) == -last * 8)
        }
        #expect(G711.linear(aLaw: 0xD5) == 8)
        #expect(G711.linear(aLaw: 0xAA) == 32256)
        #expect(G711.linear(aLaw: 0x2A) == -32256)
    }

    @Test func muLawEncoderSwitchesSegmentAtTheDecisionValues() {
        // 14-bit decision values between segments (G.711 Table 2a): the value and the first value of the next
        // segment's quantized output.
        let boundaries = [(31, 33), (95, 99), (223, 231), (479, 495), (991, 1023), (2015, 2079), (4063, 4191)]
        for (decision, nextFirst) in boundaries {
            let below = Int16(decision * 4 - 1)  // the last 16-bit value of the interval below
            let at = Int16(decision * 4)
            #expect(Int(G711.linear(muLaw: G711.muLaw(at))) == nextFirst * 4, "decision \(decision)")
            #expect(Int(G711.linear(muLaw: G711.muLaw(below))) < nextFirst * 4, "below \(decision)")
            // Negative inputs mirror: -x-1 on the 14-bit scale lands where x does.
            #expect(Int(G711.linear(muLaw: G711.muLaw(-at - 4))) == -nextFirst * 4)
        }
        // Overload (decision value 8159) and the two zeros.
        #expect(G711.muLaw(Int16.max) == 0x80)
        #expect(G711.muLaw(Int16.min) == 0x00)
        #expect(G711.muLaw(0) == 0xFF)
        #expect(G711.muLaw(-1) == 0x7F)
    }

    @Test func aLawEncoderSwitchesSegmentAtTheDecisionValues() {
        // 13-bit decision values between segments (G.711 Table 1a).
        let boundaries = [(32, 33), (64, 66), (128, 132), (256, 264), (512, 528), (1024, 1056), (2048, 2112)]
        for (decision, nextFirst) in boundaries {
            let at = Int16(decision * 8)
            #expect(Int(G711.linear(aLaw: G711.aLaw(at))) == nextFirst * 8, "decision \(decision)")
            #expect(Int(G711.linear(aLaw: G711.aLaw(at - 1))) < nextFirst * 8, "below \(decision)")
            #expect(Int(G711.linear(aLaw: G711.aLaw(-at - 8))) == -nextFirst * 8)
        }
        #expect(G711.aLaw(Int16.max) == 0xAA)
        #expect(G711.aLaw(Int16.min) == 0x2A)
        #expect(G711.aLaw(0) == 0xD5)
        #expect(G711.aLaw(-1) == 0x55)
    }

    @Test func everyCodeSurvivesDecodeThenEncode() {
        for code in UInt8.min...UInt8.max {
            #expect(G711.aLaw(G711.linear(aLaw: code)) == code, "A-law \(code)")
            // μ-law's negative zero (0x7F) decodes to 0, which encodes as positive zero.
            if code != 0x7F { #expect(G711.muLaw(G711.linear(muLaw: code)) == code, "μ-law \(code)") }
        }
    }

    @Test(arguments: [G711Law.muLaw, G711Law.aLaw])
    func aToneComesThroughAtItsFrequencyWithThirtyDecibelsSNR(law: G711Law) throws {
        let input = AudioFixtures.tone(1000, count: 8000, sampleRate: 8000)
        var encoder = G711Encoder(law: law)
        var decoder = G711Decoder(law: law)
        var output: [Int16] = []
        for frame in AudioFixtures.frames(input, size: encoder.samplesPerFrame) {
            let payload = try encoder.encode(frame)
            #expect(payload.count == 160)
            output += try decoder.decode(payload)
        }
        #expect(output.count == input.count)
        let frequency = try #require(AudioAnalysis.dominantFrequency(output, sampleRate: 8000))
        #expect(abs(frequency - 1000) <= 20, "dominant \(frequency) Hz")
        #expect(AudioAnalysis.isDominant(frequency: 1000, in: output, sampleRate: 8000))
        let snr = AudioAnalysis.signalToNoise(reference: input, signal: output)
        #expect(snr >= 30, "SNR \(snr) dB")
        #expect(AudioAnalysis.measureTone(output, sampleRate: 8000, frequency: 1000).toneToResidual >= 30)
    }

    @Test func encoderRejectsAFrameOfTheWrongLength() {
        var encoder = G711Encoder(law: .muLaw)
        #expect(throws: AudioCodecError.invalidFrameLength(expected: 160, actual: 100)) {
            try encoder.encode(Array(repeating: 0, count: 100))
        }
    }

    @Test func lossIsConcealedByRepetitionFadingToSilence() throws {
        var decoder = G711Decoder(law: .aLaw)
        let input = AudioFixtures.tone(1000, count: 160, sampleRate: 8000)
        let decoded = try decoder.decode(G711Encoder.encode(input, law: .aLaw))
        let levels = (0..<5).map { _ in AudioAnalysis.level(decoder.concealLoss(next: nil)) }
        #expect(abs(levels[0] - AudioAnalysis.level(decoded)) < 2.5, "the first loss is nearly full level")
        #expect(levels[0] > levels[1] && levels[1] > levels[2] && levels[2] > levels[3])
        #expect(levels[4] == -.infinity, "silence after four lost frames")
        #expect(decoder.concealLoss(next: nil).count == 160)
        let resumed = try decoder.decode(G711Encoder.encode(input, law: .aLaw))
        #expect(resumed.prefix(8).allSatisfy { abs(Int($0)) < 2000 }, "fades back in")
        #expect(throws: AudioCodecError.self) { try decoder.decode([UInt8]()) }
    }
}
