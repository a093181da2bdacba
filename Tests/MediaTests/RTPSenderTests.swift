import Media
import Testing

@Suite("RTP sender (RFC 3550 §5.1, §8.1)")
struct RTPSenderTests {
    @Test func startsFromRandomValues() {
        var generator = SeededGenerator(seed: 42)
        let a = RTPSender(payloadType: 0, clockRate: 8000, using: &generator)
        let b = RTPSender(payloadType: 0, clockRate: 8000, using: &generator)
        #expect(a.ssrc != b.ssrc)
        #expect(a.nextSequenceNumber != b.nextSequenceNumber || a.nextTimestamp != b.nextTimestamp)
        var again = SeededGenerator(seed: 42)
        let c = RTPSender(payloadType: 0, clockRate: 8000, using: &again)
        #expect(c.ssrc == a.ssrc && c.nextSequenceNumber == a.nextSequenceNumber && c.nextTimestamp == a.nextTimestamp)
    }

    @Test func advancesSequenceAndTimestampPerFrameAndMarksTalkspurts() {
        var sender = RTPSender(
            ssrc: 1, firstSequenceNumber: 65534, firstTimestamp: 0xFFFF_FF00, payloadType: 8, clockRate: 8000)
        let frame = [UInt8](repeating: 0xD5, count: 160)
        let first = sender.packet(payload: frame, samples: 160)
        let second = sender.packet(payload: frame, samples: 160)
        #expect(first.marker && !second.marker)
        #expect(first.sequenceNumber == 65534 && second.sequenceNumber == 65535)
        #expect(first.timestamp == 0xFFFF_FF00 && second.timestamp == 0xFFFF_FFA0)
        // Two silent frames not sent (DTX): the timestamp moves on, the sequence does not, marker again.
        sender.skip(samples: 320)
        let third = sender.packet(payload: frame, samples: 160)
        #expect(third.marker)
        #expect(third.sequenceNumber == 0)
        #expect(third.timestamp == 0xFFFF_FFA0 &+ 160 &+ 320)
        #expect(sender.packetCount == 3 && sender.octetCount == 480)
        #expect(third.payloadType == 8 && third.ssrc == 1)
    }

    @Test func eventPacketsShareTheSequenceButNotTheMediaTimestamp() {
        var sender = RTPSender(ssrc: 1, firstSequenceNumber: 10, firstTimestamp: 1000, payloadType: 0, clockRate: 8000)
        _ = sender.packet(payload: [0], samples: 160)
        let event = sender.makePacket(payload: [1, 0x8A, 0, 160][...], payloadType: 101, timestamp: 1160, marker: true)
        #expect(event.sequenceNumber == 11 && event.timestamp == 1160 && event.payloadType == 101)
        #expect(sender.nextTimestamp == 1160)
        #expect(sender.nextSequenceNumber == 12)
    }

    @Test func mapsWallTimeOntoRTPTimeForSenderReports() {
        var sender = RTPSender(ssrc: 1, firstSequenceNumber: 0, firstTimestamp: 5000, payloadType: 0, clockRate: 8000)
        #expect(sender.rtpTimestamp(at: .milliseconds(0)) == nil)
        _ = sender.packet(payload: [0], samples: 160, at: .milliseconds(1000))
        #expect(sender.rtpTimestamp(at: .milliseconds(1000)) == 5000)
        #expect(sender.rtpTimestamp(at: .milliseconds(1250)) == 7000)
    }

    @Test func changesSSRCOnCollision() {
        var generator = SeededGenerator(seed: 7)
        var sender = RTPSender(payloadType: 0, clockRate: 8000, using: &generator)
        let old = sender.ssrc
        _ = sender.packet(payload: [1], samples: 160)
        sender.changeSSRC(using: &generator)
        #expect(sender.ssrc != old)
        #expect(sender.packetCount == 0)
        #expect(sender.packet(payload: [1], samples: 160).marker)
    }
}
