import Media
import SDP
import Testing

@Suite("Media session: audio both ways")
struct MediaSessionAudioTests {
    @Test func g711FlowsBothWays() throws {
        var call = try Call()
        call.network.run(until: .seconds(4))
        #expect(call.negotiated.alice.codec.encodingName == "PCMU")
        #expect(call.alice.session.codec == .pcmu && call.alice.session.sendFormat == .narrowband)
        for side in [call.alice, call.bob] {
            let statistics = side.session.statistics
            // A packet every 20 ms from 0 to 4 s; those of the last 30 ms are still in flight, and the first
            // one is on probation (RFC 3550 A.1).
            #expect(statistics.packetsSent == 201)
            #expect(statistics.bytesSent == 201 * 172)
            #expect(statistics.packetsReceived == 198 && statistics.expected == 198)
            #expect(statistics.packetsLost == 0 && statistics.lateDropped == 0 && statistics.srtpFailures == 0)
            #expect(statistics.codec == "PCMU")
            #expect(side.audio.hearsTone(440))
            #expect(side.audio.decoded.count >= 190)
            #expect(side.audio.sent.count == 201 && side.audio.sent.allSatisfy { $0.origin == .media })
            // A frame every tick, silence before the first packet: a recording keeps the call's time.
            #expect(side.audio.played.count == 201 && side.audio.played.first?.origin == .silence)
        }
    }
}

extension MediaSessionAudioTests {
    @Test func opusFlowsBothWays() throws {
        var call = try Call(Negotiation(codecs: [.opus(), .telephoneEvent(clockRate: 48000)]))
        call.network.run(until: .seconds(3))
        #expect(call.alice.session.codec == .opus && call.bob.session.receiveFormat == .fullband)
        for side in [call.alice, call.bob] {
            let statistics = side.session.statistics
            #expect(statistics.codec == "opus")
            #expect(statistics.packetsSent == 151 && statistics.packetsLost == 0)
            #expect(side.audio.hearsTone(440))
            #expect(side.audio.played.allSatisfy { $0.samples.count == 960 })
        }
    }

    @Test func srtpRoundTripsAndAuthenticationFailuresAreCounted() throws {
        var call = try Call(Negotiation(srtp: true))
        #expect(call.negotiated.alice.srtp != nil)
        // Every 25th RTP packet from Bob is corrupted on the way: its tag no longer matches.
        var count = 0
        call.network.intercept = { flight in
            guard flight.sender == Call.bob, MediaDatagramKind(classifying: flight.bytes) == .rtp else { return true }
            count += 1
            if count % 25 == 0 { flight.bytes[20] ^= 0x01 }
            return true
        }
        call.network.run(until: .seconds(3))
        // Bob sent 151 packets; 150 is still in flight at the end.
        #expect(call.alice.session.statistics.srtpFailures == 5)
        #expect(call.bob.session.statistics.srtpFailures == 0)
        #expect(call.alice.audio.hearsTone(440) && call.bob.audio.hearsTone(440))
        // The packets on the wire are not plain RTP: 172 bytes of G.711 plus the 10-byte tag.
        #expect(call.delivered(from: Call.alice, .rtp).allSatisfy { $0.bytes.count == 182 })
        #expect(call.alice.session.statistics.lateDropped == 0)
    }

    @Test func muteSendsSilenceWithoutReadingTheSource() throws {
        var call = try Call()
        call.network.run(until: .seconds(1))
        call.alice.session.setMuted(true)
        let captures = call.alice.audio.captures
        call.network.run(until: .seconds(2))
        #expect(call.alice.session.isMuted)
        #expect(call.alice.audio.captures == captures)
        let mutedSent = call.alice.audio.sent.filter { $0.instant > .seconds(1) }
        #expect(mutedSent.count == 50 && mutedSent.allSatisfy { $0.origin == .silence })
        // Bob keeps getting packets (of silence).
        let heard = call.bob.audio.decoded.filter { $0.instant > .milliseconds(1200) }
        #expect(heard.count >= 40 && heard.allSatisfy { AudioAnalysis.rms($0.samples) < 10 })
        call.alice.session.setMuted(false)
        call.network.run(until: .seconds(3))
        #expect(call.alice.audio.captures > captures && call.bob.audio.hearsTone(440))
    }

    @Test func aLateDriverSkipsIntervalsInsteadOfBursting() throws {
        var call = try Call()
        var session = call.alice.session
        var audio = TestAudio()
        session.advance(to: .seconds(10), audio: &audio)
        var packets = 0
        while let transmission = session.nextTransmission() {
            if MediaDatagramKind(classifying: transmission.bytes) == .rtp { packets += 1 }
        }
        // Five intervals are caught up; the other 496 pass unsent (their RTP time still passes).
        #expect(packets == 5 && session.statistics.skippedTicks == 496)
        #expect(session.nextDeadline == .milliseconds(10_020))
        call.alice.session = session
    }
}
