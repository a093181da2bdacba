#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A sine tone at a fixed frequency and level, endless, with its phase continuous from frame to frame.
public struct ToneSource: AudioSource, Sendable {
    public let format: AudioFormat
    /// The frequency in Hz.
    public let frequency: Double
    /// The peak level in dBFS: 0 is a full-scale sine (peak 32767), -6 half of it.
    public let level: Double
    /// The phase of the next sample, in cycles (0..<1).
    private var phase = 0.0

    /// - Parameters:
    ///   - frequency: the frequency in Hz.
    ///   - level: the peak level in dBFS, -10 by default.
    ///   - format: the output format, 8 kHz mono by default.
    public init(frequency: Double, level: Double = -10, format: AudioFormat = .narrowband) {
        self.frequency = frequency.isFinite ? frequency : 0
        self.level = level.isFinite ? min(level, 0) : -.infinity
        self.format = format
    }

    public mutating func read(samplesPerChannel: Int) -> [Int16]? {
        let amplitude = 32767 * pow(10, level / 20)
        let step = frequency / Double(max(1, format.sampleRate))
        let count = max(0, samplesPerChannel)
        var samples = [Int16](repeating: 0, count: count * format.channels)
        for i in 0..<count {
            let value = Int16(clamping: Int((amplitude * sin(2 * Double.pi * phase)).rounded()))
            for channel in 0..<format.channels { samples[i * format.channels + channel] = value }
            phase += step
            phase -= phase.rounded(.down)
        }
        return samples
    }
}

/// Endless digital silence.
public struct SilenceSource: AudioSource, Sendable {
    public let format: AudioFormat

    /// - Parameter format: the output format, 8 kHz mono by default.
    public init(format: AudioFormat = .narrowband) { self.format = format }

    public func read(samplesPerChannel: Int) -> [Int16]? {
        Array(repeating: 0, count: max(0, samplesPerChannel) * format.channels)
    }
}

/// A source whose frames come from a closure: for bots, speech synthesis and tests.
public struct CallbackSource: AudioSource, Sendable {
    public let format: AudioFormat
    private let produce: @Sendable (Int) -> [Int16]?

    /// - Parameters:
    ///   - format: the format of the frames the closure returns.
    ///   - produce: given the samples per channel wanted, returns the next frame or `nil` when done. A
    ///     shorter frame is padded with silence, a longer one cut.
    public init(format: AudioFormat, produce: @escaping @Sendable (_ samplesPerChannel: Int) -> [Int16]?) {
        self.format = format
        self.produce = produce
    }

    public func read(samplesPerChannel: Int) -> [Int16]? {
        guard var frame = produce(samplesPerChannel) else { return nil }
        let wanted = max(0, samplesPerChannel) * format.channels
        if frame.count > wanted { frame.removeLast(frame.count - wanted) }
        if frame.count < wanted { frame.append(contentsOf: repeatElement(0, count: wanted - frame.count)) }
        return frame
    }
}

/// A sink that hands each frame to a closure: for bots, speech recognition and tests.
public struct CallbackSink: AudioSink, Sendable {
    public let format: AudioFormat
    private let consume: @Sendable ([Int16]) -> Void

    /// - Parameters:
    ///   - format: the format of the frames the closure receives.
    ///   - consume: called with each frame written.
    public init(format: AudioFormat, consume: @escaping @Sendable (_ samples: [Int16]) -> Void) {
        self.format = format
        self.consume = consume
    }

    public func write(_ samples: [Int16]) { consume(samples) }
}

/// A sink that discards everything (counting what it was given).
public struct NullSink: AudioSink, Sendable {
    public let format: AudioFormat
    /// Samples written so far (all channels).
    public private(set) var samplesWritten = 0

    /// - Parameter format: the format it claims to take, 8 kHz mono by default.
    public init(format: AudioFormat = .narrowband) { self.format = format }

    public mutating func write(_ samples: [Int16]) { samplesWritten += samples.count }
}
