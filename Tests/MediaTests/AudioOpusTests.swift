import Media
import SDP
import Testing

@Suite struct AudioOpusTests {
    /// One second of a 1 kHz tone at 48 kHz in 20 ms frames.
    static let toneFrames = AudioFixtures.frames(AudioFixtures.tone(1000, count: 48000, sampleRate: 48000), size: 960)

    @Test func aToneComesThroughTwentyDecibelsAboveTheResidual() throws {
        let encoder = try OpusEncoder()
        let decoder = try OpusDecoder()
        var output: [Int16] = []
        for frame in Self.toneFrames {
            let payload = try encoder.encode(frame)
            #expect(!payload.isEmpty && payload.count < 400)
            let decoded = try decoder.decode(payload)
            #expect(decoded.count == 960)
            output += decoded
        }
        // Skip the first 100 ms: the encoder's start-up and the codec delay.
        let steady = Array(output[4800...])
        let tone = AudioAnalysis.measureTone(steady, sampleRate: 48000, frequency: 1000)
        #expect(tone.toneToResidual >= 20, "tone \(tone.level) dBFS, residual \(tone.residualLevel) dBFS")
        #expect(abs(tone.level - -10) < 1.5, "level \(tone.level) dBFS")
        #expect(AudioAnalysis.isDominant(frequency: 1000, in: steady, sampleRate: 48000))
    }

    /// Encodes the tone frames and decodes them with packet `lost` missing, concealed by `conceal`.
    func decodeWithLoss(
        lost: Int, configuration: OpusConfiguration = OpusConfiguration(),
        conceal: (OpusDecoder, [UInt8]) -> [Int16]
    ) throws -> (frames: [[Int16]], concealed: [Int16]) {
        let encoder = try OpusEncoder(configuration: configuration)
        let decoder = try OpusDecoder()
        let packets = try Self.toneFrames.prefix(lost + 5).map { try encoder.encode($0) }
        var frames: [[Int16]] = []
        var concealed: [Int16] = []
        for (index, packet) in packets.enumerated() {
            if index == lost {
                concealed = conceal(decoder, packets[index + 1])
                frames.append(concealed)
            } else {
                frames.append(try decoder.decode(packet))
            }
        }
        return (frames, concealed)
    }

    @Test func packetLossConcealmentKeepsTheToneAcrossOneLostPacket() throws {
        let (frames, concealed) = try decodeWithLoss(lost: 20) { decoder, _ in decoder.concealLoss(next: nil) }
        #expect(concealed.count == 960)
        #expect(frames.allSatisfy { $0.count == 960 })
        let level = AudioAnalysis.goertzel(concealed, sampleRate: 48000, frequency: 1000)
        #expect(level > -16, "the concealed frame carries the tone at \(level) dBFS")
        #expect(AudioAnalysis.isDominant(frequency: 1000, in: concealed, sampleRate: 48000))
        // libopus fades the concealment and blends it into the next packet: a dip of a few dB, not a gap.
        let after = AudioAnalysis.goertzel(frames[21], sampleRate: 48000, frequency: 1000)
        #expect(after > -20, "the next frame at \(after) dBFS")
        let recovered = AudioAnalysis.goertzel(frames[22], sampleRate: 48000, frequency: 1000)
        #expect(recovered > -12, "then back to \(recovered) dBFS")
    }

    @Test func forwardErrorCorrectionRebuildsTheLostPacketFromTheNext() throws {
        let configuration = OpusConfiguration(bitrate: 32000, packetLossPercentage: 20)
        let (frames, concealed) = try decodeWithLoss(lost: 20, configuration: configuration) { decoder, next in
            decoder.concealLoss(next: next[...])
        }
        #expect(concealed.count == 960)
        let level = AudioAnalysis.goertzel(concealed, sampleRate: 48000, frequency: 1000)
        // Within 1.5 dB of the original -10 dBFS: closer than PLC's fading guess (about -13.5 dBFS here).
        #expect(abs(level - -10) < 1.5, "the FEC frame carries the tone at \(level) dBFS")
        #expect(AudioAnalysis.isDominant(frequency: 1000, in: concealed, sampleRate: 48000, tolerance: 0.05))
        // The packet after the loss still decodes in full after being used for FEC.
        #expect(frames[21].count == 960)
        #expect(AudioAnalysis.goertzel(frames[21], sampleRate: 48000, frequency: 1000) > -13)
    }

    @Test func garbagePayloadsNeverCrash() throws {
        let decoder = try OpusDecoder()
        var random = SplitMix64(seed: 7587)
        var rejected = 0
        for _ in 0..<2000 {
            let length = Int.random(in: 0...300, using: &random)
            let payload = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            do {
                let samples = try decoder.decode(payload)
                #expect(samples.count % 120 == 0 && samples.count <= 5760)
            } catch {
                #expect(error.isInvalidPayload, "\(error)")
                rejected += 1
                #expect(decoder.concealLoss(next: payload[...]).count > 0)
            }
        }
        #expect(rejected > 0, "some garbage is rejected by the table of contents")
        #expect(throws: AudioCodecError.invalidPayload("empty Opus payload")) { try decoder.decode([UInt8]()) }
    }

    @Test func aStereoPacketDecodesToMono() throws {
        let decoder = try OpusDecoder()
        // TOC: configuration 31 (CELT full band, 20 ms), stereo flag, one frame (RFC 6716 §3.1).
        let stereo: [UInt8] = [31 << 3 | 0x04] + Array(repeating: 0x5A, count: 60)
        #expect(try decoder.decode(stereo).count == 960)
        // Configuration 14 (hybrid full band, 10 ms), mono, code 1 (two equal frames: 20 ms in all).
        let mono: [UInt8] = [14 << 3 | 0x01] + Array(repeating: 0x33, count: 40)
        #expect(try decoder.decode(mono).count == 960)
    }

    @Test func configurationTakesThePeersFormatParameters() throws {
        var configuration = OpusConfiguration(bitrate: 40000)
        configuration.applyRemoteFormatParameters("maxplaybackrate=16000; maxaveragebitrate=20000;cbr=1;stereo=1")
        #expect(configuration.bitrate == 20000)
        #expect(configuration.maxBandwidth == .wideband)
        #expect(configuration.isConstantBitrate)
        #expect(configuration.isInBandFECEnabled)
        configuration.applyRemoteFormatParameters("maxaveragebitrate=junk;maxplaybackrate=8000")
        #expect(configuration.bitrate == 20000)
        #expect(configuration.maxBandwidth == .narrowband)
        let encoder = try OpusEncoder(configuration: configuration)
        // Constant bitrate: 20 kbit/s in 20 ms is 50 bytes.
        #expect(try encoder.encode(Self.toneFrames[0]).count == 50)
        try encoder.setBitrate(12000)
        try encoder.setPacketLossPercentage(30)
        #expect(encoder.configuration.bitrate == 12000 && encoder.configuration.packetLossPercentage == 30)
        #expect(throws: AudioCodecError.self) { try encoder.setBitrate(1000) }
        #expect(throws: AudioCodecError.self) { try OpusEncoder(configuration: OpusConfiguration(packetTime: 30)) }
        #expect(throws: AudioCodecError.self) {
            try OpusEncoder(configuration: OpusConfiguration(packetLossPercentage: 101))
        }
    }

    @Test func constantBitrateSetsThePacketSize() throws {
        let encoder = try OpusEncoder(configuration: OpusConfiguration(bitrate: 24000, isConstantBitrate: true))
        let sizes = try Self.toneFrames.prefix(10).map { try encoder.encode($0).count }
        // 24 kbit/s in 20 ms is 60 bytes.
        #expect(sizes.allSatisfy { $0 == 60 }, "\(sizes)")
        #expect(throws: AudioCodecError.invalidFrameLength(expected: 960, actual: 160)) {
            try encoder.encode(Array(repeating: 0, count: 160))
        }
    }

    @Test func negotiatedCodecsMakeTheirEncodersAndDecoders() throws {
        // A baresip-style offer: opus/48000/2 with stereo and a capped playback rate.
        let offer = try SessionDescription(
            parsing: [
                "v=0", "o=- 1 1 IN IP4 192.0.2.9", "s=-", "c=IN IP4 192.0.2.9", "t=0 0",
                "m=audio 5000 RTP/AVP 96 0 101", "a=rtpmap:96 opus/48000/2",
                "a=fmtp:96 stereo=1;sprop-stereo=1;maxplaybackrate=24000", "a=rtpmap:101 telephone-event/8000",
                "a=ptime:20", "",
            ].joined(separator: "\r\n"))
        var engine = OfferAnswer(
            configuration: OfferAnswerConfiguration(address: "192.0.2.1", rtpPort: 40000),
            random: SplitMix64(seed: 1), keySource: NoKeys())
        try engine.receiveOffer(offer)
        let session = try engine.makeAnswer().session
        let kind = try #require(AudioCodecKind(session.codec))
        #expect(kind == .opus)
        let encoder = try kind.makeEncoder(remoteFormatParameters: session.codec.sendFormatParameters)
        #expect(encoder.samplesPerFrame == 960 && encoder.timestampIncrement == 960)
        #expect((encoder as? OpusEncoder)?.configuration.maxBandwidth == .superWideband)
        var decoder = try kind.makeDecoder()
        #expect(decoder.format == .fullband)
        var anyEncoder = encoder
        #expect(try decoder.decode(anyEncoder.encode(Self.toneFrames[0])).count == 960)
        #expect(session.codecs.compactMap(AudioCodecKind.init) == [.opus, .pcmu])
        // A peer's ptime picks the nearest Opus frame size not longer; G.711 keeps any ptime up to 200 ms.
        #expect(try kind.makeEncoder(packetTime: 30).samplesPerFrame == 960)
        #expect(try kind.makeEncoder(packetTime: 5).samplesPerFrame == 480)
        #expect(try AudioCodecKind.pcmu.makeEncoder(packetTime: 30).samplesPerFrame == 240)
        #expect(try AudioCodecKind.pcma.makeEncoder(packetTime: 100_000).samplesPerFrame == 1600)
        #expect(session.telephoneEvent.flatMap(AudioCodecKind.init) == nil)
        #expect(
            AudioCodecKind.allCases.map {
                AudioCodecKind(encodingName: $0.sdpCodec.encodingName, clockRate: $0.sdpCodec.clockRate)
            } == [.pcmu, .pcma, .opus])
    }
}

/// An SRTP key source for plain-RTP negotiation: never asked.
struct NoKeys: SRTPKeySource {
    mutating func makeKeyMaterial(count: Int) -> [UInt8]? { nil }
}
