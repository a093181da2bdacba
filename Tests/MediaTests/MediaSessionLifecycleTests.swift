import Media
import SDP
import Testing

@Suite("Media session: early media, activation and re-negotiation")
struct MediaSessionLifecycleTests {
    @Test func earlyMediaPlaysWithoutSending() throws {
        // Alice got a 183 with SDP: Bob's announcement plays, Alice sends nothing yet.
        var call = try Call()
        call.alice.session.setActivity(.earlyMedia)
        call.network.run(until: .seconds(2))
        #expect(call.alice.audio.hearsTone(440))
        #expect(call.alice.session.statistics.packetsSent == 0 && call.alice.audio.captures == 0)
        #expect(call.alice.audio.sent.isEmpty && call.delivered(from: Call.alice, .rtp).isEmpty)
        #expect(call.bob.session.statistics.packetsReceived == 0)
        // The answer and the app's audio activation: both ways from then on.
        call.alice.session.setSending(.audio)
        #expect(call.alice.session.activity == .active)
        call.network.run(until: .seconds(4))
        #expect(call.bob.audio.hearsTone(440))
        #expect(call.alice.session.statistics.packetsSent == 100)
    }

    @Test func beforeActivationSilenceGoesOutAndNothingPlays() throws {
        var call = try Call(activity: .awaitingActivation)
        call.network.run(until: .seconds(1))
        for side in [call.alice, call.bob] {
            #expect(side.audio.played.isEmpty && side.audio.captures == 0)
            #expect(side.session.statistics.packetsSent == 51)
            #expect(side.audio.sent.allSatisfy { $0.origin == .silence })
        }
        call.alice.session.setActivity(.active)
        call.bob.session.setPlayout(true)
        call.network.run(until: .seconds(3))
        #expect(call.bob.audio.hearsTone(440) && !call.bob.audio.played.isEmpty)
        #expect(call.alice.audio.played.allSatisfy { AudioAnalysis.rms($0.samples) < 10 })
    }

    @Test func aReofferWithTheSameMediaKeepsEveryState() throws {
        var call = try Call(bobAddress: "10.0.0.2:5000")
        call.network.publicAddress[Call.bob] = "203.0.113.7:6000"
        call.network.run(until: .seconds(2))
        let ssrc = call.alice.session.ssrc
        let received = call.bob.session.statistics.packetsReceived
        try call.renegotiate()
        #expect(call.alice.session.rtpDestination == "203.0.113.7:6000", "the latch is kept")
        call.network.run(until: .seconds(4))
        #expect(call.alice.session.ssrc == ssrc)
        #expect(call.bob.session.statistics.packetsReceived == received + 100)
        #expect(call.alice.events.count == 1 && call.bob.session.statistics.packetsLost == 0)
    }

    @Test func holdChangesOnlyTheDirection() throws {
        var call = try Call()
        call.network.run(until: .seconds(1))
        let ssrcs = (call.alice.session.ssrc, call.bob.session.ssrc)
        try call.renegotiate(hold: true)
        call.network.run(until: .seconds(2))
        #expect((call.alice.session.ssrc, call.bob.session.ssrc) == ssrcs)
        // Bob answered recvonly: he stops sending, and keeps receiving Alice's audio without a reset.
        let bobsLast = call.delivered(from: Call.bob, .rtp).last?.arrival ?? .zero
        #expect(bobsLast <= .milliseconds(1030))
        let statistics = call.bob.session.statistics
        #expect(statistics.packetsReceived == 98 && statistics.packetsLost == 0)
    }

    @Test func aNewCodecAtTheSameRateKeepsTheSource() throws {
        var call = try Call(Negotiation(codecs: [.pcmu, .pcma, .telephoneEvent()]))
        call.network.run(until: .seconds(1))
        let ssrc = call.alice.session.ssrc
        call.negotiation.alice.configuration.codecs = [.pcma, .telephoneEvent()]
        call.negotiation.bob.configuration.codecs = [.pcma, .telephoneEvent()]
        try call.renegotiate()
        call.network.run(until: .seconds(3))
        #expect(call.alice.session.codec == .pcma && call.alice.session.statistics.codec == "PCMA")
        #expect(call.alice.session.ssrc == ssrc)
        // The receive statistics go on across the change; only the two PCMU packets in flight when Bob
        // switched were dropped (and so count as lost).
        let statistics = call.bob.session.statistics
        #expect(statistics.unexpectedPayloadType == 2 && statistics.packetsLost == 2)
        #expect(statistics.packetsReceived == 146)
        #expect(call.bob.audio.hearsTone(440))
    }

    @Test func aNewClockRateIsANewSource() throws {
        var call = try Call(Negotiation(codecs: [.pcmu, .opus(), .telephoneEvent()]))
        call.network.run(until: .seconds(1))
        let ssrc = call.alice.session.ssrc
        call.negotiation.alice.configuration.codecs = [.opus(), .telephoneEvent(clockRate: 48000)]
        call.negotiation.bob.configuration.codecs = [.opus(), .telephoneEvent(clockRate: 48000)]
        try call.renegotiate()
        call.network.run(until: .seconds(3))
        #expect(call.alice.session.codec == .opus && call.alice.session.ssrc != ssrc)
        #expect(call.bob.audio.hearsTone(440) && call.bob.audio.played.last?.format == .fullband)
    }

    @Test func aNewAddressStartsTheLatchOver() throws {
        var call = try Call(bobAddress: "10.0.0.2:5000")
        call.network.publicAddress[Call.bob] = "203.0.113.7:6000"
        call.network.run(until: .seconds(1))
        #expect(call.alice.session.rtpDestination == "203.0.113.7:6000")
        // Bob's re-offer moves his media to another address.
        call.negotiation.bob.configuration.address = "192.0.2.20"
        let offer = try call.negotiation.bob.makeOffer()
        try call.negotiation.alice.receiveOffer(offer)
        let answer = try call.negotiation.alice.makeAnswer()
        try call.configure(Call.alice, answer.session)
        #expect(call.alice.session.rtpDestination == "192.0.2.20:5000")
        call.network.run(until: .seconds(2))
        #expect(call.alice.session.rtpDestination == "203.0.113.7:6000")
        #expect(call.alice.events.filter { $0.event == .latched("203.0.113.7:6000", port: .rtp) }.count == 2)
    }

    @Test func aFailedNegotiationStopsTheMedia() throws {
        var call = try Call(Negotiation(codecs: [.pcmu, .pcma, .telephoneEvent()]))
        call.network.run(until: .seconds(1))
        var unknown = call.negotiated.alice
        unknown.codec.encodingName = "G729"
        #expect(throws: MediaSessionError.unsupportedCodec("G729/8000")) { try call.configure(Call.alice, unknown) }
        #expect(call.alice.session.nextDeadline == nil && call.alice.session.codec == nil)
        try call.configure(Call.alice, call.negotiated.alice)
        call.network.run(until: .seconds(2))
        #expect(call.bob.audio.hearsTone(440))
    }
}
