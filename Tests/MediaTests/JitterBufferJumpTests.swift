import Media
import Testing

/// One source (SSRC and sequence numbers run on) whose RTP clock jumps at packet 50, as a FreeSWITCH peer
/// did after a telephone-event. 8 kHz, 20 ms packets every 20 ms, 30 ms transit.
private struct JumpingStream {
    var jump: UInt32
    var marker: Bool
    var jumpAt = 50
    /// Sequence numbers skipped at the jump (telephone-event packets the buffer never sees).
    var skipped = 0
    var count = 150

    func packet(_ index: Int) -> (time: Int64, packet: RTPPacket) {
        let slot = index >= jumpAt ? index + skipped : index
        var timestamp = 0x1000_0000 &+ UInt32(slot * 160)
        if index >= jumpAt { timestamp &+= jump }
        let packet = RTPPacket(
            payloadType: 0, sequenceNumber: 65_000 &+ UInt16(truncatingIfNeeded: slot), timestamp: timestamp,
            ssrc: 5, marker: marker && index == jumpAt, payload: [UInt8(truncatingIfNeeded: index)])
        return (Int64(slot) * 20 + 30, packet)
    }
}

/// Puts the packets at their arrival times and pulls every 20 ms; returns the payloads played.
private func play(_ arrivals: [(time: Int64, packet: RTPPacket)], until end: Int64, buffer: inout JitterBuffer)
    -> [UInt8]
{
    var played: [UInt8] = []
    var next = arrivals.startIndex
    var pull: Int64 = 5
    while pull <= end {
        while next < arrivals.endIndex && arrivals[next].time <= pull {
            buffer.put(arrivals[next].packet, at: .milliseconds(arrivals[next].time))
            next += 1
        }
        if case .frame(let frame) = buffer.pull(at: .milliseconds(pull)) { played += frame.payload }
        pull += 20
    }
    return played
}

/// A 20 ms initial and minimum delay, as in the other jitter buffer tests: no frame is dropped to bring the
/// delay down after the start.
private func makeBuffer() -> JitterBuffer {
    JitterBuffer(
        configuration: JitterBufferConfiguration(
            clockRate: 8000, frameSamples: 160, minimumDelay: .milliseconds(20), initialDelay: .milliseconds(20)))
}

@Suite("Jitter buffer: an RTP clock jump within one source")
struct JitterBufferJumpTests {
    /// Jumps in ticks (wrapping): far forward and far backward in serial-number arithmetic, and 3 s each way.
    static let jumps: [UInt32] = [990_000_000, 3_300_000_000, 24_000, 0 &- 24_000]

    @Test(arguments: jumps, [true, false])
    func audioOnBothSidesOfTheJumpPlaysInOrder(jump: UInt32, marker: Bool) {
        let stream = JumpingStream(jump: jump, marker: marker)
        var buffer = makeBuffer()
        let played = play((0..<stream.count).map(stream.packet), until: 3400, buffer: &buffer)
        #expect(played == (0..<150).map { UInt8($0) })
        let statistics = buffer.statistics
        #expect(statistics.late == 0 && statistics.lost == 0)
        #expect(statistics.resets == 0)
        #expect(statistics.resynchronisations == 1)
    }

    @Test func withTheMarkerBitAJumpBeyondTheMaximumDelayIsEnough() {
        // One second back: without the marker bit this is left to the late-packet rules.
        let stream = JumpingStream(jump: 0 &- 8000, marker: true)
        var buffer = makeBuffer()
        let played = play((0..<stream.count).map(stream.packet), until: 3400, buffer: &buffer)
        #expect(played == (0..<150).map { UInt8($0) })
        #expect(buffer.statistics.late == 0 && buffer.statistics.resynchronisations == 1)
    }

    @Test(arguments: [990_000_000, 3_300_000_000] as [UInt32])
    func aJumpAfterTelephoneEventsKeepsTheirSlots(jump: UInt32) {
        // Ten sequence numbers and 200 ms went to telephone-events; the audio after them jumps.
        let stream = JumpingStream(jump: jump, marker: true, skipped: 10)
        var buffer = makeBuffer()
        let played = play((0..<stream.count).map(stream.packet), until: 3600, buffer: &buffer)
        #expect(played == (0..<150).map { UInt8($0) })
        #expect(buffer.statistics.late == 0 && buffer.statistics.resets == 0)
    }

    @Test func aTalkSpurtAfterDTXIsNotAJump() {
        // 2.5 s of silence not sent, then a talk-spurt with the marker bit: timestamp and arrival agree.
        var packets: [(time: Int64, packet: RTPPacket)] = []
        for index in 0..<100 {
            let slot = index >= 50 ? index + 125 : index
            let packet = RTPPacket(
                payloadType: 0, sequenceNumber: UInt16(index), timestamp: UInt32(slot * 160), ssrc: 9,
                marker: index == 50, payload: [UInt8(index)])
            packets.append((Int64(slot) * 20 + 30, packet))
        }
        var buffer = makeBuffer()
        let played = play(packets, until: 4600, buffer: &buffer)
        #expect(played == (0..<100).map { UInt8($0) })
        #expect(buffer.statistics.resynchronisations == 0 && buffer.statistics.lost == 0)
    }

    @Test func aStalledPathIsNotAJump() {
        // Packets 50...174 are held by the network and then come in a burst: their timestamps follow their
        // sequence numbers, so they are not moved (the buffer's pause rules take them as before).
        let packets: [(time: Int64, packet: RTPPacket)] = (0..<200).map { index in
            let time = Int64(index) * 20 + 30
            let packet = RTPPacket(
                payloadType: 0, sequenceNumber: UInt16(index), timestamp: UInt32(index * 160), ssrc: 9,
                payload: [UInt8(index)])
            return (index >= 50 && index < 175 ? max(time, 3530) : time, packet)
        }
        var buffer = makeBuffer()
        let played = play(packets.sorted { $0.time < $1.time }, until: 9000, buffer: &buffer)
        #expect(buffer.statistics.resynchronisations == 0)
        #expect(played == played.sorted())
        #expect(played.prefix(50) == (0..<50).map { UInt8($0) }[...])
        #expect(played.last == 199)
    }
}
