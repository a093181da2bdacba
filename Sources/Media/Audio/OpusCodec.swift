import COpus

/// An Opus encoder (RFC 6716) over libopus: mono, 48 kHz, VoIP application, in-band FEC as configured.
///
/// The packets are valid for any RFC 7587 peer: the SDP always says `opus/48000/2`, and a mono stream is what
/// `stereo=0` asks for. Owns the libopus encoder state and frees it in `deinit`.
public final class OpusEncoder: AudioEncoder {
    public let format = AudioFormat.fullband
    public let samplesPerFrame: Int
    public var timestampIncrement: UInt32 { UInt32(samplesPerFrame) }
    /// The configuration in effect.
    public private(set) var configuration: OpusConfiguration

    /// The libopus encoder; only this object holds it.
    private let handle: OpaquePointer
    /// Output space for one packet: RFC 6716 §3.2.1 caps a frame at 1275 bytes, a 60 ms packet at 3 of them.
    private var packet = [UInt8](repeating: 0, count: 4000)

    /// Creates an encoder.
    /// - Parameter configuration: bitrate, loss percentage, FEC, bandwidth and packet time.
    /// - Throws: `AudioCodecError` for a value out of range or a libopus failure.
    public init(configuration: OpusConfiguration = OpusConfiguration()) throws(AudioCodecError) {
        try configuration.validate()
        // Everything that can fail happens before `self` is complete, so a failure never runs `deinit`.
        var error: Int32 = OPUS_OK
        guard let encoder = opus_encoder_create(48000, 1, OPUS_APPLICATION_VOIP, &error), error == OPUS_OK else {
            throw .library(function: "opus_encoder_create", code: error)
        }
        do {
            try OpusEncoder.apply(configuration, to: encoder)
            _ = sb_opus_encoder_set_signal(encoder, OPUS_SIGNAL_VOICE)
        } catch {
            opus_encoder_destroy(encoder)
            throw error
        }
        self.handle = encoder
        self.configuration = configuration
        self.samplesPerFrame = configuration.samplesPerFrame
    }

    deinit { opus_encoder_destroy(handle) }

    public func encode(_ pcm: [Int16]) throws(AudioCodecError) -> [UInt8] {
        guard pcm.count == samplesPerFrame else {
            throw .invalidFrameLength(expected: samplesPerFrame, actual: pcm.count)
        }
        let capacity = Int32(packet.count)
        let frameSize = Int32(samplesPerFrame)
        let handle = self.handle
        let length = pcm.withUnsafeBufferPointer { input in
            packet.withUnsafeMutableBufferPointer { output in
                guard let input = input.baseAddress, let output = output.baseAddress else { return OPUS_BAD_ARG }
                return opus_encode(handle, input, frameSize, output, capacity)
            }
        }
        guard length > 0 else { throw .library(function: "opus_encode", code: length) }
        return Array(packet[0..<Int(length)])
    }

    /// Changes the target bitrate, e.g. after the peer's RTCP reports.
    /// - Parameter bitrate: bits per second, 6000...510000.
    public func setBitrate(_ bitrate: Int) throws(AudioCodecError) {
        var updated = configuration
        updated.bitrate = bitrate
        try reconfigure(updated)
    }

    /// Changes the expected packet loss, which sets how much FEC each packet carries.
    /// - Parameter percentage: 0...100.
    public func setPacketLossPercentage(_ percentage: Int) throws(AudioCodecError) {
        var updated = configuration
        updated.packetLossPercentage = percentage
        try reconfigure(updated)
    }

    private func reconfigure(_ updated: OpusConfiguration) throws(AudioCodecError) {
        try updated.validate()
        guard updated.packetTime == configuration.packetTime else {
            throw .invalidConfiguration("the packet time of a running encoder cannot change")
        }
        try OpusEncoder.apply(updated, to: handle)
        configuration = updated
    }

    private static func apply(_ configuration: OpusConfiguration, to encoder: OpaquePointer) throws(AudioCodecError) {
        func check(_ result: Int32, _ name: String) throws(AudioCodecError) {
            guard result == OPUS_OK else { throw .library(function: "opus_encoder_ctl(\(name))", code: result) }
        }
        try check(sb_opus_encoder_set_bitrate(encoder, Int32(configuration.bitrate)), "OPUS_SET_BITRATE")
        try check(
            sb_opus_encoder_set_inband_fec(encoder, configuration.isInBandFECEnabled ? 1 : 0), "OPUS_SET_INBAND_FEC")
        try check(
            sb_opus_encoder_set_packet_loss_perc(encoder, Int32(configuration.packetLossPercentage)),
            "OPUS_SET_PACKET_LOSS_PERC")
        try check(
            sb_opus_encoder_set_max_bandwidth(encoder, OpusEncoder.bandwidthConstant(configuration.maxBandwidth)),
            "OPUS_SET_MAX_BANDWIDTH")
        try check(sb_opus_encoder_set_vbr(encoder, configuration.isConstantBitrate ? 0 : 1), "OPUS_SET_VBR")
        try check(sb_opus_encoder_set_dtx(encoder, configuration.isDTXEnabled ? 1 : 0), "OPUS_SET_DTX")
        if let complexity = configuration.complexity {
            try check(sb_opus_encoder_set_complexity(encoder, Int32(complexity)), "OPUS_SET_COMPLEXITY")
        }
    }

    private static func bandwidthConstant(_ bandwidth: OpusBandwidth) -> Int32 {
        switch bandwidth {
        case .narrowband: OPUS_BANDWIDTH_NARROWBAND
        case .mediumband: OPUS_BANDWIDTH_MEDIUMBAND
        case .wideband: OPUS_BANDWIDTH_WIDEBAND
        case .superWideband: OPUS_BANDWIDTH_SUPERWIDEBAND
        case .fullband: OPUS_BANDWIDTH_FULLBAND
        }
    }
}

/// An Opus decoder over libopus, created mono at 48 kHz: stereo packets from a peer are downmixed by libopus
/// (RFC 7587 §3.4), so `opus/48000/2` signalling needs nothing more. Loss is concealed with libopus' PLC, or
/// rebuilt from the next packet's in-band FEC when that packet has arrived. Owns the libopus decoder state and
/// frees it in `deinit`.
public final class OpusDecoder: AudioDecoder {
    public let format = AudioFormat.fullband

    /// The libopus decoder; only this object holds it.
    private let handle: OpaquePointer
    /// Space for the longest packet: 120 ms at 48 kHz (RFC 6716 §3.2.5).
    private var pcm = [Int16](repeating: 0, count: 5760)
    /// The duration of the last packet, in samples: the length of a concealed frame.
    private var lastPacketSamples: Int

    /// Creates a decoder.
    /// - Parameter packetTime: the expected milliseconds per packet (20 by default): the length of a concealed
    ///   frame before the first packet has been decoded.
    /// - Throws: `AudioCodecError` when libopus fails.
    public init(packetTime: Int = 20) throws(AudioCodecError) {
        var error: Int32 = OPUS_OK
        guard let decoder = opus_decoder_create(48000, 1, &error), error == OPUS_OK else {
            throw .library(function: "opus_decoder_create", code: error)
        }
        self.handle = decoder
        // A concealed frame is a whole number of 2.5 ms (120 samples), as opus_decode requires.
        self.lastPacketSamples = max(1, 48 * min(max(packetTime, 10), 120) / 120) * 120
    }

    deinit { opus_decoder_destroy(handle) }

    public func decode(_ payload: ArraySlice<UInt8>) throws(AudioCodecError) -> [Int16] {
        let samples = try OpusDecoder.duration(of: payload)
        let decoded = run(payload, frameSize: samples, isFEC: false)
        guard decoded > 0 else {
            throw .invalidPayload("opus_decode failed with \(decoded)")
        }
        lastPacketSamples = decoded
        return Array(pcm[0..<decoded])
    }

    /// Decodes one payload given as an array.
    /// - Parameter payload: the RTP payload.
    public func decode(_ payload: [UInt8]) throws(AudioCodecError) -> [Int16] { try decode(payload[...]) }

    public func concealLoss(next: ArraySlice<UInt8>?) -> [Int16] {
        let frameSize = lastPacketSamples
        // FEC: the next packet carries a coarse copy of the lost one; libopus falls back to PLC by itself when
        // the packet has none.
        if let next, (try? OpusDecoder.duration(of: next)) != nil {
            let decoded = run(next, frameSize: frameSize, isFEC: true)
            if decoded == frameSize { return Array(pcm[0..<decoded]) }
        }
        let decoded = run(nil, frameSize: frameSize, isFEC: false)
        guard decoded == frameSize else { return Array(repeating: 0, count: frameSize) }
        return Array(pcm[0..<decoded])
    }

    /// Resets the decoder, e.g. after the peer's SSRC changed.
    public func reset() { _ = sb_opus_decoder_reset_state(handle) }

    /// The samples in a packet at 48 kHz, after checking its table of contents (RFC 6716 §3.1).
    private static func duration(of payload: ArraySlice<UInt8>) throws(AudioCodecError) -> Int {
        guard !payload.isEmpty else { throw .invalidPayload("empty Opus payload") }
        guard payload.count <= 1275 * 48 else { throw .invalidPayload("Opus payload of \(payload.count) bytes") }
        let samples = payload.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return OPUS_BAD_ARG }
            return opus_packet_get_nb_samples(base, Int32(bytes.count), 48000)
        }
        guard samples > 0, samples <= 5760 else {
            throw .invalidPayload("Opus table of contents gives \(samples)")
        }
        return Int(samples)
    }

    /// Calls opus_decode into `pcm`; returns its result (samples or a negative error).
    private func run(_ payload: ArraySlice<UInt8>?, frameSize: Int, isFEC: Bool) -> Int {
        let handle = self.handle
        let result = pcm.withUnsafeMutableBufferPointer { output -> Int32 in
            guard let output = output.baseAddress else { return OPUS_BAD_ARG }
            guard let payload else { return opus_decode(handle, nil, 0, output, Int32(frameSize), 0) }
            return payload.withUnsafeBufferPointer { bytes in
                opus_decode(handle, bytes.baseAddress, Int32(bytes.count), output, Int32(frameSize), isFEC ? 1 : 0)
            }
        }
        return Int(result)
    }
}
