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
}
