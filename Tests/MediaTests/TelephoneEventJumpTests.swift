import Media
import Testing

/// A peer that keeps its SSRC and sequence numbers but jumps its RTP timestamp after the first event, as a
/// FreeSWITCH peer was seen to do (by about 3.3e9 ticks: forward in serial-number arithmetic in some calls,
/// backward in others).
@Suite("Telephone-events across an RTP timestamp jump")
struct TelephoneEventJumpTests {
    /// Jumps of the timestamp after the first event, in ticks (wrapping).
    static let jumps: [UInt32] = [
        990_000_000,  // forward in serial-number arithmetic
        3_300_000_000,  // backward in serial-number arithmetic (-994_967_296)
        0x8000_0001,  // the farthest backward
        0x7FFF_FFFF,  // the farthest forward
    ]

    /// How the receiver sees the packets.
    enum Delivery: CaseIterable, Sendable {
        /// The marker bit on each event's first packet, and the sequence numbers.
        case marker
        /// No marker bits (a sender that leaves it clear, or lost start packets), with sequence numbers.
        case sequenceOnly
        /// No marker bits and no sequence numbers: the timestamp alone.
        case timestampOnly
    }

    struct Sent {
        var packet: TelephoneEventSender.Packet
        var sequence: UInt16
    }

    /// The packets of `digits`, one per 20 ms interval with audio between (not included), sequence numbers
    /// counting every interval and the timestamps of every event after the first moved by `jump`.
    func packets(_ digits: String, jump: UInt32) -> [Sent] {
        var sender = TelephoneEventSender()
        sender.send(DTMFDigit.digits(digits) ?? [])
        var sent: [Sent] = []
        var firstTimestamp: UInt32?
        for interval in 0..<(12 * digits.count) {
            let timestamp = 4_000_000_000 &+ UInt32(interval * 160)
            guard var packet = sender.nextPacket(timestamp: timestamp) else { continue }
            firstTimestamp = firstTimestamp ?? packet.timestamp
            if packet.timestamp != firstTimestamp { packet.timestamp &+= jump }
            sent.append(Sent(packet: packet, sequence: 60_000 &+ UInt16(interval)))
        }
        return sent
    }

    func deliver(_ sent: [Sent], _ delivery: Delivery, to receiver: inout TelephoneEventReceiver) throws
        -> [TelephoneEventReceiver.Report]
    {
        var reports: [TelephoneEventReceiver.Report] = []
        for (index, item) in sent.enumerated() {
            reports += try receiver.receive(
                item.packet.payload.bytes[...], timestamp: item.packet.timestamp,
                sequenceNumber: delivery == .timestampOnly ? nil : item.sequence,
                isMarker: delivery == .marker && item.packet.isMarker, now: .milliseconds(20 * index))
        }
        return reports
    }

    @Test(arguments: jumps, Delivery.allCases)
    func everyDigitIsReportedOnce(jump: UInt32, delivery: Delivery) throws {
        var receiver = TelephoneEventReceiver()
        let sent = packets("1234", jump: jump)
        let reports = try deliver(sent, delivery, to: &receiver)
        #expect(reports.filter { $0.phase == .began }.compactMap(\.digit) == [.one, .two, .three, .four])
        // Three end packets per event, one report each.
        #expect(reports.filter { $0.phase == .ended }.compactMap(\.digit) == [.one, .two, .three, .four])
        #expect(!receiver.isEventInProgress)
    }

    @Test(arguments: jumps, Delivery.allCases)
    func lateRetransmissionsAcrossTheJumpAreIgnored(jump: UInt32, delivery: Delivery) throws {
        var receiver = TelephoneEventReceiver()
        var sent = packets("56", jump: jump)
        // The first digit's last end packet arrives after the second digit began, and again at the end.
        let lastEndOfFirst = try #require(sent.lastIndex { $0.packet.payload.digit == .five })
        let late = sent.remove(at: lastEndOfFirst)
        sent.insert(late, at: lastEndOfFirst + 2)
        sent.append(late)
        let reports = try deliver(sent, delivery, to: &receiver)
        #expect(reports.map(\.phase) == [.began, .ended, .began, .ended])
        #expect(reports.map(\.digit) == [.five, .five, .six, .six])
    }

    @Test func aMarkerStartsANewEventEvenAtTheSameTimestampWithAnotherCode() throws {
        var receiver = TelephoneEventReceiver()
        let end = TelephoneEventPayload(event: 1, isEnd: true, volume: 10, duration: 800).bytes[...]
        let start = TelephoneEventPayload(event: 2, isEnd: false, volume: 10, duration: 160).bytes[...]
        #expect(try receiver.receive(end, timestamp: 7, isMarker: true, now: .zero).map(\.phase) == [.began, .ended])
        // The start packet sent again (the same code) is the same event.
        #expect(try receiver.receive(end, timestamp: 7, isMarker: true, now: .milliseconds(20)).isEmpty)
        let next = try receiver.receive(start, timestamp: 7, isMarker: true, now: .milliseconds(40))
        #expect(next.map(\.phase) == [.began] && next.first?.digit == .two)
    }
}
