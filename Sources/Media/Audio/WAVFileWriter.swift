/// Writes a RIFF/WAVE file of 16-bit PCM (any rate, mono or stereo).
///
/// Samples are buffered and written every `flushInterval` of audio; each flush also rewrites the RIFF and
/// data sizes and hands everything to the kernel, so if the process dies mid-call the file is a valid WAV
/// file up to the last flush. `close()` (or `deinit`) writes the rest and the final sizes. Use
/// `ConvertingSink` to write frames of another format.
public final class WAVFileWriter: AudioSink {
    public let format: AudioFormat
    /// Samples (all channels) buffered between flushes.
    public let flushSamples: Int
    private let file: CFile
    /// Little-endian sample bytes not yet written.
    private var buffer: [UInt8] = []
    /// Sample bytes written to the file so far.
    public private(set) var dataBytesWritten = 0

    /// Creates (or truncates) the file and writes its header.
    /// - Parameters:
    ///   - path: the file.
    ///   - format: the format of the samples to be written.
    ///   - flushInterval: milliseconds of audio between flushes, 250 by default: the most a crash loses.
    /// - Throws: `AudioIOError` when the format is not valid or the file cannot be created.
    public init(path: String, format: AudioFormat, flushInterval: Int = 250) throws(AudioIOError) {
        guard format.isValid else { throw .unsupportedFormat("\(format)") }
        let file = try CFile(path: path, mode: "wb")
        try file.write(WAVHeader(format: format, dataSize: 0).serialized())
        try file.flush()
        self.file = file
        self.format = format
        self.flushSamples = max(format.channels, format.sampleCount(milliseconds: min(max(1, flushInterval), 60_000)))
        buffer.reserveCapacity(flushSamples * 2)
    }

    deinit { try? close() }

    /// The samples (all channels) written or buffered so far.
    public var samplesWritten: Int { (dataBytesWritten + buffer.count) / 2 }

    public func write(_ samples: [Int16]) throws(AudioIOError) {
        guard file.isOpen else { throw .closed }
        for sample in samples {
            let bits = UInt16(bitPattern: sample)
            buffer.append(UInt8(truncatingIfNeeded: bits))
            buffer.append(UInt8(truncatingIfNeeded: bits >> 8))
        }
        if buffer.count >= flushSamples * 2 { try flush() }
    }

    /// Writes the buffered samples and the current sizes, and hands them to the kernel.
    public func flush() throws(AudioIOError) {
        guard file.isOpen else { throw .closed }
        try file.write(buffer)
        dataBytesWritten += buffer.count
        buffer.removeAll(keepingCapacity: true)
        // Both sizes, then back to the end for the next samples (RIFF size at 4, data size at 40).
        let header = WAVHeader(format: format, dataSize: dataBytesWritten).serialized()
        try file.seek(to: 4)
        try file.write(Array(header[4..<8]))
        try file.seek(to: 40)
        try file.write(Array(header[40..<44]))
        try file.seek(to: 0, fromEnd: true)
        try file.flush()
    }

    /// Writes everything and closes the file; later writes throw `AudioIOError.closed`. Closing twice is
    /// harmless.
    public func close() throws(AudioIOError) {
        guard file.isOpen else { return }
        defer { try? file.close() }
        try flush()
        try file.close()
    }
}

/// A WAV file written from frames of any rate and channel count, converted with an `AudioConverter`.
public typealias WAVFileSink = ConvertingSink<WAVFileWriter>
