import Media
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct AudioWAVTests {
    /// Reads a whole file as bytes.
    func bytes(_ path: String) -> [UInt8] {
        guard let file = fopen(path, "rb") else { return [] }
        defer { fclose(file) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, 65536, file) }
            if count == 0 { break }
            result += chunk[0..<count]
        }
        return result
    }

    func writeBytes(_ bytes: [UInt8], to path: String) {
        guard let file = fopen(path, "wb") else { return }
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
    }

    func readAll(_ reader: WAVFileReader) throws -> [Int16] {
        var samples: [Int16] = []
        while let frame = try reader.read(samplesPerChannel: 1000) { samples += frame }
        return samples
    }

    @Test(arguments: [(8000, 1), (44100, 2), (11025, 1), (22050, 2), (7350, 2), (96000, 1)])
    func roundTripKeepsEverySample(sampleRate: Int, channels: Int) throws {
        let path = AudioFixtures.temporaryPath("round-\(sampleRate)-\(channels).wav")
        defer { unlink(path) }
        var random = SplitMix64(seed: UInt64(sampleRate + channels))
        let frames = 12345
        let samples = (0..<frames * channels).map { _ in Int16.random(in: .min ... .max, using: &random) }
        let writer = try WAVFileWriter(path: path, format: AudioFormat(sampleRate: sampleRate, channels: channels))
        var start = 0
        while start < samples.count {
            let size = min(Int.random(in: 1...900, using: &random) * channels, samples.count - start)
            try writer.write(Array(samples[start..<start + size]))
            start += size
        }
        try writer.close()
        try writer.close()
        #expect(throws: AudioIOError.closed) { try writer.write([1]) }

        let file = bytes(path)
        #expect(file.count == 44 + samples.count * 2)
        #expect(Array(file[0..<4]) == Array("RIFF".utf8) && Array(file[8..<16]) == Array("WAVEfmt ".utf8))
        #expect(le32(file, 4) == 36 + samples.count * 2 && le32(file, 40) == samples.count * 2)
        #expect(le32(file, 24) == sampleRate && le16(file, 22) == channels && le16(file, 34) == 16)

        let reader = try WAVFileReader(path: path)
        #expect(reader.format == AudioFormat(sampleRate: sampleRate, channels: channels))
        #expect(reader.frameCount == frames)
        let read = try readAll(reader)
        #expect(Array(read.prefix(samples.count)) == samples)
        #expect(read.dropFirst(samples.count).allSatisfy { $0 == 0 }, "the last frame is padded with silence")
    }

    @Test func aTruncatedFileReadsUpToItsLastWholeFrame() throws {
        let path = AudioFixtures.temporaryPath("truncated.wav")
        defer { unlink(path) }
        let writer = try WAVFileWriter(path: path, format: AudioFormat(sampleRate: 16000, channels: 2))
        let tone = AudioFixtures.tone(500, count: 32000, sampleRate: 16000)
        try writer.write(tone)
        try writer.close()
        // Cut the file in the middle of a stereo frame: the header still claims 64000 bytes.
        #expect(truncate(path, 44 + 1001) == 0)
        let reader = try WAVFileReader(path: path)
        #expect(reader.frameCount == 250)
        let read = try readAll(reader)
        #expect(Array(read.prefix(500)) == Array(tone.prefix(500)))
    }

    @Test func aWriterThatNeverClosedLeavesAReadableFileUpToTheLastFlush() throws {
        let path = AudioFixtures.temporaryPath("crash.wav")
        defer { unlink(path) }
        let writer = try WAVFileWriter(path: path, format: .narrowband, flushInterval: 100)
        let tone = AudioFixtures.tone(1000, count: 8000, sampleRate: 8000)
        for frame in AudioFixtures.frames(tone, size: 160).prefix(12) { try writer.write(frame) }
        // 240 ms written: two 100 ms flushes are on disk, the rest is in the buffer. Read it as a crash would
        // leave it.
        let file = bytes(path)
        #expect(file.count == 44 + 1600 * 2)
        #expect(le32(file, 40) == 3200 && le32(file, 4) == 36 + 3200)
        let reader = try WAVFileReader(path: path)
        #expect(reader.frameCount == 1600)
        #expect(Array(try readAll(reader).prefix(1600)) == Array(tone.prefix(1600)))
        try writer.close()
        #expect(try WAVFileReader(path: path).frameCount == 1920)
    }

    @Test func readerToleratesUnknownSizesAndExtraChunks() throws {
        let path = AudioFixtures.temporaryPath("odd-header.wav")
        defer { unlink(path) }
        // An extensible fmt chunk (40 bytes), a LIST chunk of odd size with its pad byte, and a data size of
        // 0xFFFFFFFF as a streaming writer leaves it.
        var header: [UInt8] = Array("RIFF".utf8) + [0xFF, 0xFF, 0xFF, 0xFF] + Array("WAVEfmt ".utf8) + le(40, 4)
        header += le(0xFFFE, 2) + le(1, 2) + le(12000, 4) + le(24000, 4) + le(2, 2) + le(16, 2)
        header += le(22, 2) + le(16, 2) + le(4, 4) + le(1, 2) + Array(repeating: 0, count: 14)
        header += Array("LIST".utf8) + le(3, 4) + [1, 2, 3, 0]
        header += Array("data".utf8) + [0xFF, 0xFF, 0xFF, 0xFF]
        writeBytes(header + le(1000, 2) + le(0xFFFF, 2) + [9], to: path)
        let reader = try WAVFileReader(path: path)
        #expect(reader.format == AudioFormat(sampleRate: 12000))
        #expect(reader.frameCount == 2)
        #expect(try reader.read(samplesPerChannel: 3) == [1000, -1, 0])
        #expect(try reader.read(samplesPerChannel: 3) == nil)
    }

    @Test func invalidFilesAreTypedErrors() throws {
        let path = AudioFixtures.temporaryPath("invalid.wav")
        defer { unlink(path) }
        #expect(throws: AudioIOError.self) { try WAVFileReader(path: "/nonexistent/file.wav") }
        writeBytes(Array("not a wave file at all, just text".utf8), to: path)
        #expect(throws: AudioIOError.invalidFile(path, "no RIFF/WAVE header")) { try WAVFileReader(path: path) }
        var eightBit: [UInt8] = Array("RIFF".utf8) + le(36, 4) + Array("WAVEfmt ".utf8) + le(16, 4)
        eightBit += le(1, 2) + le(1, 2) + le(8000, 4) + le(8000, 4) + le(1, 2) + le(8, 2)
        writeBytes(eightBit + Array("data".utf8) + le(0, 4), to: path)
        #expect(throws: AudioIOError.self) { try WAVFileReader(path: path) }
        writeBytes(Array("RIFF".utf8) + le(4, 4) + Array("WAVE".utf8), to: path)
        #expect(throws: AudioIOError.invalidFile(path, "no fmt chunk")) { try WAVFileReader(path: path) }
        #expect(throws: AudioIOError.self) {
            try WAVFileWriter(path: path, format: AudioFormat(sampleRate: 8000, channels: 3))
        }
    }

    @Test func aLoopingFileIsReadAtTheRequestedRateAndChannels() throws {
        let path = AudioFixtures.temporaryPath("loop.wav")
        defer { unlink(path) }
        // 0.1 s of 440 Hz, stereo at 22050 Hz: 44 whole periods, so the loop joins without a click.
        let mono = AudioFixtures.tone(440, count: 2205, sampleRate: 22050, level: -6)
        let writer = try WAVFileWriter(path: path, format: AudioFormat(sampleRate: 22050, channels: 2))
        try writer.write(AudioConverter.mix(mono, from: 1, to: 2))
        try writer.close()

        let native = try WAVFileReader(path: path, isLooping: true)
        let first = try #require(try native.read(samplesPerChannel: 3000))
        #expect(first.count == 6000 && first[4410] == first[0] && first[5000] == first[590])

        var source = try WAVFileSource(path: path, format: .narrowband, isLooping: true)
        var output: [Int16] = []
        for _ in 0..<100 {
            let frame = try #require(try source.read(samplesPerChannel: 160))
            #expect(frame.count == 160)
            output += frame
        }
        let steady = Array(output.dropFirst(800))
        #expect(AudioAnalysis.isDominant(frequency: 440, in: steady, sampleRate: 8000))
        #expect(abs(AudioAnalysis.goertzel(steady, sampleRate: 8000, frequency: 440) - -6) < 0.5)

        var once = try WAVFileSource(path: path, format: .narrowband)
        var frames = 0
        while try once.read(samplesPerChannel: 160) != nil { frames += 1 }
        #expect(frames == 5, "0.1 s is five 20 ms frames, the last one padded")
    }

    @Test func aConvertingSinkRecordsAtTheFilesFormat() throws {
        let path = AudioFixtures.temporaryPath("sink.wav")
        defer { unlink(path) }
        var sink = WAVFileSink(try WAVFileWriter(path: path, format: .narrowband), format: .fullband)
        for frame in AudioFixtures.frames(AudioFixtures.tone(1000, count: 48000, sampleRate: 48000), size: 960) {
            try sink.write(frame)
        }
        try sink.base.close()
        let reader = try WAVFileReader(path: path)
        #expect(reader.format == .narrowband)
        #expect(abs(reader.frameCount - 8000) <= 2)
        let samples = try readAll(reader)
        #expect(AudioAnalysis.isDominant(frequency: 1000, in: samples, sampleRate: 8000))
    }
}

func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
func le16(_ bytes: [UInt8], _ offset: Int) -> Int { Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 }
func le32(_ bytes: [UInt8], _ offset: Int) -> Int { le16(bytes, offset) | le16(bytes, offset + 2) << 16 }
