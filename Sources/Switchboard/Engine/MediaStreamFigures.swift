import Media
import SDP

/// The part of a stream's `MediaSessionStatistics` that a call's `CallQuality` is made from, published by the
/// media loop after every step for the signalling side to read: kept small, since every stream holds one.
struct MediaStreamFigures: Sendable {
    var packetsSent: UInt32 = 0
    var packetsReceived: UInt32 = 0
    var packetsLost: Int32 = 0
    var expected: UInt32 = 0
    var jitterMilliseconds = 0.0
    var playoutDelayMilliseconds = 0.0
    var roundTripMilliseconds: Double?
    var codec: AudioCodecKind?

    init() {}

    init(_ statistics: MediaSessionStatistics) { self.init(MediaSessionQuality(statistics)) }

    init(_ statistics: MediaSessionQuality) {
        packetsSent = UInt32(truncatingIfNeeded: statistics.packetsSent)
        packetsReceived = UInt32(truncatingIfNeeded: statistics.packetsReceived)
        packetsLost = Int32(clamping: statistics.packetsLost)
        expected = UInt32(truncatingIfNeeded: statistics.expected)
        jitterMilliseconds = statistics.jitterMilliseconds
        playoutDelayMilliseconds = statistics.playoutDelayMilliseconds
        roundTripMilliseconds = statistics.roundTripMilliseconds
        codec = statistics.codec.flatMap(Self.codec(named:))
    }

    /// The codec whose SDP encoding name is `name`, in any case. The names as we write them are matched
    /// first: this runs with every publication of a stream's figures.
    private static func codec(named name: String) -> AudioCodecKind? {
        switch name {
        case "PCMU": return .pcmu
        case "PCMA": return .pcma
        case "opus": return .opus
        default: return AudioCodecKind.allCases.first { $0.sdpCodec.encodingName.lowercased() == name.lowercased() }
        }
    }

    /// The share of expected packets lost, 0...1 (RFC 3550 A.3).
    var lossFraction: Double { expected > 0 ? Double(max(0, packetsLost)) / Double(expected) : 0 }
}
