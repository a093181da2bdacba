public import SDP

/// The audio codecs this library implements, and the bridge from SDP negotiation to encoders and decoders.
public enum AudioCodecKind: Sendable, Hashable, CaseIterable {
    /// G.711 μ-law, `PCMU/8000`.
    case pcmu
    /// G.711 A-law, `PCMA/8000`.
    case pcma
    /// Opus, `opus/48000/2` (RFC 7587).
    case opus

    /// The codec for an encoding name (ignoring case) and clock rate, as in an a=rtpmap; `nil` for any other.
    /// - Parameters:
    ///   - encodingName: `PCMU`, `PCMA` or `opus`.
    ///   - clockRate: 8000 for G.711, 48000 for Opus.
    public init?(encodingName: String, clockRate: UInt32) {
        switch (encodingName.lowercased(), clockRate) {
        case ("pcmu", 8000): self = .pcmu
        case ("pcma", 8000): self = .pcma
        case ("opus", 48000): self = .opus
        default: return nil
        }
    }

    /// The codec of a negotiated SDP codec; `nil` for telephone-event and codecs not implemented here.
    /// - Parameter codec: a codec from `NegotiatedSession`.
    public init?(_ codec: NegotiatedSession.NegotiatedCodec) {
        self.init(encodingName: codec.encodingName, clockRate: codec.clockRate)
    }

    /// The SDP codec description we offer for it (SDP's `Codec.pcmu`, `.pcma`, `.opus()`).
    public var sdpCodec: Codec {
        switch self {
        case .pcmu: .pcmu
        case .pcma: .pcma
        case .opus: .opus()
        }
    }

    /// The E-model constants for it.
    public var impairment: EModel.CodecImpairment {
        switch self {
        case .pcmu, .pcma: .g711
        case .opus: .opus
        }
    }

    /// Creates an encoder.
    /// - Parameters:
    ///   - remoteFormatParameters: the peer's fmtp (its receive parameters), applied to Opus.
    ///   - packetTime: milliseconds per packet, 20 by default (the peer's a=ptime when it gave one). Opus takes
    ///     the longest of 10, 20, 40 and 60 ms that is not longer (10 below that).
    ///   - opus: the Opus settings before the peer's parameters are applied.
    /// - Throws: `AudioCodecError` when the Opus configuration is invalid or libopus fails.
    public func makeEncoder(
        remoteFormatParameters: String? = nil, packetTime: Int = 20, opus: OpusConfiguration = OpusConfiguration()
    ) throws(AudioCodecError) -> any AudioEncoder {
        switch self {
        case .pcmu: return G711Encoder(law: .muLaw, packetTime: packetTime)
        case .pcma: return G711Encoder(law: .aLaw, packetTime: packetTime)
        case .opus:
            var configuration = opus
            configuration.packetTime = [60, 40, 20, 10].first { $0 <= packetTime } ?? 10
            configuration.applyRemoteFormatParameters(remoteFormatParameters)
            return try OpusEncoder(configuration: configuration)
        }
    }

    /// Creates a decoder.
    /// - Parameter packetTime: the expected milliseconds per packet, 20 by default.
    /// - Throws: `AudioCodecError` when libopus fails.
    public func makeDecoder(packetTime: Int = 20) throws(AudioCodecError) -> any AudioDecoder {
        switch self {
        case .pcmu: G711Decoder(law: .muLaw, packetTime: packetTime)
        case .pcma: G711Decoder(law: .aLaw, packetTime: packetTime)
        case .opus: try OpusDecoder(packetTime: packetTime)
        }
    }
}
