import SDP

/// The audio bandwidth an Opus encoder may use (RFC 6716 §2): the top of the coded band.
public enum OpusBandwidth: Int, Sendable, Hashable, CaseIterable, Comparable {
    /// 4 kHz (8 kHz sampling).
    case narrowband = 8000
    /// 6 kHz (12 kHz sampling).
    case mediumband = 12000
    /// 8 kHz (16 kHz sampling).
    case wideband = 16000
    /// 12 kHz (24 kHz sampling).
    case superWideband = 24000
    /// 20 kHz (48 kHz sampling).
    case fullband = 48000

    /// The widest bandwidth a receiver playing back at `rate` Hz can use (RFC 7587 §6.1, `maxplaybackrate`).
    /// - Parameter rate: the receiver's maximum playback rate in Hz.
    public init(maxPlaybackRate rate: Int) {
        self = OpusBandwidth.allCases.last { $0.rawValue <= rate } ?? .narrowband
    }

    public static func < (lhs: OpusBandwidth, rhs: OpusBandwidth) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// How an `OpusEncoder` encodes: mono at 48 kHz, VoIP application, in-band FEC on, 20 ms frames.
public struct OpusConfiguration: Sendable, Hashable {
    /// The target bitrate in bits per second, 6000...510000 (32000 by default: wideband speech with room for
    /// FEC).
    public var bitrate: Int
    /// The expected packet loss in percent, 0...100: how much redundancy the in-band FEC carries (10 by default).
    public var packetLossPercentage: Int
    /// True to send in-band FEC (LBRR) data for the previous frame in each packet (on by default).
    public var isInBandFECEnabled: Bool
    /// The widest audio bandwidth to encode (full band by default; lowered by the peer's `maxplaybackrate`).
    public var maxBandwidth: OpusBandwidth
    /// Milliseconds of audio per packet: 10, 20, 40 or 60 (20 by default).
    public var packetTime: Int
    /// Encoder complexity 0...10 (libopus' default 10 when `nil`).
    public var complexity: Int?
    /// True for constant bitrate (`cbr=1` from the peer); variable by default.
    public var isConstantBitrate: Bool
    /// True for discontinuous transmission in silence (`usedtx=1` from the peer); off by default.
    public var isDTXEnabled: Bool

    /// - Parameters:
    ///   - bitrate: bits per second, 32000 by default.
    ///   - packetLossPercentage: expected loss in percent, 10 by default.
    ///   - isInBandFECEnabled: in-band FEC, on by default.
    ///   - maxBandwidth: the widest bandwidth, full band by default.
    ///   - packetTime: milliseconds per packet, 20 by default.
    ///   - complexity: 0...10, or `nil` for libopus' default.
    ///   - isConstantBitrate: constant bitrate, off by default.
    ///   - isDTXEnabled: discontinuous transmission, off by default.
    public init(
        bitrate: Int = 32000, packetLossPercentage: Int = 10, isInBandFECEnabled: Bool = true,
        maxBandwidth: OpusBandwidth = .fullband, packetTime: Int = 20, complexity: Int? = nil,
        isConstantBitrate: Bool = false, isDTXEnabled: Bool = false
    ) {
        self.bitrate = bitrate
        self.packetLossPercentage = packetLossPercentage
        self.isInBandFECEnabled = isInBandFECEnabled
        self.maxBandwidth = maxBandwidth
        self.packetTime = packetTime
        self.complexity = complexity
        self.isConstantBitrate = isConstantBitrate
        self.isDTXEnabled = isDTXEnabled
    }

    /// Samples per packet at 48 kHz (960 for 20 ms).
    public var samplesPerFrame: Int { 48 * packetTime }

    /// Applies the receive parameters the peer declared in its fmtp (RFC 7587 §6.1): `maxaveragebitrate` caps
    /// the bitrate, `maxplaybackrate` (and `sprop-maxcapturerate` is ignored: it describes the peer's sending)
    /// caps the bandwidth, `cbr` and `usedtx` switch those modes. `stereo` is ignored: we always encode mono,
    /// which every Opus decoder accepts. Unknown or malformed parameters are ignored.
    /// - Parameter formatParameters: the peer's fmtp parameter string, e.g. `maxplaybackrate=16000;cbr=1`.
    public mutating func applyRemoteFormatParameters(_ formatParameters: String?) {
        guard let formatParameters else { return }
        let fmtp = FormatParameters(format: "", parameterString: formatParameters)
        if let text = fmtp.value(of: "maxaveragebitrate"), let cap = Int(text), (6000...510_000).contains(cap) {
            bitrate = min(bitrate, cap)
        }
        if let text = fmtp.value(of: "maxplaybackrate"), let rate = Int(text), rate > 0 {
            maxBandwidth = min(maxBandwidth, OpusBandwidth(maxPlaybackRate: rate))
        }
        if let text = fmtp.value(of: "cbr") { isConstantBitrate = text == "1" }
        if let text = fmtp.value(of: "usedtx") { isDTXEnabled = text == "1" }
    }

    /// Checks every value against its range.
    /// - Throws: `AudioCodecError.invalidConfiguration` naming the first value out of range.
    public func validate() throws(AudioCodecError) {
        guard (6000...510_000).contains(bitrate) else {
            throw .invalidConfiguration("bitrate \(bitrate) is outside 6000...510000")
        }
        guard (0...100).contains(packetLossPercentage) else {
            throw .invalidConfiguration("packet loss \(packetLossPercentage)% is outside 0...100")
        }
        guard [10, 20, 40, 60].contains(packetTime) else {
            throw .invalidConfiguration("packet time \(packetTime) ms is not 10, 20, 40 or 60")
        }
        if let complexity, !(0...10).contains(complexity) {
            throw .invalidConfiguration("complexity \(complexity) is outside 0...10")
        }
    }
}
