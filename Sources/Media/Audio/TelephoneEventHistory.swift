/// What a ``TelephoneEventReceiver`` remembers of the events before the current one, to tell a
/// retransmission from a new event when the sender's timestamps do not simply grow.
struct TelephoneEventHistory: Sendable {
    /// Events remembered: enough for the end-packet retransmissions of the last few digits to arrive late.
    static let capacity = 8

    private var events: [(event: UInt8, timestamp: UInt32)] = []
    private var next = 0
    /// The newest sequence number heard, in serial-number order.
    private(set) var newestSequence: UInt16?

    /// Whether a packet numbered `sequenceNumber` comes after every packet heard; `nil` when either is unknown.
    func isNewer(sequenceNumber: UInt16?) -> Bool? {
        guard let sequenceNumber, let newestSequence else { return nil }
        return Int16(bitPattern: sequenceNumber &- newestSequence) > 0
    }

    /// Notes a packet's sequence number.
    mutating func heard(sequenceNumber: UInt16?) {
        guard let sequenceNumber else { return }
        if isNewer(sequenceNumber: sequenceNumber) ?? true { newestSequence = sequenceNumber }
    }

    /// Notes a new event.
    mutating func remember(event: UInt8, timestamp: UInt32) {
        if events.count < TelephoneEventHistory.capacity {
            events.append((event, timestamp))
        } else {
            events[next] = (event, timestamp)
        }
        next = (next + 1) % TelephoneEventHistory.capacity
    }

    /// Whether a recent event had `timestamp` (and `event`, when given).
    func contains(timestamp: UInt32, event: UInt8?) -> Bool {
        events.contains { $0.timestamp == timestamp && (event == nil || $0.event == event) }
    }
}

extension TelephoneEventReceiver {
    /// Without the marker bit or a sequence number, a timestamp this far behind the current event's is a
    /// jump of the sender's RTP clock, not a late packet (2^20 ticks: 131 s at 8 kHz, 22 s at 48 kHz).
    static let jumpTicks: UInt32 = 1 << 20

    /// Whether a packet that is not of the current event starts a new one (RFC 4733 §2.2.2, §2.5.2).
    func startsEvent(_ packet: TelephoneEventPayload, timestamp: UInt32, isMarker: Bool, isNewer: Bool?) -> Bool {
        if history.contains(timestamp: timestamp, event: isMarker ? packet.event : nil) { return false }
        if isMarker { return true }
        if let isNewer { return isNewer }
        guard let event = current else { return true }
        let distance = Int32(bitPattern: timestamp &- event.timestamp)
        return distance > 0 || distance.magnitude > TelephoneEventReceiver.jumpTicks
    }
}
