/// Turns 20 ms frames of mono PCM16 at `format.sampleRate` into RTP payloads.
///
/// A media session pulls one frame from its source every packet interval, converted to `format`, encodes it
/// and hands the payload to the packetizer, advancing the RTP timestamp by `timestampIncrement`.
public protocol AudioEncoder {
    /// The PCM format the encoder takes: mono at the codec's rate (8 kHz for G.711, 48 kHz for Opus).
    var format: AudioFormat { get }
    /// Samples per frame (per packet): 160 for 20 ms of G.711, 960 for 20 ms of Opus.
    var samplesPerFrame: Int { get }
    /// RTP clock ticks per frame (RFC 3550 §5.1): equal to `samplesPerFrame` for G.711 and for Opus, whose
    /// RTP clock is always 48 kHz (RFC 7587 §4.1).
    var timestampIncrement: UInt32 { get }

    /// Encodes one frame.
    /// - Parameter pcm: exactly `samplesPerFrame` mono samples.
    /// - Returns: the RTP payload.
    /// - Throws: `AudioCodecError` when the frame has the wrong length or the codec fails.
    mutating func encode(_ pcm: [Int16]) throws(AudioCodecError) -> [UInt8]
}

/// Turns RTP payloads back into mono PCM16 at `format.sampleRate`, and conceals lost packets.
///
/// The jitter buffer calls `decode(_:)` for each packet in playout order and `concealLoss(next:)` for each
/// packet that is missing when its playout time comes, passing the next packet when it has already arrived so
/// that a codec with in-band FEC (Opus) can rebuild the lost one from it.
public protocol AudioDecoder {
    /// The PCM format the decoder produces: mono at the codec's rate.
    var format: AudioFormat { get }

    /// Decodes one payload.
    /// - Parameter payload: the RTP payload (a slice of the received packet is fine).
    /// - Returns: the decoded samples: as long as the packet (G.711: one sample per byte; Opus: the packet's
    ///   duration, 960 for 20 ms).
    /// - Throws: `AudioCodecError.invalidPayload` for a payload the codec cannot read; the caller conceals it
    ///   as a loss.
    mutating func decode(_ payload: ArraySlice<UInt8>) throws(AudioCodecError) -> [Int16]

    /// Produces audio for one lost packet: FEC from `next` when the codec can (Opus), else concealment
    /// (Opus PLC; G.711 repetition of the last frame with a fade to silence).
    /// - Parameter next: the payload of the packet after the lost one, when it has arrived.
    /// - Returns: one frame: as long as the last decoded packet.
    mutating func concealLoss(next: ArraySlice<UInt8>?) -> [Int16]
}

extension AudioDecoder {
    /// Decodes one payload given as an array.
    /// - Parameter payload: the RTP payload.
    public mutating func decode(_ payload: [UInt8]) throws(AudioCodecError) -> [Int16] {
        try decode(payload[...])
    }
}

/// An error from an audio encoder or decoder. A struct over a private code, so new cases do not break users.
public struct AudioCodecError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case invalidFrameLength(expected: Int, actual: Int)
        case invalidPayload(String)
        case unsupportedCodec(String)
        case invalidConfiguration(String)
        case library(function: String, code: Int32)
    }

    private let code: Code

    /// A PCM frame given to an encoder has the wrong number of samples.
    /// - Parameters:
    ///   - expected: the samples per frame the encoder takes.
    ///   - actual: the samples given.
    public static func invalidFrameLength(expected: Int, actual: Int) -> AudioCodecError {
        AudioCodecError(code: .invalidFrameLength(expected: expected, actual: actual))
    }

    /// A payload the decoder cannot read (empty, truncated, corrupt).
    /// - Parameter reason: what is wrong with it.
    public static func invalidPayload(_ reason: String) -> AudioCodecError {
        AudioCodecError(code: .invalidPayload(reason))
    }

    /// A negotiated codec this library has no implementation for.
    /// - Parameter name: the encoding name and rate, as negotiated.
    public static func unsupportedCodec(_ name: String) -> AudioCodecError {
        AudioCodecError(code: .unsupportedCodec(name))
    }

    /// A configuration value out of range (bitrate, loss percentage, ...).
    /// - Parameter reason: which value and its range.
    public static func invalidConfiguration(_ reason: String) -> AudioCodecError {
        AudioCodecError(code: .invalidConfiguration(reason))
    }

    /// A codec library call failed.
    /// - Parameters:
    ///   - function: the C function.
    ///   - code: the library's error code (libopus: `OPUS_*`, negative).
    public static func library(function: String, code: Int32) -> AudioCodecError {
        AudioCodecError(code: .library(function: function, code: code))
    }

    /// True for `invalidPayload`: the packet is to be concealed as a loss.
    public var isInvalidPayload: Bool {
        if case .invalidPayload = code { return true }
        return false
    }

    public var description: String {
        switch code {
        case .invalidFrameLength(let expected, let actual):
            "PCM frame of \(actual) samples, the encoder takes \(expected)"
        case .invalidPayload(let reason): "invalid payload: \(reason)"
        case .unsupportedCodec(let name): "unsupported codec \(name)"
        case .invalidConfiguration(let reason): "invalid codec configuration: \(reason)"
        case .library(let function, let code): "\(function) failed with \(code)"
        }
    }
}
