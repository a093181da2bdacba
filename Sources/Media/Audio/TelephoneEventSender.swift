/// Sends DTMF digits as RFC 4733 telephone-events, one packet per packet interval.
///
/// Sans-I/O: the media session calls `nextPacket(timestamp:)` once per packet interval with the RTP timestamp
/// its audio frame would carry. While a digit is being sent this returns its packets, which go out instead
/// of the audio frame (§2.5.1.1):
/// - the first with the marker bit and a duration of one packet interval;
/// - one per interval with the duration so far, all with the event's start timestamp (§2.5.1.2);
/// - the end packet (E bit, the final duration) three times in three intervals (§2.5.1.4).
///
/// Then `gapDuration` of audio (`nil` from this function) separates it from the next digit. A tone is at most
/// 65535 ticks (8 s at 8 kHz, 1.3 s at 48 kHz): longer ones are cut, since this sender does not split events
/// into segments (§2.5.1.3).
public struct TelephoneEventSender: Sendable {
    /// One packet to send: the payload, the RTP timestamp and the marker bit.
    public struct Packet: Sendable, Hashable {
        /// The telephone-event payload.
        public var payload: TelephoneEventPayload
        /// The RTP timestamp: the event's start, the same for all its packets.
        public var timestamp: UInt32
        /// The marker bit: set on the event's first packet.
        public var isMarker: Bool
    }

    private enum State: Sendable, Hashable {
        case idle
        case tone(digit: DTMFDigit, timestamp: UInt32, elapsed: Int)
        case ending(digit: DTMFDigit, timestamp: UInt32, duration: UInt16, remaining: Int)
        case gap(remaining: Int)
    }

    /// RTP clock ticks per packet interval (160 for 20 ms at 8000 Hz).
    public let ticksPerPacket: Int
    /// RTP clock ticks per tone.
    public let toneTicks: Int
    /// RTP clock ticks of audio between two digits.
    public let gapTicks: Int
    /// The volume sent, -dBm0.
    public let volume: UInt8
    /// Digits not started yet.
    public private(set) var queue: [DTMFDigit] = []
    private var state = State.idle

    /// - Parameters:
    ///   - clockRate: the telephone-event RTP clock rate (the negotiated one, 8000 by default).
    ///   - packetTime: milliseconds between packets, 20 by default (the audio packet interval).
    ///   - toneDuration: milliseconds per digit, 100 by default (rounded up to whole packet intervals).
    ///   - gapDuration: milliseconds between digits, 100 by default.
    ///   - volume: -dBm0, 10 by default.
    public init(
        clockRate: Int = 8000, packetTime: Int = 20, toneDuration: Int = 100, gapDuration: Int = 100,
        volume: UInt8 = 10
    ) {
        let rate = min(max(1000, clockRate), 192_000)
        ticksPerPacket = max(1, rate * min(max(1, packetTime), 200) / 1000)
        let tone = max(1, rate * min(max(1, toneDuration), 60_000) / 1000)
        let packets = (tone + ticksPerPacket - 1) / ticksPerPacket
        toneTicks = min(packets * ticksPerPacket, Int(UInt16.max) / ticksPerPacket * ticksPerPacket)
        gapTicks = rate * min(max(0, gapDuration), 60_000) / 1000
        self.volume = min(volume, 63)
    }

    /// Queues digits to be sent after those already queued.
    /// - Parameter digits: the digits, in order.
    public mutating func send(_ digits: [DTMFDigit]) { queue.append(contentsOf: digits) }

    /// True while a digit's packets are being sent (the session sends them instead of audio).
    public var isSendingEvent: Bool {
        switch state {
        case .tone, .ending: true
        case .idle, .gap: false
        }
    }

    /// True when no digit is queued or being sent (the gap after the last one may still be running).
    public var isIdle: Bool { queue.isEmpty && !isSendingEvent }

    /// Advances one packet interval.
    /// - Parameter timestamp: the RTP timestamp the stream's packet for this interval would have.
    /// - Returns: the telephone-event packet to send in this interval, or `nil` to send audio.
    public mutating func nextPacket(timestamp: UInt32) -> Packet? {
        switch state {
        case .gap(let remaining):
            if remaining > 0 {
                state = .gap(remaining: remaining - ticksPerPacket)
                return nil
            }
            state = .idle
            return queue.isEmpty ? nil : start(timestamp: timestamp)
        case .idle:
            return queue.isEmpty ? nil : start(timestamp: timestamp)
        case .tone(let digit, let start, let elapsed):
            let now = elapsed + ticksPerPacket
            if now >= toneTicks {
                let duration = UInt16(toneTicks)
                state = .ending(digit: digit, timestamp: start, duration: duration, remaining: 2)
                return packet(digit, start, duration, isEnd: true, isMarker: false)
            }
            state = .tone(digit: digit, timestamp: start, elapsed: now)
            return packet(digit, start, UInt16(now), isEnd: false, isMarker: false)
        case .ending(let digit, let start, let duration, let remaining):
            state =
                remaining > 1
                ? .ending(digit: digit, timestamp: start, duration: duration, remaining: remaining - 1)
                : gapTicks > 0 ? .gap(remaining: gapTicks) : .idle
            return packet(digit, start, duration, isEnd: true, isMarker: false)
        }
    }

    private mutating func start(timestamp: UInt32) -> Packet {
        let digit = queue.removeFirst()
        // A tone of one interval ends in its first packet.
        if ticksPerPacket >= toneTicks {
            state = .ending(digit: digit, timestamp: timestamp, duration: UInt16(toneTicks), remaining: 2)
            return packet(digit, timestamp, UInt16(toneTicks), isEnd: true, isMarker: true)
        }
        state = .tone(digit: digit, timestamp: timestamp, elapsed: ticksPerPacket)
        return packet(digit, timestamp, UInt16(ticksPerPacket), isEnd: false, isMarker: true)
    }

    private func packet(_ digit: DTMFDigit, _ timestamp: UInt32, _ duration: UInt16, isEnd: Bool, isMarker: Bool)
        -> Packet
    {
        Packet(
            payload: TelephoneEventPayload(event: digit.rawValue, isEnd: isEnd, volume: volume, duration: duration),
            timestamp: timestamp, isMarker: isMarker)
    }
}
