/// The two G.711 laws, as RTP names them (RFC 3551 §4.5.14: PCMU is μ-law, PCMA is A-law).
public enum G711Law: Sendable, Hashable {
    /// μ-law (PCMU, static payload type 0).
    case muLaw
    /// A-law (PCMA, static payload type 8).
    case aLaw
}

/// A G.711 encoder: one byte per sample at 8 kHz, 160 bytes per 20 ms frame.
///
/// Small enough (at most three words) to be stored inline in an `any AudioEncoder`, so a stream's encoder
/// is no allocation of its own.
public struct G711Encoder: AudioEncoder, Sendable {
    /// The law the encoder writes.
    public let law: G711Law
    public var format: AudioFormat { .narrowband }
    public let samplesPerFrame: Int
    public var timestampIncrement: UInt32 { UInt32(samplesPerFrame) }

    /// - Parameters:
    ///   - law: μ-law or A-law.
    ///   - packetTime: milliseconds of audio per packet, 20 by default (RFC 3551 §4.5.14 allows any; kept in
    ///     1...200).
    public init(law: G711Law, packetTime: Int = 20) {
        self.law = law
        self.samplesPerFrame = AudioFormat.narrowband.samplesPerChannel(milliseconds: min(max(1, packetTime), 200))
    }

    public mutating func encode(_ pcm: [Int16]) throws(AudioCodecError) -> [UInt8] {
        guard pcm.count == samplesPerFrame else {
            throw .invalidFrameLength(expected: samplesPerFrame, actual: pcm.count)
        }
        return G711Encoder.encode(pcm, law: law)
    }

    /// Encodes any number of samples with `law`, one byte per sample.
    /// - Parameters:
    ///   - pcm: 16-bit linear samples.
    ///   - law: μ-law or A-law.
    public static func encode(_ pcm: [Int16], law: G711Law) -> [UInt8] {
        switch law {
        case .muLaw: pcm.map(G711.muLaw)
        case .aLaw: pcm.map(G711.aLaw)
        }
    }
}

/// A G.711 decoder with packet-loss concealment by repetition: a lost packet is replaced by the last good
/// frame, faded linearly so that each further consecutive loss is quieter, reaching silence after
/// `fadeOutFrames` lost frames (80 ms at 20 ms packets by default). The first good packet after a loss is
/// faded in from the concealment's last gain, so neither edge clicks.
///
/// Small enough (at most three words) to be stored inline in an `any AudioDecoder`: every stream holds one
/// for the whole call.
public struct G711Decoder: AudioDecoder, Sendable {
    /// The last decoded (or concealed) frame: what a loss repeats; empty (silence) until the first packet.
    private var lastFrame: [Int16] = []
    /// The gain at the end of the last concealed frame, where the next good frame fades in from.
    private var resumeGain = 1.0
    /// The law the decoder reads.
    public let law: G711Law
    private let fadeOutFrameCount: UInt16
    /// The length of a concealed frame before any packet was decoded.
    private let initialFrameCount: UInt16
    /// Consecutive frames concealed so far, counted up to one past `fadeOutFrames` (silence from there on).
    private var lostFrames: UInt16 = 0

    public var format: AudioFormat { .narrowband }
    /// How many consecutive lost frames fade to silence.
    public var fadeOutFrames: Int { Int(fadeOutFrameCount) }

    /// - Parameters:
    ///   - law: μ-law or A-law.
    ///   - packetTime: milliseconds per packet, 20 by default: the length of a concealed frame before any
    ///     packet has been decoded.
    ///   - fadeOutFrames: consecutive lost frames until silence, 4 by default.
    public init(law: G711Law, packetTime: Int = 20, fadeOutFrames: Int = 4) {
        self.law = law
        fadeOutFrameCount = UInt16(min(max(1, fadeOutFrames), 1000))
        initialFrameCount = UInt16(
            AudioFormat.narrowband.samplesPerChannel(milliseconds: min(max(1, packetTime), 200)))
    }

    public mutating func decode(_ payload: ArraySlice<UInt8>) throws(AudioCodecError) -> [Int16] {
        guard !payload.isEmpty else { throw .invalidPayload("empty G.711 payload") }
        let table = law == .muLaw ? G711.muLawTable : G711.aLawTable
        var frame = payload.map { table[Int($0)] }
        lastFrame = frame
        if lostFrames > 0 {
            // Fade in from where the concealment left off.
            let start = resumeGain
            let count = Double(frame.count)
            for i in frame.indices {
                let gain = start + (1 - start) * Double(i) / count
                frame[i] = Int16(Double(frame[i]) * gain)
            }
            lostFrames = 0
        }
        return frame
    }

    public mutating func concealLoss(next: ArraySlice<UInt8>?) -> [Int16] {
        let step = 1.0 / Double(fadeOutFrames)
        let startGain = max(0, 1 - step * Double(lostFrames))
        let endGain = max(0, startGain - step)
        lostFrames = min(lostFrames + 1, fadeOutFrameCount + 1)
        resumeGain = endGain
        // Before the first packet a loss is silence (no frame is kept for it).
        guard !lastFrame.isEmpty else { return Array(repeating: 0, count: Int(initialFrameCount)) }
        let count = Double(lastFrame.count)
        // The faded copy is returned; the last good frame itself is kept for the next loss.
        var frame = lastFrame
        for i in frame.indices {
            let gain = startGain + (endGain - startGain) * Double(i) / count
            frame[i] = Int16(Double(lastFrame[i]) * gain)
        }
        return frame
    }
}
