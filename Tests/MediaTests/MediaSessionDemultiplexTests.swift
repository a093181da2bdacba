import Media
import Testing

@Suite("Media session: demultiplexing and hostile input")
struct MediaSessionDemultiplexTests {
    static let stunBindingRequest: [UInt8] =
        [0x00, 0x01, 0x00, 0x00, 0x21, 0x12, 0xA4, 0x42] + Array(repeating: 7, count: 12)

    @Test func eachKindGoesToItsSeamOrIsDroppedAndCounted() throws {
        var call = try Call()
        var session = call.alice.session
        let peer = "198.51.100.9:7000"
        session.seams.stun = { datagram, source, port, _ in
            // A stand-in answer: what a STUN agent would send back to the same address and port.
            [MediaTransmission(bytes: Array(datagram.prefix(2)), destination: source, port: port)]
        }
        let now = MediaInstant.milliseconds(5)
        session.receive(Self.stunBindingRequest, from: peer, on: .rtp, at: now)
        #expect(session.nextTransmission() == MediaTransmission(bytes: [0x00, 0x01], destination: peer, port: .rtp))
        session.receive([20, 0xFE, 0xFD, 0, 0], from: peer, on: .rtp, at: now)
        session.receive([64, 0, 0, 4, 1, 2, 3, 4], from: peer, on: .rtcp, at: now)
        session.receive([16, 0, 0, 0], from: peer, on: .rtp, at: now)
        session.receive([200, 0, 0, 0], from: peer, on: .rtp, at: now)
        session.receive([], from: peer, on: .rtp, at: now)
        #expect(session.nextTransmission() == nil)
        let counts = session.statistics.demultiplexed
        #expect(counts.received == [.stun: 1, .dtls: 1, .turnChannelData: 1, .zrtp: 1, .unknown: 2])
        #expect(counts.dropped == [.dtls: 1, .turnChannelData: 1, .zrtp: 1, .unknown: 2])
        call.alice.session = session
    }

    @Test func dtlsAndChannelDataReachTheirHandlers() throws {
        let call = try Call()
        var session = call.alice.session
        var seen: [MediaDatagramKind] = []
        session.seams.dtls = { datagram, _, _, _ in
            seen.append(MediaDatagramKind(classifying: datagram))
            return []
        }
        session.seams.turnChannelData = { datagram, _, _, _ in
            seen.append(MediaDatagramKind(classifying: datagram))
            return []
        }
        session.receive([22, 0xFE, 0xFD], from: "x", on: .rtp, at: .zero)
        session.receive([0x40, 0x00, 0x00, 0x00], from: "x", on: .rtp, at: .zero)
        #expect(seen == [.dtls, .turnChannelData])
        #expect(session.statistics.demultiplexed.dropped.isEmpty)
    }

    @Test func beforeNegotiationOnlyTheSeamsWork() {
        var random = SeededGenerator(seed: 5)
        var session = MediaSession<String>(at: .zero, random: &random)
        session.receive([0x80, 0x00, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0xFF], from: "x", on: .rtp, at: .zero)
        session.receive(Self.stunBindingRequest, from: "x", on: .rtp, at: .zero)
        #expect(session.statistics.unconfigured == 1)
        #expect(session.statistics.demultiplexed.dropped == [.stun: 1])
        #expect(session.nextDeadline == nil && session.nextTransmission() == nil)
    }

    @Test func oversizedMalformedAndMisroutedDatagramsAreCounted() throws {
        var configuration = MediaSessionConfiguration()
        configuration.maximumDatagramSize = 300
        var call = try Call(configuration: configuration)
        var session = call.alice.session
        let peer = "192.0.2.2:5000"
        session.receive([UInt8](repeating: 0x80, count: 301), from: peer, on: .rtp, at: .zero)
        // Version 2 with 15 CSRCs that are not there; an RTCP header alone; RTP on the RTCP port.
        session.receive([0x8F, 0x00, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], from: peer, on: .rtp, at: .zero)
        session.receive([0x80, 0xC8, 0x00], from: peer, on: .rtp, at: .zero)
        session.receive([0x80, 0x00, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0xFF], from: peer, on: .rtcp, at: .zero)
        let statistics = session.statistics
        #expect(statistics.oversized == 1)
        #expect(statistics.malformed == 3)
        #expect(statistics.packetsReceived == 0 && session.rtpDestination == peer)
        call.alice.session = session
    }

    @Test func randomDatagramsNeverTrapAndTheQueuesStayBounded() throws {
        var configuration = MediaSessionConfiguration()
        configuration.queueCapacity = 8
        var call = try Call(Negotiation(srtp: false), configuration: configuration)
        var session = call.bob.session
        session.seams.stun = { _, source, _, _ in
            [MediaTransmission(bytes: [1], destination: source, port: .rtp)]
        }
        var generator = SeededGenerator(seed: 42)
        for step in 0..<20_000 {
            let count = Int.random(in: 0...80, using: &generator)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if step % 3 == 0, !bytes.isEmpty { bytes[0] = 0x80 | bytes[0] & 0x0F }
            let port: MediaPort = step % 5 == 0 ? .rtcp : .rtp
            let extremes: [Int64] = [.min, .max, 0, -1]
            let now = MediaInstant(
                nanoseconds: step % 997 == 0 ? extremes[step / 997 % 4] : Int64(step) * 1_000_000)
            session.receive(bytes, from: "peer\(step % 3)", on: port, at: now)
            if step % 20 == 0 || step % 997 == 0 { session.advance(to: now) }
        }
        var transmissions = 0
        while session.nextTransmission() != nil { transmissions += 1 }
        #expect(transmissions <= 8)
        #expect(session.statistics.queueOverflows > 0)
        #expect(session.statistics.malformed + session.statistics.unexpectedPayloadType > 0)
        call.bob.session = session
    }
}
