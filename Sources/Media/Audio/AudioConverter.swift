/// Converts a stream of interleaved PCM16 from one `AudioFormat` to another: channels first (stereo to mono
/// by averaging, mono to stereo by copying), then the rate with one `Resampler` per channel. Streaming: the
/// output of each call continues the previous one's.
public struct AudioConverter: Sendable {
    /// The format of the samples given to `convert(_:)`.
    public let input: AudioFormat
    /// The format of the samples it returns.
    public let output: AudioFormat
    /// One per channel resampled (the lower of the two channel counts); empty when the rates are equal.
    private var resamplers: [Resampler]

    /// - Parameters:
    ///   - input: the format of the samples given.
    ///   - output: the format wanted.
    public init(from input: AudioFormat, to output: AudioFormat) {
        self.input = input
        self.output = output
        let channels = min(input.channels, output.channels)
        resamplers =
            input.sampleRate == output.sampleRate
            ? []
            : (0..<max(1, channels)).map { _ in
                Resampler(inputRate: input.sampleRate, outputRate: output.sampleRate)
            }
    }

    /// True when the formats are equal and samples pass through unchanged.
    public var isPassthrough: Bool { input == output }

    /// Converts the next block.
    /// - Parameter samples: interleaved samples in `input` format (a whole number of frames).
    /// - Returns: interleaved samples in `output` format.
    public mutating func convert(_ samples: [Int16]) -> [Int16] {
        if isPassthrough { return samples }
        let mixed = AudioConverter.mix(samples, from: input.channels, to: min(input.channels, output.channels))
        let resampled: [Int16]
        if resamplers.isEmpty {
            resampled = mixed
        } else if resamplers.count == 1 {
            resampled = resamplers[0].process(mixed)
        } else {
            resampled = resampleInterleaved(mixed)
        }
        return AudioConverter.mix(resampled, from: min(input.channels, output.channels), to: output.channels)
    }

    private mutating func resampleInterleaved(_ samples: [Int16]) -> [Int16] {
        let channels = resamplers.count
        let frames = samples.count / channels
        var outputs: [[Int16]] = []
        for channel in 0..<channels {
            var plane = [Int16](repeating: 0, count: frames)
            for frame in 0..<frames { plane[frame] = samples[frame * channels + channel] }
            outputs.append(resamplers[channel].process(plane))
        }
        let count = outputs.map(\.count).min() ?? 0
        var interleaved = [Int16](repeating: 0, count: count * channels)
        for channel in 0..<channels {
            for frame in 0..<count { interleaved[frame * channels + channel] = outputs[channel][frame] }
        }
        return interleaved
    }

    /// Changes the channel count of interleaved samples: fewer channels by averaging, more by copying the
    /// first (mono to stereo) or cycling.
    /// - Parameters:
    ///   - samples: interleaved samples.
    ///   - from: their channel count.
    ///   - to: the channel count wanted.
    public static func mix(_ samples: [Int16], from: Int, to: Int) -> [Int16] {
        guard from != to, from > 0, to > 0 else { return samples }
        let frames = samples.count / from
        var result = [Int16](repeating: 0, count: frames * to)
        if to < from {
            for frame in 0..<frames {
                let base = frame * from
                var sum = 0
                for channel in 0..<from { sum += Int(samples[base + channel]) }
                let value = Int16(clamping: sum / from)
                for channel in 0..<to { result[frame * to + channel] = value }
            }
        } else {
            for frame in 0..<frames {
                for channel in 0..<to { result[frame * to + channel] = samples[frame * from + channel % from] }
            }
        }
        return result
    }
}
