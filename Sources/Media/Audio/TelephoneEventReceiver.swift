/// Turns received RFC 4733 telephone-event packets into one report per event.
///
/// Every packet of one event, retransmitted end packets included, carries the event's start timestamp
/// (§2.2.1), and the marker bit flags the first packet of a new event (§2.2.2). So:
/// - `.began` with the first packet heard of a new event: one with the marker bit, or one whose timestamp
///   is neither the current event's nor one of the recent events' and that is newer than what came before
///   (a lost start packet delays the report by one interval, never loses the digit; an event whose only
///   surviving packet is an end packet is reported as began and ended at once);
/// - `.ended` with the first end packet, or when a newer event begins before the end arrived, or by
///   `poll(now:)` when no packet has come for `endTimeout` (all end packets lost).
///
/// The marker bit wins over the timestamp: a sender that jumps its RTP clock between events (forward, or
/// backward in serial-number arithmetic) still has each event reported (§2.5.2). Packets of an event
/// already heard (the three end packets, §2.5.1.4) are reported once. Without the marker bit, "newer" is
/// judged by the sequence number when the caller gives it, else by the timestamp. Time is injected: `now`
/// is any monotonic clock reading, e.g. `ContinuousClock.now - callStart`.
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

    struct Current: Sendable, Hashable {
        var event: UInt8
        var timestamp: UInt32
        var duration: UInt16
        var lastHeard: Duration
        var hasEnded: Bool
    }

    /// How long without packets ends an event whose end packets were all lost.
    public let endTimeout: Duration
    var current: Current?
    var history = TelephoneEventHistory()

    /// - Parameter endTimeout: silence that ends an event without an end packet, 500 ms by default.
    public init(endTimeout: Duration = .milliseconds(500)) {
        self.endTimeout = endTimeout
    }

    /// Takes one received telephone-event packet.
    /// - Parameters:
    ///   - payload: the RTP payload.
    ///   - timestamp: the packet's RTP timestamp.
    ///   - sequenceNumber: the packet's RTP sequence number, when known: it tells a late packet of an old
    ///     event from the first surviving packet of a new one after a timestamp jump.
    ///   - isMarker: the packet's marker bit: it starts a new event (RFC 4733 §2.2.2).
    ///   - now: the current time on the caller's monotonic clock.
    /// - Returns: the reports the packet causes, in order (none for a duplicate).
    /// - Throws: `AudioCodecError.invalidPayload` for a payload under four bytes.
    public mutating func receive(
        _ payload: ArraySlice<UInt8>, timestamp: UInt32, sequenceNumber: UInt16? = nil, isMarker: Bool = false,
        now: Duration
    ) throws(AudioCodecError) -> [Report] {
        let packet = try TelephoneEventPayload(parsing: payload)
        let isNewer = history.isNewer(sequenceNumber: sequenceNumber)
        history.heard(sequenceNumber: sequenceNumber)
        if var event = current, event.timestamp == timestamp, event.event == packet.event || !isMarker {
            return update(&event, with: packet, now: now)
        }
        guard startsEvent(packet, timestamp: timestamp, isMarker: isMarker, isNewer: isNewer) else { return [] }
        var reports: [Report] = []
        if let event = current, !event.hasEnded {
            reports.append(
                Report(phase: .ended, event: event.event, timestamp: event.timestamp, duration: event.duration))
        }
        current = Current(
            event: packet.event, timestamp: timestamp, duration: packet.duration, lastHeard: now,
            hasEnded: packet.isEnd)
        history.remember(event: packet.event, timestamp: timestamp)
        reports.append(Report(phase: .began, event: packet.event, timestamp: timestamp, duration: packet.duration))
        if packet.isEnd {
            reports.append(Report(phase: .ended, event: packet.event, timestamp: timestamp, duration: packet.duration))
        }
        return reports
    }

    /// Takes one received RTP packet of the telephone-event payload type; see
    /// ``receive(_:timestamp:sequenceNumber:isMarker:now:)``.
    /// - Parameters:
    ///   - packet: the decoded packet.
    ///   - now: the current time on the caller's monotonic clock.
    public mutating func receive(_ packet: RTPPacket, now: Duration) throws(AudioCodecError) -> [Report] {
        try receive(
            packet.payload, timestamp: packet.timestamp, sequenceNumber: packet.sequenceNumber,
            isMarker: packet.marker, now: now)
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

    /// When ``poll(now:)`` next has something to report: the end timeout of the event in progress.
    public var nextPollTime: Duration? {
        guard let event = current, !event.hasEnded else { return nil }
        return event.lastHeard + endTimeout
    }

    /// Forgets the current event, e.g. when the sender's SSRC changed and its timestamps start afresh.
    public mutating func reset() {
        current = nil
        history = TelephoneEventHistory()
    }

    /// True while an event has begun and not ended.
    public var isEventInProgress: Bool { current.map { !$0.hasEnded } ?? false }

    /// A packet of the current event: a longer duration, or its end.
    private mutating func update(_ event: inout Current, with packet: TelephoneEventPayload, now: Duration) -> [Report]
    {
        guard !event.hasEnded else { return [] }
        event.duration = max(event.duration, packet.duration)
        event.lastHeard = now
        var reports: [Report] = []
        if packet.isEnd {
            event.hasEnded = true
            reports.append(
                Report(phase: .ended, event: event.event, timestamp: event.timestamp, duration: event.duration))
        }
        current = event
        return reports
    }
}
