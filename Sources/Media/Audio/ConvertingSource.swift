/// Adapts a source to another format: reads the base source's frames and converts them (channels, then rate)
/// with an `AudioConverter`, keeping the surplus for the next read so every frame has the length asked for.
public struct ConvertingSource<Base: AudioSource>: AudioSource {
    /// The source read from.
    public private(set) var base: Base
    public let format: AudioFormat
    private var converter: AudioConverter
    /// Converted samples not yet returned.
    private var pending: [Int16] = []
    private var isBaseFinished = false

    /// - Parameters:
    ///   - base: the source to read from.
    ///   - format: the format wanted.
    public init(_ base: Base, format: AudioFormat) {
        self.base = base
        self.format = format
        self.converter = AudioConverter(from: base.format, to: format)
    }

    public mutating func read(samplesPerChannel: Int) throws(AudioIOError) -> [Int16]? {
        let wanted = max(0, samplesPerChannel) * format.channels
        if converter.isPassthrough && pending.isEmpty { return try base.read(samplesPerChannel: samplesPerChannel) }
        while pending.count < wanted && !isBaseFinished {
            // Ask for about as many input frames as one output frame needs.
            let rate = max(1, format.sampleRate)
            let needed = (samplesPerChannel * base.format.sampleRate + rate - 1) / rate
            guard let block = try base.read(samplesPerChannel: max(needed, 1)) else {
                isBaseFinished = true
                break
            }
            pending.append(contentsOf: converter.convert(block))
        }
        if pending.isEmpty && isBaseFinished { return nil }
        var frame = Array(pending.prefix(wanted))
        pending.removeFirst(frame.count)
        if frame.count < wanted { frame.append(contentsOf: repeatElement(0, count: wanted - frame.count)) }
        return frame
    }
}

/// Adapts a sink to another format: converts each frame written (channels, then rate) to the base sink's
/// format.
public struct ConvertingSink<Base: AudioSink>: AudioSink {
    /// The sink written to.
    public private(set) var base: Base
    public let format: AudioFormat
    private var converter: AudioConverter

    /// - Parameters:
    ///   - base: the sink to write to.
    ///   - format: the format of the frames that will be written.
    public init(_ base: Base, format: AudioFormat) {
        self.base = base
        self.format = format
        self.converter = AudioConverter(from: format, to: base.format)
    }

    public mutating func write(_ samples: [Int16]) throws(AudioIOError) {
        let converted = converter.convert(samples)
        if !converted.isEmpty { try base.write(converted) }
    }
}
