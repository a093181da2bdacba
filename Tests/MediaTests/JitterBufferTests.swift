import Media
import Testing

/// One 8 kHz stream of 20 ms frames: packet `index` has sequence number `firstSequence + index` and timestamp
/// `firstTimestamp + 160 × index` (both wrapping), and a one-byte payload.
private struct Stream {
    var ssrc: UInt32 = 0xA
    var firstSequence: UInt16 = 1000
    var firstTimestamp: UInt32 = 50_000

    func packet(_ index: Int) -> RTPPacket {
        RTPPacket(
            payloadType: 0, sequenceNumber: firstSequence &+ UInt16(truncatingIfNeeded: index),
            timestamp: firstTimestamp &+ UInt32(truncatingIfNeeded: index &* 160), ssrc: ssrc,
            payload: [UInt8(truncatingIfNeeded: index)])
    }

    func sequence(_ index: Int) -> UInt16 { firstSequence &+ UInt16(truncatingIfNeeded: index) }
}

/// A run of a buffer in virtual time: packets put at their arrival times (milliseconds), a pull every
/// 20 ms from 5 ms to `until`.
private struct Run {
    /// A 20 ms initial and minimum delay: the target only grows from there in these short runs, so no frame
    /// is dropped to bring the delay down after the start.
    var buffer = JitterBuffer(
        configuration: JitterBufferConfiguration(
            clockRate: 8000, frameSamples: 160, minimumDelay: .milliseconds(20), initialDelay: .milliseconds(20)))
    var outputs: [JitterBufferOutput] = []
    var putResults: [(sequence: UInt16, result: JitterBufferPutResult)] = []

    init(
        _ arrivals: [(time: Int64, packet: RTPPacket)], until end: Int64,
        configuration: JitterBufferConfiguration? = nil, buffer: JitterBuffer? = nil
    ) {
        if let configuration { self.buffer = JitterBuffer(configuration: configuration) }
        if let buffer { self.buffer = buffer }
        var buffer = self.buffer
        defer { self.buffer = buffer }
        let sorted = arrivals.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
        var next = sorted.startIndex
        var pull: Int64 = 5
        while pull <= end {
            while next < sorted.endIndex && sorted[next].element.time <= pull {
                let packet = sorted[next].element.packet
                let result = buffer.put(packet, at: .milliseconds(sorted[next].element.time))
                putResults.append((packet.sequenceNumber, result))
                next += 1
            }
            outputs.append(buffer.pull(at: .milliseconds(pull)))
            pull += 20
        }
    }

    /// The sequence numbers of the frames played, in order.
    var played: [UInt16] {
        outputs.compactMap { output in
            if case .frame(let frame) = output { frame.sequenceNumber } else { nil }
        }
    }

    /// The concealment requests for missing frames before the last frame played (after it, the stream has
    /// ended and the buffer conceals a few frames before it goes idle): (timestamp, sequence number, the FEC
    /// packet's sequence number).
    var missing: [(timestamp: UInt32, sequence: UInt16?, next: UInt16?)] {
        let end = outputs.lastIndex { if case .frame = $0 { true } else { false } } ?? outputs.startIndex
        return outputs[..<end].compactMap { output in
            if case .missing(let timestamp, let sequence, let next) = output {
                (timestamp, sequence, next?.sequenceNumber)
            } else {
                nil
            }
        }
    }
}

/// Packets 0..<count of `stream`, sent every 20 ms from `start` and taking 30 ms plus `extra(index)`.
private func arrivals(
    _ stream: Stream = Stream(), count: Int = 100, start: Int64 = 0, extra: (Int) -> Int64 = { _ in 0 }
) -> [(time: Int64, packet: RTPPacket)] {
    (0..<count).map { index in (start + Int64(index) * 20 + 30 + extra(index), stream.packet(index)) }
}

@Suite("Jitter buffer")
struct JitterBufferTests {
    @Test func reorderedPacketsPlayInSequence() {
        // Every odd packet overtakes the even one before it (arrives 30 ms earlier relative to it).
        let stream = Stream()
        let run = Run(arrivals(stream) { $0 % 2 == 0 ? 15 : -15 }, until: 2600)
        #expect(run.played == (0..<100).map(stream.sequence))
        #expect(run.missing.isEmpty)
        #expect(run.buffer.statistics.late == 0)
        #expect(run.buffer.statistics.lost == 0)
        #expect(run.buffer.statistics.played == 100)
    }

    @Test func duplicatesAreDroppedAndCounted() {
        let stream = Stream()
        var packets = arrivals(stream)
        packets += arrivals(stream) { _ in 5 }
        // A copy of packet 10 long after it played is a duplicate, not a late packet.
        packets.append((1800, stream.packet(10)))
        let run = Run(packets, until: 2600)
        #expect(run.played == (0..<100).map(stream.sequence))
        let statistics = run.buffer.statistics
        #expect(statistics.received == 201)
        #expect(statistics.duplicates == 101)
        #expect(statistics.late == 0)
        #expect(run.putResults.filter { $0.result == .duplicate }.count == 101)
        #expect(run.putResults.last?.result == .duplicate)
    }

    @Test func aPacketAfterItsPlayoutTimeIsDroppedAndCountedLate() {
        let stream = Stream()
        let run = Run(arrivals(stream, count: 150) { $0 == 120 ? 400 : 0 }, until: 3600)
        let statistics = run.buffer.statistics
        #expect(statistics.late == 1)
        #expect(run.putResults.first { $0.sequence == stream.sequence(120) }?.result == .late)
        // Its slot was concealed, with the packet after it offered for FEC.
        // Its slot was concealed when it came (the buffer was empty: the sequence number is not known yet).
        #expect(run.missing.count == 1)
        #expect(run.missing.first?.timestamp == stream.packet(120).timestamp)
        #expect(!run.played.contains(stream.sequence(120)))
        #expect(statistics.played == 149)
    }

    @Test func lostPacketsAreConcealedWithFECWhenTheNextPacketIsThere() throws {
        let stream = Stream()
        let lost: Set = [30, 50, 51, 52]
        // An 80 ms floor: the packets after a loss are buffered by the time its slot comes, so the buffer
        // knows which frames are lost (with an emptied buffer it only knows a slot passed; see the late test).
        let configuration = JitterBufferConfiguration(
            clockRate: 8000, frameSamples: 160, minimumDelay: .milliseconds(80), initialDelay: .milliseconds(80))
        let run = Run(
            arrivals(stream).filter { !lost.contains(Int($0.packet.sequenceNumber &- 1000)) }, until: 2600,
            configuration: configuration)
        let missing = run.missing
        try #require(missing.count == 4)
        #expect(missing[0].sequence == stream.sequence(30))
        #expect(missing[0].next == stream.sequence(31))
        // In a burst, only the last lost frame has its successor at hand for FEC; the others are PLC.
        #expect(missing[1].sequence == stream.sequence(50) && missing[1].next == nil)
        #expect(missing[2].sequence == stream.sequence(51) && missing[2].next == nil)
        #expect(missing[3].sequence == stream.sequence(52) && missing[3].next == stream.sequence(53))
        #expect(
            missing.allSatisfy {
                JitterBufferOutput.missing(timestamp: $0.timestamp, sequenceNumber: nil, next: nil).isConcealment
            })
        #expect(missing.map(\.timestamp) == [30, 50, 51, 52].map { stream.packet($0).timestamp })
        let statistics = run.buffer.statistics
        #expect(statistics.lost == 4)
        #expect(statistics.late == 0)
        #expect(statistics.concealed >= 4)
        #expect(statistics.played == 96)
        // The frames around the losses play in order.
        #expect(run.played == (0..<100).filter { !lost.contains($0) }.map(stream.sequence))
    }

    @Test func sequenceNumbersAndTimestampsWrap() {
        // The sequence number wraps at packet 36 and the timestamp at packet 26; packets reorder across both.
        let stream = Stream(firstSequence: 65_500, firstTimestamp: 0xFFFF_F000)
        let run = Run(arrivals(stream) { $0 % 2 == 0 ? 15 : -15 }, until: 2600)
        #expect(run.played == (0..<100).map(stream.sequence))
        let statistics = run.buffer.statistics
        #expect(statistics.late == 0 && statistics.lost == 0 && statistics.resets == 0)
        #expect(statistics.played == 100)
    }

    @Test func aNewSSRCRestartsTheTimeline() {
        let first = Stream(ssrc: 1, firstSequence: 40_000, firstTimestamp: 9)
        let second = Stream(ssrc: 2, firstSequence: 7, firstTimestamp: 0x8000_0000)
        let run = Run(arrivals(first, count: 50) + arrivals(second, count: 50, start: 1000), until: 2600)
        let statistics = run.buffer.statistics
        #expect(statistics.resets == 1)
        #expect(statistics.late == 0)
        // Every packet of the new source plays; of the old one, only what was still buffered is dropped.
        let played = run.played
        #expect(played.suffix(50) == (0..<50).map(second.sequence)[...])
        #expect(played.count >= 97)
        #expect(statistics.received == 100)
    }

    @Test func aSenderRestartWithTheSameSSRCRestartsTheTimeline() {
        // The same SSRC, but sequence numbers and timestamps start afresh (a restarted sender).
        let before = Stream(ssrc: 3, firstSequence: 20_000, firstTimestamp: 1_000_000)
        let after = Stream(ssrc: 3, firstSequence: 1, firstTimestamp: 3_000_000_000)
        let run = Run(arrivals(before, count: 50) + arrivals(after, count: 50, start: 1000), until: 2600)
        #expect(run.buffer.statistics.resets == 1)
        #expect(run.played.suffix(50) == (0..<50).map(after.sequence)[...])
        #expect(run.buffer.statistics.late == 0)
    }

    @Test func resetForgetsThePacketsButKeepsTheCounters() {
        var run = Run(arrivals(count: 20), until: 200)
        #expect(run.buffer.statistics.depth > 0)
        let played = run.buffer.statistics.played
        run.buffer.reset()
        #expect(run.buffer.statistics.depth == 0)
        #expect(run.buffer.statistics.resets == 1)
        #expect(run.buffer.statistics.played == played)
        #expect(run.buffer.pull(at: .milliseconds(225)) == .idle)
    }

    @Test func statisticsReportDepthDelaysAndCounters() {
        // A steady stream and a 50 ms floor: the target is the floor, and the playout delay sits near it.
        var configuration = JitterBufferConfiguration(clockRate: 8000, frameSamples: 160)
        configuration.minimumDelay = .milliseconds(50)
        let run = Run(arrivals(count: 200), until: 3000, configuration: configuration)
        let statistics = run.buffer.statistics
        // Packets 0...147 have arrived by 2985 ms.
        #expect(statistics.received == 148)
        // The target falls from the 60 ms initial delay to the floor: a frame may be dropped to get there.
        #expect(statistics.played + statistics.depth + statistics.accelerations == 148)
        #expect(statistics.accelerations <= 1)
        #expect(statistics.targetDelay == .milliseconds(50))
        #expect(statistics.playoutDelay >= .milliseconds(40) && statistics.playoutDelay < .milliseconds(70))
        #expect((2...4).contains(statistics.depth))
        #expect(statistics.bufferedDuration >= .milliseconds(40) && statistics.bufferedDuration <= .milliseconds(80))
        #expect(run.buffer.frameDuration == .milliseconds(20))

        // Jitter far beyond the maximum delay: the target stays at the maximum and the rest is late.
        configuration = JitterBufferConfiguration(clockRate: 8000, frameSamples: 160, maximumDelay: .milliseconds(80))
        var generator = SeededGenerator(seed: 3)
        let jittery = Run(
            arrivals(count: 500) { _ in Int64.random(in: 0...300, using: &generator) }, until: 10_600,
            configuration: configuration)
        #expect(jittery.buffer.statistics.targetDelay == .milliseconds(80))
        #expect(jittery.buffer.statistics.late > 0)
        #expect(jittery.buffer.statistics.depth <= configuration.capacity)
    }

    @Test func aDTXGapIsNotCountedAsLoss() {
        // Sequence numbers stay contiguous across a 200 ms gap in timestamps: the sender sent nothing.
        let stream = Stream()
        let packets = (0..<100).map { index in
            let gap = index >= 50 ? 10 : 0
            let packet = RTPPacket(
                payloadType: 0, sequenceNumber: stream.sequence(index),
                timestamp: stream.firstTimestamp &+ UInt32((index + gap) * 160), ssrc: stream.ssrc, payload: [0])
            return (time: Int64(index + gap) * 20 + 30, packet: packet)
        }
        let run = Run(packets, until: 3000)
        #expect(run.played == (0..<100).map(stream.sequence))
        #expect(run.buffer.statistics.lost == 0)
        #expect(run.buffer.statistics.late == 0)
        // While nothing comes the decoder conceals a few frames (it cannot tell a pause from a loss yet),
        // then the buffer goes idle; nothing is reported lost.
        #expect(run.missing.allSatisfy { $0.sequence == nil })
        #expect(run.missing.count <= JitterBufferTests.framesConcealedBeforeIdle)
        #expect(run.outputs.contains(.idle))
    }

    /// Empty pulls concealed before the buffer takes the sender to have paused.
    static let framesConcealedBeforeIdle = 5

    @Test func hostileInputNeverTrapsAndTheBufferStaysBounded() {
        // Out-of-range configuration: clamped.
        let configuration = JitterBufferConfiguration(
            clockRate: 0, frameSamples: 0, minimumDelay: .seconds(-5), maximumDelay: .seconds(1_000_000_000),
            initialDelay: .seconds(99), quantile: .nan, memory: .max, capacity: -3)
        var odd = JitterBuffer(configuration: configuration)
        #expect(odd.configuration.maximumDelay <= .seconds(10))
        #expect(odd.configuration.capacity >= 2)
        odd.put(Stream().packet(0), at: .zero)
        _ = odd.pull(at: .milliseconds(20))

        // Random sequence numbers, timestamps, SSRCs and arrival times (including extremes): no trap, and
        // never more than `capacity` packets held.
        var generator = SeededGenerator(seed: 99)
        var buffer = JitterBuffer(
            configuration: JitterBufferConfiguration(clockRate: 8000, frameSamples: 160, capacity: 16))
        let extremes: [Int64] = [.min, .max, 0, -1]
        for step in 0..<20_000 {
            let packet = RTPPacket(
                payloadType: UInt8.random(in: 0...127, using: &generator),
                sequenceNumber: UInt16.random(in: .min ... .max, using: &generator),
                timestamp: UInt32.random(in: .min ... .max, using: &generator),
                ssrc: UInt32.random(in: 0...2, using: &generator), payload: [])
            let time: Int64 =
                step % 97 == 0
                ? extremes[step % extremes.count]
                : Int64.random(in: -1_000_000_000_000...1_000_000_000_000, using: &generator)
            buffer.put(packet, at: MediaInstant(nanoseconds: time))
            #expect(buffer.statistics.depth <= 16)
            if step % 3 == 0 { _ = buffer.pull(at: MediaInstant(nanoseconds: time &+ 20_000_000)) }
        }
        // Then a well-behaved stream (its packets far behind the noise in time and sequence): after the
        // caller's reset it plays in full.
        buffer.reset()
        let stream = Stream(ssrc: 77)
        let run = Run(arrivals(stream), until: 2600, buffer: buffer)
        // (The default 60 ms initial delay comes down to the measured jitter: a frame or two dropped.)
        #expect(run.played.count + run.buffer.statistics.accelerations - buffer.statistics.accelerations == 100)
        #expect(run.played == run.played.sorted())
        #expect(run.buffer.statistics.late == buffer.statistics.late)
    }
}
