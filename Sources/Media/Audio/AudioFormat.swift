/// The shape of a stream of PCM16 samples: a sample rate and a channel count. Frames of several channels are
/// interleaved (left, right, left, right, ...).
public struct AudioFormat: Sendable, Hashable, CustomStringConvertible {
    /// Samples per second per channel, in Hz (8000, 16000, 44100, 48000, ...).
    public var sampleRate: Int
    /// Channels per frame, 1 (mono) or 2 (stereo).
    public var channels: Int

    /// - Parameters:
    ///   - sampleRate: samples per second per channel, in Hz.
    ///   - channels: channels per frame, 1 by default.
    public init(sampleRate: Int, channels: Int = 1) {
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// 8 kHz mono: G.711's rate (RFC 3551 §4.5.14).
    public static let narrowband = AudioFormat(sampleRate: 8000)
    /// 16 kHz mono: wideband speech.
    public static let wideband = AudioFormat(sampleRate: 16000)
    /// 48 kHz mono: the rate of the Opus codec here (RFC 7587 §4.1).
    public static let fullband = AudioFormat(sampleRate: 48000)

    /// Samples per channel in `milliseconds` of audio (160 for 20 ms at 8 kHz).
    /// - Parameter milliseconds: a duration in milliseconds.
    public func samplesPerChannel(milliseconds: Int) -> Int { sampleRate * milliseconds / 1000 }

    /// Interleaved samples (all channels) in `milliseconds` of audio.
    /// - Parameter milliseconds: a duration in milliseconds.
    public func sampleCount(milliseconds: Int) -> Int { samplesPerChannel(milliseconds: milliseconds) * channels }

    /// True when the rate is positive and the channel count is 1 or 2.
    public var isValid: Bool { sampleRate > 0 && sampleRate <= 768_000 && (1...2).contains(channels) }

    public var description: String { "\(sampleRate) Hz \(channels == 1 ? "mono" : "\(channels) ch")" }
}
