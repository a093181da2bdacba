import Media
import Testing

@Suite struct AudioTelephoneEventTests {
    /// Drives a sender for `intervals` packet intervals from `timestamp`, as a media session would; `nil`
    /// entries are intervals where audio goes out.
    func run(_ sender: inout TelephoneEventSender, intervals: Int, timestamp: UInt32 = 1000)
        -> [TelephoneEventSender.Packet?]
    {
        (0..<intervals).map { index in
            sender.nextPacket(timestamp: timestamp &+ UInt32(index * sender.ticksPerPacket))
        }
    }

    @Test func aDigitIsSentWithGrowingDurationsAndThreeEndPackets() throws {
        var sender = TelephoneEventSender(clockRate: 8000, packetTime: 20, toneDuration: 100, gapDuration: 100)
        sender.send([.five, .pound])
        let packets = run(&sender, intervals: 20)
        let first = packets.prefix(7).compactMap { $0 }
        #expect(first.count == 7)
        #expect(first.map(\.payload.duration) == [160, 320, 480, 640, 800, 800, 800])
        #expect(first.map(\.payload.isEnd) == [false, false, false, false, true, true, true])
        #expect(first.map(\.isMarker) == [true, false, false, false, false, false, false])
        #expect(first.allSatisfy { $0.timestamp == 1000 && $0.payload.event == 5 && $0.payload.volume == 10 })
        // 100 ms of audio between the digits: five intervals.
        #expect(packets[7..<12].allSatisfy { $0 == nil })
        let second = packets[12...].compactMap { $0 }
        #expect(second.count == 7)
        #expect(second.first?.isMarker == true)
        #expect(second.allSatisfy { $0.timestamp == 1000 + 12 * 160 && $0.payload.digit == .pound })
        #expect(second.map(\.payload.duration) == [160, 320, 480, 640, 800, 800, 800])
        #expect(sender.isIdle)
        #expect(sender.nextPacket(timestamp: 99) == nil)
    }

    @Test func durationsCountTheNegotiatedClock() {
        var sender = TelephoneEventSender(clockRate: 48000, packetTime: 20, toneDuration: 90, gapDuration: 0)
        sender.send([.a])
        let packets = run(&sender, intervals: 8, timestamp: UInt32.max - 100).compactMap { $0 }
        // 90 ms rounds up to five 20 ms intervals: 4800 ticks at 48 kHz.
        #expect(packets.map(\.payload.duration) == [960, 1920, 2880, 3840, 4800, 4800, 4800])
        #expect(packets.allSatisfy { $0.timestamp == UInt32.max - 100 })
        #expect(sender.isIdle)
    }

    @Test func payloadBytesFollowTheRFCLayout() throws {
        let payload = TelephoneEventPayload(event: 11, isEnd: true, volume: 10, duration: 800)
        #expect(payload.bytes == [11, 0x8A, 0x03, 0x20])
        #expect(try TelephoneEventPayload(parsing: [11, 0xCA, 0x03, 0x20][...]) == payload, "the R bit is ignored")
        #expect(throws: AudioCodecError.self) { try TelephoneEventPayload(parsing: [1, 2, 3][...]) }
        #expect(DTMFDigit.digits("0123456789*#ABCDabcd")?.map(\.rawValue) == Array(0...15) + [12, 13, 14, 15])
        #expect(DTMFDigit.digits("12x") == nil)
        #expect(String(DTMFDigit.allCases.map(\.character)) == "0123456789*#ABCD")
    }

    /// Feeds packets to a receiver 20 ms apart and collects the reports.
    func receive(_ packets: [TelephoneEventSender.Packet], into receiver: inout TelephoneEventReceiver) throws
        -> [TelephoneEventReceiver.Report]
    {
        var reports: [TelephoneEventReceiver.Report] = []
        for (index, packet) in packets.enumerated() {
            reports += try receiver.receive(
                packet.payload.bytes[...], timestamp: packet.timestamp, now: .milliseconds(20 * index))
        }
        return reports
    }

    func sentPackets(_ digits: String) -> [TelephoneEventSender.Packet] {
        var sender = TelephoneEventSender()
        sender.send(DTMFDigit.digits(digits) ?? [])
        return run(&sender, intervals: 12 * digits.count).compactMap { $0 }
    }

    @Test func eachDigitIsReportedOnceDespiteRepeatedEndPackets() throws {
        var receiver = TelephoneEventReceiver()
        let reports = try receive(sentPackets("19#"), into: &receiver)
        #expect(reports.filter { $0.phase == .began }.compactMap(\.digit) == [.one, .nine, .pound])
        #expect(reports.filter { $0.phase == .ended }.compactMap(\.digit) == [.one, .nine, .pound])
        #expect(reports.filter { $0.phase == .ended }.allSatisfy { $0.duration == 800 })
        #expect(!receiver.isEventInProgress)
        // A duplicate delivered again later changes nothing.
        let again = try receiver.receive(
            sentPackets("#").last?.payload.bytes[...] ?? [], timestamp: 1000 + 24 * 160, now: .seconds(5))
        #expect(again.isEmpty)
    }

    @Test func aLostStartPacketDelaysTheReportButKeepsTheDigit() throws {
        var receiver = TelephoneEventReceiver()
        let packets = sentPackets("7")
        let reports = try receive(Array(packets.dropFirst(2)), into: &receiver)
        #expect(reports.map(\.phase) == [.began, .ended])
        #expect(reports.first?.digit == .seven && reports.first?.duration == 480)
        // Only an end packet survived: began and ended at once.
        var other = TelephoneEventReceiver()
        let onlyEnd = try receive([packets[5]], into: &other)
        #expect(onlyEnd.map(\.phase) == [.began, .ended])
    }

    @Test func lostEndPacketsEndTheEventByTimeoutOrByTheNextEvent() throws {
        var receiver = TelephoneEventReceiver(endTimeout: .milliseconds(500))
        let first = sentPackets("3").filter { !$0.payload.isEnd }
        #expect(try receive(first, into: &receiver).map(\.phase) == [.began])
        #expect(receiver.poll(now: .milliseconds(400)) == nil)
        let timeout = receiver.poll(now: .milliseconds(560))
        #expect(timeout?.phase == .timedOut && timeout?.digit == .three && timeout?.duration == 640)
        #expect(receiver.poll(now: .seconds(2)) == nil, "reported once")
        // A newer event ends one whose end never came.
        var other = TelephoneEventReceiver()
        let digits = sentPackets("48").filter { !$0.payload.isEnd || $0.payload.digit == .eight }
        let reports = try receive(digits, into: &other)
        #expect(reports.map(\.phase) == [.began, .ended, .began, .ended])
        #expect(reports.map(\.digit) == [.four, .four, .eight, .eight])
        // A late packet of the older event is ignored.
        let late = try other.receive(digits[0].payload.bytes[...], timestamp: digits[0].timestamp, now: .seconds(1))
        #expect(late.isEmpty)
        #expect(throws: AudioCodecError.self) { try other.receive([0, 1][...], timestamp: 1, now: .zero) }
        // After a reset (a new SSRC) an old timestamp is a new event again.
        other.reset()
        let fresh = try other.receive(digits[0].payload.bytes[...], timestamp: digits[0].timestamp, now: .seconds(2))
        #expect(fresh.map(\.phase) == [.began])
    }
}
