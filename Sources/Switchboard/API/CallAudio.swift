/// Where a call's audio comes from and where the other side's audio goes.
///
/// Set a default in `CallProviderConfiguration.audio`, or per call with `CallProvider.setAudio(_:for:)`
/// (from the invite callback or right after starting a call, before audio is activated). Frames are 20 ms
/// of mono 16-bit PCM at `sampleRate`; the media session converts to and from the codec's rate. Callbacks
/// run on the media loop every 20 ms: they must return quickly and never block.
public struct CallAudio: Sendable {
    /// The audio this side sends.
    public enum Input: Sendable {
        /// Silence (comfort for bots that only listen).
        case silence
        /// A sine tone at `frequency` hertz, `level` dBFS (-10 by default).
        case tone(frequency: Double, level: Double = -10)
        /// A WAV file (16-bit PCM, any rate, mono or stereo); `loops` plays it again from the start at its
        /// end, otherwise silence follows.
        case file(path: String, loops: Bool = false)
        /// Frames from the app: called with the number of samples wanted (one 20 ms frame at
        /// `sampleRate`); returns them, or `nil` for silence.
        case samples(@Sendable (_ count: Int) -> [Int16]?)
    }

    /// Where the other side's audio goes.
    public enum Output: Sendable {
        /// Nowhere (the call's quality figures are still measured).
        case discard
        /// A WAV file (16-bit PCM mono at `sampleRate`), rewritten as it grows so it stays readable.
        case file(path: String)
        /// Each decoded 20 ms frame at `sampleRate`, concealment included, in playout order.
        case samples(@Sendable (_ frame: [Int16]) -> Void)
    }

    /// The audio sent.
    public var input: Input
    /// The audio received.
    public var output: Output
    /// The sample rate of files written and of callback frames: 8000, 16000 or 48000 hertz; `nil` (the
    /// default) means the codec's own rate (8 kHz for G.711, 48 kHz for Opus), with no resampling.
    public var sampleRate: Int?

    /// Audio from its parts.
    public init(input: Input = .silence, output: Output = .discard, sampleRate: Int? = nil) {
        self.input = input
        self.output = output
        self.sampleRate = sampleRate
    }
}
