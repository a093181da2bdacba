import SIPMessage
import SIPTransport
import Testing

@testable import Switchboard

/// The one rule for a transport's form in URIs (`TransportForm`): what a typed target, a Refer-To, a 3xx
/// Contact or a registrar URI becomes for each account transport.
@Suite struct TransportFormTests {
    @Test(arguments: [
        // A TLS account upgrades sip: targets (typed, Refer-To, 3xx Contact) to sips: without a parameter.
        ("sip:bob@pbx.example.com", TransportProtocol?.some(.tls), "sips:bob@pbx.example.com"),
        ("sip:bob@192.0.2.1:5080;user=phone", .some(.tls), "sips:bob@192.0.2.1:5080;user=phone"),
        ("sips:bob@pbx.example.com", .some(.tls), "sips:bob@pbx.example.com"),
        // transport=tls is never written: it is read as sips:, for any account.
        ("sip:bob@pbx.example.com;transport=tls", .some(.tls), "sips:bob@pbx.example.com"),
        ("sip:bob@pbx.example.com;transport=TLS", .some(.udp), "sips:bob@pbx.example.com"),
        ("sip:bob@pbx.example.com;transport=tls", nil, "sips:bob@pbx.example.com"),
        // A transport the URI names wins over the account's.
        ("sip:bob@pbx.example.com;transport=udp", .some(.tls), "sip:bob@pbx.example.com;transport=udp"),
        ("sips:bob@pbx.example.com;transport=tcp", .some(.udp), "sips:bob@pbx.example.com;transport=tcp"),
        // TCP says so in the URI; UDP and no transport leave it alone.
        ("sip:bob@pbx.example.com", .some(.tcp), "sip:bob@pbx.example.com;transport=tcp"),
        ("sip:bob@pbx.example.com", .some(.udp), "sip:bob@pbx.example.com"),
        ("sip:bob@pbx.example.com", nil, "sip:bob@pbx.example.com"),
        // WS: transport=ws (RFC 7118 §5.2); WSS: sips: with transport=ws, never transport=wss.
        ("sip:bob@pbx.example.com", .some(.ws), "sip:bob@pbx.example.com;transport=ws"),
        ("sip:bob@pbx.example.com", .some(.wss), "sips:bob@pbx.example.com;transport=ws"),
        ("sips:bob@pbx.example.com", .some(.wss), "sips:bob@pbx.example.com;transport=ws"),
        ("sips:bob@pbx.example.com", .some(.ws), "sips:bob@pbx.example.com"),
        // transport=wss (Kamailio, libre) is read as sips: with transport=ws, for any account.
        ("sip:bob@pbx.example.com;transport=wss", .some(.udp), "sips:bob@pbx.example.com;transport=ws"),
        ("sip:bob@pbx.example.com;transport=WSS", nil, "sips:bob@pbx.example.com;transport=ws"),
        ("sip:bob@pbx.example.com;transport=ws", .some(.tls), "sip:bob@pbx.example.com;transport=ws"),
        ("sip:bob@pbx.example.com;transport=udp", .some(.wss), "sip:bob@pbx.example.com;transport=udp"),
    ])
    func uriForm(given: String, transport: TransportProtocol?, expected: String) throws {
        let uri = try SIPURI(given)
        #expect(TransportForm.uri(uri, for: transport).description == expected)
    }

    @Test(arguments: [
        (TransportProtocol.tls, "sips:alice@192.0.2.10:5061"),
        (.tcp, "sip:alice@192.0.2.10:5061;transport=tcp"),
        (.udp, "sip:alice@192.0.2.10:5061"),
        (.ws, "sip:alice@192.0.2.10:5061;transport=ws"),
        (.wss, "sips:alice@192.0.2.10:5061;transport=ws"),
    ])
    func contactFollowsTheFlow(flow: TransportProtocol, expected: String) throws {
        let host = try #require(SIPHost("192.0.2.10"))
        let contact = TransportForm.contact(
            user: "alice", host: host, port: 5061, flow: flow, webSocketClientHost: "k3x9.invalid")
        #expect(contact.description == expected)
    }

    /// A WebSocket client with no listener of its own (port 0) names its `.invalid` host (RFC 7118 §8); other
    /// flows without a port keep their address.
    @Test(arguments: [
        (TransportProtocol.ws, "sip:alice@k3x9.invalid;transport=ws"),
        (.wss, "sips:alice@k3x9.invalid;transport=ws"),
        (.tls, "sips:alice@192.0.2.10"),
        (.tcp, "sip:alice@192.0.2.10;transport=tcp"),
    ])
    func aWebSocketClientNamesAnInvalidHost(flow: TransportProtocol, expected: String) throws {
        let host = try #require(SIPHost("192.0.2.10"))
        let contact = TransportForm.contact(
            user: "alice", host: host, port: 0, flow: flow, webSocketClientHost: "k3x9.invalid")
        #expect(contact.description == expected)
    }

    @Test func aTelURIIsLeftAlone() throws {
        let uri = try URI("tel:+15551234567")
        #expect(TransportForm.uri(uri, for: .tls) == uri)
    }

    /// The numeric next hops kept for the drivers: one per URI (as written) and transport, at most
    /// `NumericHops.capacity`, the oldest making room.
    @Test func numericHopsAreKeptByURIAndTransportAndBounded() throws {
        let hops = NumericHops()
        let bob = try SIPURI("sip:bob@192.0.2.1:5080")
        let address = try #require(SocketAddress(ip: "192.0.2.1", port: 5080))
        let udp = Destination(transport: .udp, address: address)
        #expect(hops.destination(of: bob, transport: nil) == nil)
        hops.remember(udp, of: bob, transport: nil)
        #expect(hops.destination(of: bob, transport: nil) == .some(udp))
        // Another transport, or the same host written otherwise, is another next hop.
        #expect(hops.destination(of: bob, transport: .tcp) == nil)
        #expect(hops.destination(of: try SIPURI("sip:bob@192.0.2.1:5080;transport=tcp"), transport: nil) == nil)
        // A hop that resolves to nothing is kept as such.
        let nowhere = try SIPURI("sip:bob@192.0.2.1:5080;transport=sctp")
        hops.remember(nil, of: nowhere, transport: nil)
        #expect(hops.destination(of: nowhere, transport: nil) == .some(nil))
        for port in 1...NumericHops.capacity {
            hops.remember(udp, of: try SIPURI("sip:bob@192.0.2.1:\(port)"), transport: nil)
        }
        #expect(hops.count == NumericHops.capacity)
        #expect(hops.destination(of: bob, transport: nil) == nil)
    }
}
