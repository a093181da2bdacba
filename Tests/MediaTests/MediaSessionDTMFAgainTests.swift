import Media
import SDP
import Testing

@Suite("Media session: telephone-events made on demand")
struct MediaSessionDTMFAgainTests {
    @Test func digitsSentAfterEarlierOnesFinishedGoOutToo() throws {
        var call = try Call()
        call.network.run(until: .milliseconds(500))
        let first = call.alice.session.sendDigits([.one, .two])
        #expect(first)
        call.network.run(until: .seconds(2))
        #expect(call.bob.digits == [.one, .two])
        // The sender was let go once idle; new digits make a new one, on the same RTP timeline.
        let second = call.alice.session.sendDigits([.three])
        let third = call.alice.session.sendDigits([.four])
        #expect(second && third)
        call.network.run(until: .seconds(4))
        #expect(call.bob.digits == [.one, .two, .three, .four])
        #expect(call.alice.session.statistics.dtmfSent == 4 && call.bob.session.statistics.dtmfReceived == 4)
        let events = call.delivered(from: Call.alice, .rtp).compactMap { try? RTPPacket(parsing: $0.bytes) }
            .filter { $0.payloadType == 101 }
        #expect(events.count == 28 && events.filter(\.marker).count == 4)
        #expect(call.bob.audio.hearsTone(440))
    }
}
