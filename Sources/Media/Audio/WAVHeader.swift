/// The parts of a RIFF/WAVE file (the Microsoft RIFF specification; PCM and WAVE_FORMAT_EXTENSIBLE) this
/// library reads and writes: 16-bit PCM, any rate, one or two channels.
struct WAVHeader: Sendable, Hashable {
    /// The audio format of the samples.
    var format: AudioFormat
    /// The byte offset of the first sample.
    var dataOffset: Int
    /// The bytes of samples the data chunk declares; `nil` when the size is unknown (0 or 0xFFFFFFFF, as a
    /// writer that never finished leaves it) and the samples run to the end of the file.
    var dataSize: Int?

    /// The size of the canonical header `serialize` writes.
    static let canonicalSize = 44

    /// Bytes per frame (all channels).
    var blockAlign: Int { format.channels * 2 }

    /// Parses the chunks before the samples.
    /// - Parameters:
    ///   - bytes: the start of the file (the first 64 KiB is plenty; chunks before `data` must fit).
    ///   - path: the file's name, for errors.
    init(parsing bytes: [UInt8], path: String) throws(AudioIOError) {
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8)
        else { throw .invalidFile(path, "no RIFF/WAVE header") }
        var offset = 12
        var format: AudioFormat?
        while offset + 8 <= bytes.count {
            let id = bytes[offset..<offset + 4]
            let size = WAVHeader.uint32(bytes, offset + 4)
            let body = offset + 8
            if id.elementsEqual("fmt ".utf8) {
                guard size >= 16, body + 16 <= bytes.count else { throw .invalidFile(path, "short fmt chunk") }
                format = try WAVHeader.parseFormat(bytes, at: body, size: size, path: path)
            } else if id.elementsEqual("data".utf8) {
                guard let format else { throw .invalidFile(path, "data chunk before fmt chunk") }
                self.format = format
                self.dataOffset = body
                self.dataSize = size == 0 || size == 0xFFFF_FFFF ? nil : size
                return
            }
            // Chunks are padded to an even size.
            offset = body + size + (size & 1)
        }
        throw .invalidFile(path, format == nil ? "no fmt chunk" : "no data chunk")
    }

    init(format: AudioFormat, dataSize: Int) {
        self.format = format
        self.dataOffset = WAVHeader.canonicalSize
        self.dataSize = dataSize
    }

    private static func parseFormat(_ bytes: [UInt8], at body: Int, size: Int, path: String) throws(AudioIOError)
        -> AudioFormat
    {
        var tag = uint16(bytes, body)
        let channels = uint16(bytes, body + 2)
        let rate = Int(uint32(bytes, body + 4))
        let bits = uint16(bytes, body + 14)
        if tag == 0xFFFE {
            // WAVE_FORMAT_EXTENSIBLE: the real format is the first two bytes of the sub-format GUID.
            guard size >= 40, body + 26 <= bytes.count else { throw .invalidFile(path, "short extensible fmt") }
            tag = uint16(bytes, body + 24)
        }
        guard tag == 1 else { throw .unsupportedFormat("\(path): WAV format tag \(tag), only PCM (1) is read") }
        guard bits == 16 else { throw .unsupportedFormat("\(path): \(bits)-bit samples, only 16-bit are read") }
        let format = AudioFormat(sampleRate: rate, channels: channels)
        guard format.isValid else { throw .unsupportedFormat("\(path): \(rate) Hz, \(channels) channels") }
        return format
    }

    /// The canonical 44-byte header: RIFF, a 16-byte PCM fmt chunk, the data chunk's header.
    func serialized() -> [UInt8] {
        let dataSize = self.dataSize ?? 0
        var bytes: [UInt8] = []
        bytes.reserveCapacity(WAVHeader.canonicalSize)
        bytes.append(contentsOf: "RIFF".utf8)
        WAVHeader.append32(UInt32(truncatingIfNeeded: 36 + dataSize), to: &bytes)
        bytes.append(contentsOf: "WAVEfmt ".utf8)
        WAVHeader.append32(16, to: &bytes)
        WAVHeader.append16(1, to: &bytes)
        WAVHeader.append16(UInt16(format.channels), to: &bytes)
        WAVHeader.append32(UInt32(format.sampleRate), to: &bytes)
        WAVHeader.append32(UInt32(format.sampleRate * blockAlign), to: &bytes)
        WAVHeader.append16(UInt16(blockAlign), to: &bytes)
        WAVHeader.append16(16, to: &bytes)
        bytes.append(contentsOf: "data".utf8)
        WAVHeader.append32(UInt32(truncatingIfNeeded: dataSize), to: &bytes)
        return bytes
    }

    static func uint16(_ bytes: [UInt8], _ offset: Int) -> Int {
        Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
    }

    static func uint32(_ bytes: [UInt8], _ offset: Int) -> Int {
        Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
    }

    static func append16(_ value: UInt16, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    static func append32(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }
}
