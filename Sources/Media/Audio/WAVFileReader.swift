/// Reads a RIFF/WAVE file of 16-bit PCM (any rate, mono or stereo) frame by frame in the file's own format,
/// optionally looping. Use `WAVFileSource` (a `ConvertingSource`) to read it at another rate or channel count.
///
/// Tolerates what crashed or careless writers leave: a data size of 0 or 0xFFFFFFFF, or larger than the file,
/// means "to the end of the file", and a trailing partial frame is ignored.
public final class WAVFileReader: AudioSource {
    public let format: AudioFormat
    /// True to start again from the first sample at the end of the file.
    public let isLooping: Bool
    /// The number of frames in the file (what can actually be read).
    public let frameCount: Int
    private let file: CFile
    private let dataOffset: Int
    /// The next frame to read, 0..<frameCount.
    private var nextFrame = 0

    /// Opens a file and reads its header.
    /// - Parameters:
    ///   - path: the file.
    ///   - isLooping: true to loop at the end (a `--play` file loops), false to end.
    /// - Throws: `AudioIOError` when the file cannot be opened or is not 16-bit PCM WAV.
    public init(path: String, isLooping: Bool = false) throws(AudioIOError) {
        let file = try CFile(path: path, mode: "rb")
        let header = try WAVHeader(parsing: try file.read(count: 65536), path: path)
        try file.seek(to: 0, fromEnd: true)
        let fileSize = try file.position()
        let available = max(0, fileSize - header.dataOffset)
        let dataSize = min(header.dataSize ?? available, available)
        try file.seek(to: header.dataOffset)
        self.file = file
        self.format = header.format
        self.isLooping = isLooping
        self.dataOffset = header.dataOffset
        self.frameCount = dataSize / header.blockAlign
    }

    /// The file's duration in seconds.
    public var duration: Double { Double(frameCount) / Double(format.sampleRate) }

    public func read(samplesPerChannel: Int) throws(AudioIOError) -> [Int16]? {
        guard samplesPerChannel > 0 else { return [] }
        guard nextFrame < frameCount || (isLooping && frameCount > 0) else { return nil }
        var samples: [Int16] = []
        samples.reserveCapacity(samplesPerChannel * format.channels)
        var remaining = samplesPerChannel
        while remaining > 0 {
            if nextFrame >= frameCount {
                guard isLooping, frameCount > 0 else { break }
                try rewind()
            }
            let frames = min(remaining, frameCount - nextFrame)
            let bytes = try file.read(count: frames * format.channels * 2)
            let whole = bytes.count / (format.channels * 2)
            for i in stride(from: 0, to: whole * format.channels * 2, by: 2) {
                samples.append(Int16(bitPattern: UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8))
            }
            nextFrame += whole
            remaining -= whole
            // The file shrank under us: treat what is there as the end.
            if whole < frames { nextFrame = frameCount }
        }
        guard !samples.isEmpty else { return nil }
        let wanted = samplesPerChannel * format.channels
        if samples.count < wanted { samples.append(contentsOf: repeatElement(0, count: wanted - samples.count)) }
        return samples
    }

    /// Goes back to the first sample.
    public func rewind() throws(AudioIOError) {
        try file.seek(to: dataOffset)
        nextFrame = 0
    }
}

/// A WAV file read at any rate and channel count: the file's frames converted with an `AudioConverter`.
public typealias WAVFileSource = ConvertingSource<WAVFileReader>

extension ConvertingSource where Base == WAVFileReader {
    /// Opens a WAV file to be read in `format`.
    /// - Parameters:
    ///   - path: the file.
    ///   - format: the format wanted (the codec's rate, mono).
    ///   - isLooping: true to loop at the end.
    /// - Throws: `AudioIOError` when the file cannot be opened or is not 16-bit PCM WAV.
    public init(path: String, format: AudioFormat, isLooping: Bool = false) throws(AudioIOError) {
        self.init(try WAVFileReader(path: path, isLooping: isLooping), format: format)
    }
}
