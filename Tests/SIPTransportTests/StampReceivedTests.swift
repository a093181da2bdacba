import SIPMessage
import Testing

@testable import SIPTransport

/// RFC 3261 §18.2.1 and RFC 3581 §4: what a received request's top Via gets from its source address.
@Suite struct StampReceivedTests {
    static func stamped(_ via: String, from source: String, port: UInt16 = 5062) throws -> String? {
        let text =
            "OPTIONS sip:bob@example.com SIP/2.0\r\nVia: \(via)\r\nVia: SIP/2.0/UDP proxy.example.com;branch=z9hG4bKp\r\n"
            + "Call-ID: a@b\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n"
        var request = try SIPRequest(parsing: Array(text.utf8))
        let address = try #require(SocketAddress(ip: source, port: port))
        SIPTransportLayer.stampReceived(&request, source: address)
        #expect(request.headerFields[fields: .via].count == 2)
        return request.headerFields[fields: .via].first?.value
    }

    @Test func sentByThatIsTheSourceIsLeftAlone() throws {
        let via = "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKa"
        #expect(try Self.stamped(via, from: "192.0.2.1") == via)
        let v6 = "SIP/2.0/UDP [2001:db8::1]:5060;branch=z9hG4bKa"
        #expect(try Self.stamped(v6, from: "2001:db8::1") == v6)
    }

    @Test func otherSentByGetsReceived() throws {
        let ip = try #require(try Self.stamped("SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKa", from: "203.0.113.7"))
        #expect(ip.contains(";received=203.0.113.7"))
        let name = try #require(try Self.stamped("SIP/2.0/UDP pc.example.com;branch=z9hG4bKa", from: "192.0.2.1"))
        #expect(name.contains(";received=192.0.2.1"))
        #expect(!name.contains("rport"))
    }

    @Test func rportIsFilledAndReceivedAdded() throws {
        let value = try #require(
            try Self.stamped("SIP/2.0/UDP 192.0.2.1:5060;rport;branch=z9hG4bKa", from: "192.0.2.1", port: 40123))
        #expect(value.contains(";rport=40123"))
        #expect(value.contains(";received=192.0.2.1"))
    }

    /// The summary handed up with the request is the one its top Via has after stamping.
    @Test func returnsTheSummaryOfTheStampedVia() throws {
        for (via, source) in [
            ("SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKa", "192.0.2.1"),
            ("SIP/2.0/UDP 192.0.2.1:5060;rport;branch=z9hG4bKa", "192.0.2.1"),
            ("SIP/2.0/UDP pc.example.com;branch=z9hG4bKa", "203.0.113.7"),
        ] {
            let text =
                "OPTIONS sip:bob@example.com SIP/2.0\r\nVia: \(via)\r\nCall-ID: a@b\r\nCSeq: 1 OPTIONS\r\n"
                + "Content-Length: 0\r\n\r\n"
            var request = try SIPRequest(parsing: Array(text.utf8))
            let address = try #require(SocketAddress(ip: source, port: 5062))
            let returned = try #require(SIPTransportLayer.stampReceived(&request, source: address))
            let fresh = try #require(request.topViaSummary)
            #expect(returned == fresh)
            #expect(returned.received == fresh.received && returned.rport == fresh.rport)
            #expect(request.headerFields.topViaSummary(reusing: returned) == fresh)
        }
    }

    /// A response goes where its own top Via says, even when it carries the request's summary as a hint:
    /// the hint serves only a Via with the same bytes.
    @Test func responseWithAnotherViaGoesWhereItsViaSays() async throws {
        let text =
            "OPTIONS sip:bob@example.com SIP/2.0\r\nVia: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKa\r\n"
            + "Call-ID: a@b\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n"
        var request = try SIPRequest(parsing: Array(text.utf8))
        let source = try #require(SocketAddress(ip: "192.0.2.1", port: 5062))
        let summary = SIPTransportLayer.stampReceived(&request, source: source)
        var incoming = IncomingMessage(
            message: .request(request), transport: .udp, source: source, local: source, flow: nil)
        incoming.topVia = summary
        let same = SIPResponse(answering: request, status: 200)
        var moved = same
        moved.headerFields.removeAll(.via)
        moved.headerFields.append(name: .via, value: "SIP/2.0/UDP 192.0.2.1:5090;branch=z9hG4bKa")
        var received = same
        received.headerFields.removeAll(.via)
        received.headerFields.append(name: .via, value: "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKa;received=192.0.2.9")
        let fixture = try LoopFixture()
        let layer = SIPTransportLayer(loop: fixture.loop)
        let (hinted, other, stamped) = (incoming, moved, received)
        let (a, b, c) = try await onLoop(fixture.loop) {
            (
                layer.responseDestination(same, incoming: hinted), layer.responseDestination(other, incoming: hinted),
                layer.responseDestination(stamped, incoming: hinted)
            )
        }
        #expect(a?.address.port == 5060)
        #expect(b?.address.port == 5090)
        #expect(c?.address.host == "192.0.2.9" && c?.address.port == 5060)
        try await fixture.stop([layer])
    }
}
