import Media
import SDP
import Testing

@Suite("Media session: RFC 4733 telephone-events")
struct MediaSessionDTMFTests {
    @Test func digitsGoBothWays() throws {
        var call = try Call()
        call.network.run(until: .milliseconds(500))
        #expect(call.alice.session.sendsTelephoneEvents)
        let aliceQueued = call.alice.session.sendDigits(DTMFDigit.digits("12#") ?? [])
        let bobQueued = call.bob.session.sendDigits([.nine, .star])
        #expect(aliceQueued && bobQueued)
        call.network.run(until: .seconds(3))
        #expect(call.bob.digits == [.one, .two, .pound])
        #expect(call.alice.digits == [.nine, .star])
        #expect(call.alice.session.statistics.dtmfSent == 3 && call.bob.session.statistics.dtmfReceived == 3)
        #expect(call.bob.session.statistics.dtmfSent == 2 && call.alice.session.statistics.dtmfReceived == 2)
        // Each event: seven packets (three of them end packets), marker on the first.
        let events = call.delivered(from: Call.alice, .rtp).compactMap { try? RTPPacket(parsing: $0.bytes) }
            .filter { $0.payloadType == 101 }
        #expect(events.count == 21 && events.filter(\.marker).count == 3)
        // Audio goes on around the digits, with the marker bit after each event (RFC 3551 §4.1).
        #expect(call.bob.audio.hearsTone(440))
    }

    @Test func withoutTelephoneEventDigitsAreRefused() throws {
        var call = try Call(Negotiation(codecs: [.pcmu]))
        #expect(!call.alice.session.sendsTelephoneEvents)
        let queued = call.alice.session.sendDigits([.one])
        #expect(!queued)
        call.network.run(until: .seconds(1))
        #expect(call.alice.session.statistics.dtmfSent == 0)
    }

    @Test(arguments: [990_000_000, 3_300_000_000] as [UInt32])
    func aPeerThatJumpsItsTimestampAfterTheFirstDigitIsHeardInFull(jump: UInt32) throws {
        // A FreeSWITCH-like peer, written by hand: audio, then "1234" with the RTP clock moved after "1". Each
        // frame holds eight whole periods of 400 Hz, so the frames join without a click.
        let call = try Call()
        var session = call.alice.session
        var audio = TestAudio()
        let peer = "192.0.2.2:5000"
        var sequence: UInt16 = 30_000
        var timestamp: UInt32 = 123_456
        var tones = TelephoneEventSender()
        tones.send([.one, .two, .three, .four])
        let payload = G711Encoder.encode(AudioFixtures.tone(400, count: 160, sampleRate: 8000), law: .muLaw)
        var time = MediaInstant.zero
        for interval in 0..<300 {
            time = .milliseconds(Int64(interval) * 20 + 5)
            let moved = interval >= 60 ? timestamp &+ jump : timestamp
            let packet: RTPPacket
            if interval >= 50, let tone = tones.nextPacket(timestamp: moved) {
                packet = RTPPacket(
                    payloadType: 101, sequenceNumber: sequence, timestamp: tone.timestamp, ssrc: 77,
                    marker: tone.isMarker, payload: tone.payload.bytes[...])
            } else {
                packet = RTPPacket(
                    payloadType: 0, sequenceNumber: sequence, timestamp: moved, ssrc: 77, marker: interval == 60,
                    payload: payload[...])
            }
            session.receive(try packet.serialized(), from: peer, on: .rtp, at: time)
            session.advance(to: time, audio: &audio)
            sequence &+= 1
            timestamp &+= 160
        }
        var digits: [DTMFDigit] = []
        while let event = session.nextEvent() { if case .dtmf(let digit) = event { digits.append(digit) } }
        #expect(digits == [.one, .two, .three, .four])
        #expect(session.statistics.lateDropped == 0)
        // The audio after the jump plays.
        #expect(audio.decoded.filter { $0.instant > .seconds(5) }.count >= 45)
        #expect(audio.hearsTone(400))
    }
}
