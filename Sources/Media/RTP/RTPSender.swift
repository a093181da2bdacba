/// The sending side of one RTP stream (RFC 3550 §5.1, §6.4.1, §8.1): the SSRC, the sequence number and the
/// timestamp, the marker bit on the first packet of each talk-spurt, and the counts a sender report carries.
///
/// The SSRC, the first sequence number and the first timestamp are random (RFC 3550 §5.1, §8.1), drawn from
/// the generator given at creation (a CSPRNG in production, a seeded one in tests).
public struct RTPSender: Sendable {
    /// Our synchronization source.
    public private(set) var ssrc: UInt32
    /// The payload type of media packets.
    public var payloadType: UInt8
    /// The media clock rate in Hz (8000 for G.711, 48000 for Opus).
    public let clockRate: UInt32
    /// The sequence number the next packet gets.
    public private(set) var nextSequenceNumber: UInt16
    /// The timestamp of the next frame.
    public private(set) var nextTimestamp: UInt32
    /// Packets sent since the stream (or its SSRC) started; wraps, as the SR field does (RFC 3550 §6.4.1).
    public private(set) var packetCount: UInt32 = 0
    /// Payload octets sent since the stream (or its SSRC) started; wraps (RFC 3550 §6.4.1).
    public private(set) var octetCount: UInt32 = 0
    /// True when the next media packet starts a talk-spurt and carries the marker bit (RFC 3551 §4.1).
    public private(set) var isTalkspurtStart = true
    /// The header extension every packet carries (the MID of a BUNDLE, RFC 9143 §14); none by default.
    public var headerExtension: RTPHeaderExtension?
    /// The sampling instant and timestamp of the latest frame, to map wall time onto RTP time for SRs.
    private var reference: (instant: MediaInstant, timestamp: UInt32)?

    /// A sender with a random SSRC, first sequence number and first timestamp.
    /// - Parameters:
    ///   - payloadType: the payload type of media packets.
    ///   - clockRate: the clock rate in Hz.
    ///   - generator: the source of the random starting values.
    public init(payloadType: UInt8, clockRate: UInt32, using generator: inout some RandomNumberGenerator) {
        self.init(
            ssrc: UInt32.random(in: .min ... .max, using: &generator),
            firstSequenceNumber: UInt16.random(in: .min ... .max, using: &generator),
            firstTimestamp: UInt32.random(in: .min ... .max, using: &generator),
            payloadType: payloadType, clockRate: clockRate)
    }

    /// A sender with given starting values (tests, or an SSRC signalled with a=ssrc).
    /// - Parameters:
    ///   - ssrc: the SSRC.
    ///   - firstSequenceNumber: the first sequence number.
    ///   - firstTimestamp: the first timestamp.
    ///   - payloadType: the payload type of media packets.
    ///   - clockRate: the clock rate in Hz.
    public init(
        ssrc: UInt32, firstSequenceNumber: UInt16, firstTimestamp: UInt32, payloadType: UInt8, clockRate: UInt32
    ) {
        self.ssrc = ssrc
        self.nextSequenceNumber = firstSequenceNumber
        self.nextTimestamp = firstTimestamp
        self.payloadType = payloadType
        self.clockRate = max(clockRate, 1)
    }

    /// The packet for the next media frame; the timestamp then advances by `samples`.
    /// - Parameters:
    ///   - payload: the encoded frame.
    ///   - samples: the frame's duration in clock units (160 for 20 ms at 8 kHz, 960 at 48 kHz).
    ///   - instant: the frame's sampling instant, which ties RTP time to wall time for sender reports.
    /// - Returns: the packet, with the marker bit set when it starts a talk-spurt.
    public mutating func packet(payload: ArraySlice<UInt8>, samples: UInt32, at instant: MediaInstant? = nil)
        -> RTPPacket
    {
        let packet = makePacket(
            payload: payload, payloadType: payloadType, timestamp: nextTimestamp, marker: isTalkspurtStart)
        if let instant { reference = (instant, nextTimestamp) }
        nextTimestamp &+= samples
        isTalkspurtStart = false
        return packet
    }

    /// The packet for the next media frame; see ``packet(payload:samples:at:)``.
    public mutating func packet(payload: [UInt8], samples: UInt32, at instant: MediaInstant? = nil) -> RTPPacket {
        packet(payload: payload[...], samples: samples, at: instant)
    }

    /// Advances the timestamp over `samples` of silence that are not sent (DTX, silence suppression or a
    /// muted or held stream); the next media packet starts a talk-spurt (RFC 3551 §4.1).
    /// - Parameters:
    ///   - samples: the silent duration in clock units.
    ///   - instant: the sampling instant of the skipped frame, if known.
    public mutating func skip(samples: UInt32, at instant: MediaInstant? = nil) {
        if let instant { reference = (instant, nextTimestamp) }
        nextTimestamp &+= samples
        isTalkspurtStart = true
    }

    /// Marks the next media packet as the start of a talk-spurt.
    public mutating func startTalkspurt() { isTalkspurtStart = true }

    /// A packet that takes the next sequence number with a timestamp and marker chosen by the caller, such
    /// as RFC 4733 telephone-events, whose updates repeat the event's start timestamp. The media timestamp
    /// does not move.
    /// - Parameters:
    ///   - payload: the payload.
    ///   - payloadType: its payload type.
    ///   - timestamp: its timestamp.
    ///   - marker: its marker bit.
    public mutating func makePacket(payload: ArraySlice<UInt8>, payloadType: UInt8, timestamp: UInt32, marker: Bool)
        -> RTPPacket
    {
        let packet = RTPPacket(
            payloadType: payloadType, sequenceNumber: nextSequenceNumber, timestamp: timestamp, ssrc: ssrc,
            marker: marker, headerExtension: headerExtension, payload: payload)
        nextSequenceNumber &+= 1
        packetCount &+= 1
        octetCount &+= UInt32(truncatingIfNeeded: payload.count)
        return packet
    }

    /// The RTP timestamp that corresponds to `instant`, extrapolated from the latest frame whose sampling
    /// instant was given: the "RTP timestamp" of a sender report (RFC 3550 §6.4.1). `nil` before any.
    public func rtpTimestamp(at instant: MediaInstant) -> UInt32? {
        guard let reference else { return nil }
        let ticks = Double(instant.nanoseconds &- reference.instant.nanoseconds) * Double(clockRate) / 1e9
        guard ticks.magnitude < 0x1p62 else { return nil }
        return reference.timestamp &+ UInt32(truncatingIfNeeded: Int64(ticks))
    }

    /// Takes a new random SSRC after a collision or loop (RFC 3550 §8.2); the counts restart.
    /// - Parameter generator: the source of the new SSRC.
    public mutating func changeSSRC(using generator: inout some RandomNumberGenerator) {
        var next = ssrc
        while next == ssrc { next = UInt32.random(in: .min ... .max, using: &generator) }
        ssrc = next
        packetCount = 0
        octetCount = 0
        isTalkspurtStart = true
    }
}
