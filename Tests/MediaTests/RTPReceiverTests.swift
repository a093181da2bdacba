import Media
import Testing

@Suite("RTP receiver statistics (RFC 3550 A.1, A.3, A.8)")
struct RTPReceiverTests {
    func packet(_ sequence: UInt16, _ timestamp: UInt32, ssrc: UInt32 = 0xAAAA) -> RTPPacket {
        RTPPacket(payloadType: 0, sequenceNumber: sequence, timestamp: timestamp, ssrc: ssrc, payload: [0, 0][...])
    }

    @Test func aNewSourceIsOnProbationUntilTwoPacketsArriveInSequence() {
        var receiver = RTPReceiver(clockRate: 8000)
        #expect(receiver.receive(packet(100, 0), size: 14, at: .milliseconds(0)) == .probation)
        #expect(receiver.source == nil)
        #expect(receiver.receive(packet(105, 800), size: 14, at: .milliseconds(20)) == .probation)
        #expect(receiver.receive(packet(106, 960), size: 14, at: .milliseconds(40)) == .newSource(previous: nil))
        #expect(receiver.receive(packet(107, 1120), size: 14, at: .milliseconds(60)) == .accepted)
        #expect(receiver.source?.isValid == true)
        #expect(receiver.source?.validPackets == 2)
        #expect(receiver.source?.packetsReceived == 4)
        #expect(receiver.source?.bytesReceived == 56)
    }

    @Test func sequenceWrapCountsACycle() {
        var source = RTPSourceStatistics(ssrc: 1, firstSequenceNumber: 65533, clockRate: 8000)
        for (i, sequence) in [65533, 65534, 65535, 0, 1].enumerated() {
            source.receive(packet(UInt16(sequence), UInt32(i * 160)), size: 14, at: .milliseconds(Int64(i * 20)))
        }
        #expect(source.extendedHighestSequenceNumber == 0x1_0001)
        #expect(source.expectedPackets == 4)
        #expect(source.cumulativeLost == 0)
    }

    @Test func lossIsCumulativeAndFractionalPerReport() {
        var source = RTPSourceStatistics(ssrc: 1, firstSequenceNumber: 0, clockRate: 8000)
        // 0...99 with every 10th lost.
        for sequence in 0..<100 where sequence % 10 != 5 {
            source.receive(
                packet(UInt16(sequence), UInt32(sequence * 160)), size: 14, at: .milliseconds(Int64(sequence * 20)))
        }
        var block = source.makeReportBlock(at: .seconds(2))
        #expect(source.cumulativeLost == 10)
        #expect(block.cumulativeLost == 10)
        // 10 lost of 99 expected since the source became valid at sequence 1: 10 * 256 / 99 = 25.
        #expect(block.fractionLost == 25)
        #expect(block.extendedHighestSequenceNumber == 99)
        // The next interval without loss reports 0; a duplicate makes the interval's loss negative: 0.
        for sequence in 100..<150 {
            source.receive(
                packet(UInt16(sequence), UInt32(sequence * 160)), size: 14, at: .milliseconds(Int64(sequence * 20)))
        }
        source.receive(packet(149, 149 * 160), size: 14, at: .seconds(3))
        block = source.makeReportBlock(at: .seconds(3))
        #expect(block.fractionLost == 0)
        #expect(block.cumulativeLost == 9)
    }

    @Test func aLargeJumpNeedsConfirmationThenRestarts() {
        var source = RTPSourceStatistics(ssrc: 1, firstSequenceNumber: 10, clockRate: 8000)
        for sequence in 10..<20 { source.receive(packet(UInt16(sequence), 0), size: 14, at: .zero) }
        #expect(source.receive(packet(30_000, 0), size: 14, at: .zero) == .badSequence)
        #expect(source.receive(packet(20, 0), size: 14, at: .zero) == .valid)
        #expect(source.receive(packet(40_000, 0), size: 14, at: .zero) == .badSequence)
        #expect(source.receive(packet(40_001, 0), size: 14, at: .zero) == .restarted)
        #expect(source.restarts == 1)
        #expect(source.expectedPackets == 1)
        // Late packets within MAX_MISORDER still count.
        #expect(source.receive(packet(39_950, 0), size: 14, at: .zero) == .valid)
    }

    @Test func jitterFollowsA8() {
        // Packets every 20 ms with alternating +0/+4 ms arrival jitter: |D| = 4 ms = 32 units every packet,
        // so J converges to 32 units.
        var source = RTPSourceStatistics(ssrc: 1, firstSequenceNumber: 0, clockRate: 8000)
        for i in 0..<400 {
            let arrival = MediaInstant(nanoseconds: Int64(i) * 20_000_000 + (i % 2 == 1 ? 4_000_000 : 0))
            source.receive(packet(UInt16(i), UInt32(i * 160)), size: 14, at: arrival)
        }
        #expect(source.jitter == 31 || source.jitter == 32)
        #expect(abs(source.jitterMilliseconds - 4) < 0.1)
        // No jitter without arrival variation; timestamps that wrap do not disturb it.
        var steady = RTPSourceStatistics(ssrc: 1, firstSequenceNumber: 0, clockRate: 8000)
        for i in 0..<100 {
            steady.receive(
                packet(UInt16(i), UInt32(0xFFFF_F000) &+ UInt32(i * 160)), size: 14,
                at: .milliseconds(Int64(i) * 20))
        }
        #expect(steady.jitter == 0)
    }

    @Test func anSSRCChangeResetsTheStatistics() {
        var receiver = RTPReceiver(clockRate: 8000)
        for i in 0..<10 {
            _ = receiver.receive(packet(UInt16(i), UInt32(i * 160)), size: 14, at: .milliseconds(Int64(i * 20)))
        }
        #expect(receiver.source?.ssrc == 0xAAAA)
        // The new source plays while on probation; the old one stays current until the new one is valid.
        #expect(receiver.receive(packet(5000, 0, ssrc: 0xBBBB), size: 14, at: .milliseconds(200)) == .probation)
        #expect(receiver.receive(packet(10, 1600), size: 14, at: .milliseconds(200)) == .accepted)
        #expect(
            receiver.receive(packet(5001, 160, ssrc: 0xBBBB), size: 14, at: .milliseconds(220))
                == .newSource(previous: 0xAAAA))
        #expect(receiver.source?.ssrc == 0xBBBB)
        #expect(receiver.source?.packetsReceived == 2)
        #expect(receiver.sourceChanges == 1)
    }

    @Test func reportBlocksCarryLSRAndDLSR() {
        var receiver = RTPReceiver(clockRate: 8000)
        for i in 0..<3 {
            _ = receiver.receive(packet(UInt16(i), UInt32(i * 160)), size: 14, at: .milliseconds(Int64(i * 20)))
        }
        receiver.receivedSenderReport(
            from: 0xAAAA, ntp: NTPTimestamp(seconds: 0x1234_5678, fraction: 0x9ABC_DEF0), at: .seconds(1))
        let blocks = receiver.makeReportBlocks(at: .milliseconds(1500))
        #expect(blocks.count == 1)
        #expect(blocks.first?.lastSenderReport == 0x5678_9ABC)
        #expect(blocks.first?.delaySinceLastSenderReport == 32768)
    }
}
