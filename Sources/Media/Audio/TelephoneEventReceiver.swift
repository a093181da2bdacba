/// Turns received RFC 4733 telephone-event packets into one report per event.
///
/// An event is identified by its RTP timestamp (§2.5.2.1): every packet of one event, retransmitted end
/// packets included, carries the same timestamp, so each is reported once however many arrive:
/// - `.began` with the first packet seen of a new timestamp, whether or not it is the first one sent (a lost
///   start packet delays the report by one interval, never loses the digit; an event whose only surviving
///   packet is an end packet is reported as began and ended at once);
/// - `.ended` with the first end packet, or when a newer event begins before the end arrived, or by
///   `poll(now:)` when no packet has come for `endTimeout` (all end packets lost).
///
/// Packets of an older event than the current one (reordered or late retransmissions) are ignored. Time is
/// injected: `now` is any monotonic clock reading, e.g. `ContinuousClock.now - callStart`.
public struct TelephoneEventReceiver: Sendable {
    /// A report about one event.
    public struct Report: Sendable, Hashable {
        /// What happened.
        public enum Phase: Sendable, Hashable {
            /// The event was first heard.
            case began
            /// An end packet arrived, or a newer event began.
            case ended
            /// No end packet arrived within the timeout.
            case timedOut
        }

        /// What happened.
        public var phase: Phase
        /// The event code.
        public var event: UInt8
        /// The RTP timestamp identifying the event.
        public var timestamp: UInt32
        /// The longest duration heard so far, in RTP clock ticks.
        public var duration: UInt16

        /// The DTMF digit, when the event is one (0-15).
        public var digit: DTMFDigit? { DTMFDigit(rawValue: event) }
    }

    private struct Current: Sendable, Hashable {
        var event: UInt8
        var timestamp: UInt32
        var duration: UInt16
        var lastHeard: Duration
        var hasEnded: Bool
    }

    /// How long without packets ends an event whose end packets were all lost.
    public let endTimeout: Duration
    private var current: Current?

    /// - Parameter endTimeout: silence that ends an event without an end packet, 500 ms by default.
    public init(endTimeout: Duration = .milliseconds(500)) {
        self.endTimeout = endTimeout
    }

    /// Takes one received telephone-event packet.
    /// - Parameters:
    ///   - payload: the RTP payload.
    ///   - timestamp: the packet's RTP timestamp.
    ///   - now: the current time on the caller's monotonic clock.
    /// - Returns: the reports the packet causes, in order (none for a duplicate).
    /// - Throws: `AudioCodecError.invalidPayload` for a payload under four bytes.
    public mutating func receive(_ payload: ArraySlice<UInt8>, timestamp: UInt32, now: Duration)
        throws(AudioCodecError) -> [Report]
    {
        let packet = try TelephoneEventPayload(parsing: payload)
        var reports: [Report] = []
        if var event = current, event.timestamp == timestamp {
            guard !event.hasEnded else { return [] }
            event.duration = max(event.duration, packet.duration)
            event.lastHeard = now
            if packet.isEnd {
                event.hasEnded = true
                reports.append(
                    Report(phase: .ended, event: event.event, timestamp: timestamp, duration: event.duration))
            }
            current = event
            return reports
        }
        if let event = current {
            // Serial-number comparison (RFC 1982): an older timestamp is a late packet of a finished event.
            guard Int32(bitPattern: timestamp &- event.timestamp) > 0 else { return [] }
            if !event.hasEnded {
                reports.append(
                    Report(phase: .ended, event: event.event, timestamp: event.timestamp, duration: event.duration))
            }
        }
        current = Current(
            event: packet.event, timestamp: timestamp, duration: packet.duration, lastHeard: now,
            hasEnded: packet.isEnd)
        reports.append(Report(phase: .began, event: packet.event, timestamp: timestamp, duration: packet.duration))
        if packet.isEnd {
            reports.append(Report(phase: .ended, event: packet.event, timestamp: timestamp, duration: packet.duration))
        }
        return reports
    }

    /// Ends an event whose end packets never came.
    /// - Parameter now: the current time on the caller's monotonic clock.
    /// - Returns: a `.timedOut` report once, when the event in progress has been silent for `endTimeout`.
    public mutating func poll(now: Duration) -> Report? {
        guard var event = current, !event.hasEnded, now - event.lastHeard >= endTimeout else { return nil }
        event.hasEnded = true
        current = event
        return Report(phase: .timedOut, event: event.event, timestamp: event.timestamp, duration: event.duration)
    }

    /// Forgets the current event, e.g. when the sender's SSRC changed and its timestamps start afresh.
    public mutating func reset() { current = nil }

    /// True while an event has begun and not ended.
    public var isEventInProgress: Bool { current.map { !$0.hasEnded } ?? false }
}
