import Media
import SDP
import Testing

@Suite("Media session: latching, media timeout and RTCP")
struct MediaSessionNetworkTests {
    @Test func latchesToTheAddressBobsPacketsComeFrom() throws {
        // Bob is behind a NAT: his SDP says 192.0.2.2:5000, his packets come from 203.0.113.7:6000.
        var call = try Call(bobAddress: "10.0.0.2:5000")
        call.network.publicAddress[Call.bob] = "203.0.113.7:6000"
        call.network.run(until: .seconds(2))
        #expect(call.alice.session.rtpDestination == "203.0.113.7:6000")
        #expect(call.alice.events.map(\.event) == [.latched("203.0.113.7:6000", port: .rtp)])
        // Until the first of Bob's packets arrived (at 30 ms), Alice's went to the SDP's address.
        #expect(call.network.undeliverable == 2)
        #expect(call.bob.audio.hearsTone(440) && call.alice.audio.hearsTone(440))
    }

    @Test func anotherSourceIsRefusedWhileTheLatchedOneLivesThenTakesOver() throws {
        var call = try Call()
        call.network.run(until: .seconds(1))
        // A second source with a valid packet of the negotiated payload type: refused while Bob is alive.
        var session = call.alice.session
        let stray = RTPPacket(payloadType: 0, sequenceNumber: 1, timestamp: 1, ssrc: 9, payload: [0xFF][...])
        session.receive(try stray.serialized(), from: "198.51.100.1:9", on: .rtp, at: .seconds(1))
        #expect(session.statistics.rejectedSource == 1)
        #expect(session.rtpDestination == "192.0.2.2:5000")
        call.alice.session = session
        // Bob moves (a NAT rebinding): after 2 s of silence from the old address, the new one takes over.
        call.network.publicAddress[Call.bob] = "203.0.113.8:7000"
        call.network.run(until: .seconds(4))
        #expect(call.alice.session.rtpDestination == "203.0.113.8:7000")
        #expect(call.alice.events.map(\.event).contains(.latched("203.0.113.8:7000", port: .rtp)))
        #expect(call.alice.session.statistics.rejectedSource > 50)
    }

    @Test func theMediaTimeoutFiresAtTheRightVirtualTime() throws {
        var configuration = MediaSessionConfiguration()
        configuration.mediaTimeout = .seconds(5)
        var call = try Call(configuration: configuration)
        call.network.run(until: .seconds(3))
        // Bob stops sending at 3 s: his last packet left at 3.000 s and reached Alice at 3.030 s.
        call.bob.session.setSending(.off)
        call.network.run(until: .seconds(14))
        let timeouts = call.alice.events.filter { $0.event == .mediaTimeout }.map(\.time)
        #expect(timeouts == [.milliseconds(8030), .milliseconds(13_030)])
        #expect(!call.bob.events.contains { $0.event == .mediaTimeout })
    }

    @Test func aHeldCallDoesNotTimeOut() throws {
        var configuration = MediaSessionConfiguration()
        configuration.mediaTimeout = .seconds(5)
        var call = try Call(configuration: configuration)
        // Alice holds: she offers sendonly, Bob answers recvonly.
        try call.renegotiate(hold: true)
        let (held, answer) = call.negotiated
        call.network.run(until: .seconds(20))
        #expect(held.direction == .sendonly && answer.direction == .recvonly)
        #expect(call.network.endpoints.allSatisfy { !$0.events.contains { $0.event == .mediaTimeout } })
        // Bob sends nothing to a sendonly peer; Alice still sends.
        #expect(call.delivered(from: Call.bob, .rtp).filter { $0.arrival > .milliseconds(100) }.isEmpty)
        #expect(call.bob.audio.hearsTone(440))
    }

    @Test func packetsCrossingTheHoldAreNotCountedLost() throws {
        var call = try Call()
        call.network.run(until: .seconds(1))
        // Alice holds while Bob's last packets are on their way (30 ms): they arrive after she took the
        // answer, and she drops them unplayed; then she resumes.
        try call.renegotiate(hold: true)
        call.network.run(until: .seconds(2))
        let dropped = call.alice.session.statistics.notReceiving
        call.alice.session.prepareToReceive(at: call.network.now)
        try call.renegotiate(resume: true)
        call.network.run(until: .seconds(3))
        let statistics = call.alice.session.statistics
        #expect(dropped > 0)
        #expect(statistics.packetsLost == 0 && statistics.lossFraction == 0)
        #expect(call.alice.audio.hearsTone(440))
    }

    @Test(arguments: [true, false])
    func rtcpReportsGiveTheRoundTripTime(isRTCPMuxed: Bool) throws {
        var call = try Call(Negotiation(isRTCPMuxed: isRTCPMuxed))
        call.network.run(until: .seconds(30))
        for side in [call.alice, call.bob] {
            let statistics = side.session.statistics
            #expect(statistics.rtcpSent >= 4 && statistics.rtcpReceived >= 3)
            // Two 30 ms crossings, in NTP's 1/65536 s units.
            let rtt = try #require(statistics.roundTripMilliseconds)
            #expect(abs(rtt - 60) < 0.1)
        }
        let reports = call.delivered(from: Call.alice, .rtcp)
        #expect(reports.allSatisfy { $0.destination == (isRTCPMuxed ? "192.0.2.2:5000" : "192.0.2.2:5001") })
        #expect(reports.allSatisfy { $0.source == (isRTCPMuxed ? "192.0.2.1:4000" : "192.0.2.1:4001") })
    }

    @Test func srtcpRoundTrips() throws {
        var call = try Call(Negotiation(srtp: true, isRTCPMuxed: false))
        call.network.run(until: .seconds(20))
        #expect(call.alice.session.statistics.rtcpReceived >= 2 && call.alice.session.statistics.srtpFailures == 0)
        #expect(call.alice.session.statistics.roundTripMilliseconds != nil)
    }

    @Test func closingSendsAGoodbye() throws {
        var call = try Call()
        call.network.run(until: .seconds(1))
        call.alice.session.close(at: call.network.now, reason: "bye now")
        call.network.drain(Call.alice)
        let final = call.alice.session.statistics
        call.network.run(until: .seconds(2))
        #expect(call.alice.session.isClosed && call.alice.session.nextDeadline == nil)
        #expect(call.bob.events.map(\.event).contains(.goodbye(reason: "bye now")))
        #expect(final.packetsSent == 51 && call.alice.session.statistics == final)
        #expect(throws: MediaSessionError.closed) { try call.configure(Call.alice, call.negotiated.alice) }
    }
}

@Suite("Media session: latching off (ICE decides the path)")
struct MediaSessionLatchingOffTests {
    @Test func everySourceIsTakenAndTheDestinationStays() throws {
        var call = try Call()
        call.alice.session.isLatching = false
        call.network.publicAddress[Call.bob] = "203.0.113.7:6000"
        call.network.run(until: .seconds(1))
        var session = call.alice.session
        let stray = RTPPacket(payloadType: 0, sequenceNumber: 60, timestamp: 9600, ssrc: 9, payload: [0xFF][...])
        session.receive(try stray.serialized(), from: "198.51.100.1:9", on: .rtp, at: .seconds(1))
        #expect(session.statistics.rejectedSource == 0)
        #expect(session.rtpDestination == "192.0.2.2:5000")
        #expect(call.alice.events.isEmpty)
        #expect(call.bob.audio.hearsTone(440))
    }
}
