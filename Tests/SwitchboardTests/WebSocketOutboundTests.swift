import Foundation
import SIPMessage
import SIPTransport
import Switchboard
import SwitchboardTesting
import Synchronization
import Testing

/// RFC 5626 outbound over a WebSocket registration flow (RFC 7118), in virtual time: a scripted registrar
/// on `ws://10.0.0.2/sip` confirms outbound (`Require: outbound`, `Flow-Timer: 10`); Alice (no listener of
/// her own) registers through the account's WebSocket URL.
@Suite("Outbound over a WebSocket registration", .serialized)
struct WebSocketOutboundTests {
    /// What the registrar saw: each REGISTER with the flow it came on.
    final class Registrar: Sendable {
        let registers = Mutex<[(SIPText, FlowID?)]>([])

        var count: Int { registers.withLock { $0.count } }
        func register(_ index: Int) -> (SIPText, FlowID?)? {
            registers.withLock { index < $0.count ? $0[index] : nil }
        }
    }

    final class Setup {
        let world = VirtualWorld(seed: 31)
        let server: SIPTransportLayer
        let registrar = Registrar()
        let alice: CallProvider
        let delegate: RecordingDelegate

        init() throws {
            server = world.network.makeTransportLayer(host: "10.0.0.2")
            let (server, registrar) = (server, registrar)
            let address = try #require(SocketAddress(ip: "10.0.0.2", port: 80))
            _ = try world.loop.withLoop { () throws(TransportError) in
                try server.listen(.ws, on: address, resource: "/sip")
            }
            world.loop.withLoop {
                server.onMessage = { incoming in
                    guard case .request(let request) = incoming.message, request.method == .register else { return }
                    let text = SIPText(String(decoding: request.serialized(), as: UTF8.self))
                    registrar.registers.withLock { $0.append((text, incoming.flow)) }
                    server.send(response: Self.ok(request), toRequest: incoming)
                }
            }
            delegate = RecordingDelegate(world: world)
            let account = Account(
                addressOfRecord: "sip:alice@example.com", registrar: "sip:example.com",
                webSocketURL: "ws://10.0.0.2/sip")
            var configuration = CallProviderConfiguration(accounts: [account], listeners: [.init(.udp, "0.0.0.0:5060")])
            configuration.t1 = .milliseconds(100)
            alice = try world.makeProvider(configuration: configuration, host: "10.0.0.1")
            alice.setDelegate(delegate, queue: nil)
        }

        /// The registrar's 200: outbound confirmed, a 10 s Flow-Timer, the binding back with its expiry.
        static func ok(_ request: SIPRequest) -> SIPResponse {
            var fields = SIPFields()
            for name in [SIPField.Name.via, .from, .callID, .cseq] {
                for value in request.headerFields[values: name] { fields.append(SIPField(name: name, value: value)) }
            }
            fields.append(.to, (request.headerFields[.to] ?? "") + ";tag=reg1")
            if let contact = request.headerFields[.contact] { fields.append(.contact, contact + ";expires=600") }
            fields.append(.require, "outbound")
            if let flowTimer = SIPField.Name("Flow-Timer") { fields.append(flowTimer, "10") }
            fields.append(.contentLength, "0")
            return SIPResponse(statusCode: 200, reasonPhrase: "OK", headerFields: fields)
        }

        func registeredCount() -> Int {
            delegate.events.withLock { events in
                events.filter { if case .registered? = $0.registrationState { true } else { false } }.count
            }
        }

        func close() {
            alice.invalidate(timeout: .seconds(2))
            world.loop.withLoop { server.shutdown() }
        }
    }

    /// The REGISTER asks for outbound; the flow is pinged with WebSocket pings (not CRLF) within the
    /// Flow-Timer; when the connection breaks, Alice registers again at once over a new WebSocket connection
    /// with the same instance and reg-id; and a request the registrar sends over the new flow reaches her.
    @Test func aWebSocketFlowUsesOutboundAndIsReplacedAtOnce() async throws {
        let setup = try Setup()
        defer { setup.close() }
        let world = setup.world
        #expect(world.run(until: { setup.registeredCount() == 1 }, within: .seconds(5)), "no registration")
        let (first, firstFlow) = try #require(setup.registrar.register(0))
        let binding = try #require(first["Contact"])
        #expect(binding.contains(";ob"), "Contact \(binding)")
        #expect(binding.contains(".invalid;transport=ws"), "Contact \(binding)")
        #expect(binding.contains("reg-id=1") && binding.contains("+sip.instance=\"<urn:uuid:"), "Contact \(binding)")
        #expect(first["Supported"]?.contains("outbound") == true)

        world.network.clearRecords()
        world.advance(by: .seconds(10))
        let fromAlice = world.network.records.filter { $0.source.host == "10.0.0.1" && !$0.bytes.isEmpty }
        #expect(fromAlice.contains { $0.bytes[0] == 0x89 }, "no WebSocket ping within the Flow-Timer")
        #expect(!fromAlice.contains { $0.bytes.starts(with: [13, 10, 13, 10]) }, "a CRLF ping outside WebSocket")

        let before = world.loop.elapsedTime
        #expect(world.network.resetConnections(of: "10.0.0.1") > 0)
        #expect(world.run(until: { setup.registrar.count >= 2 }, within: .seconds(1)), "no REGISTER at once")
        let (again, againFlow) = try #require(setup.registrar.register(1))
        #expect(againFlow != nil && againFlow != firstFlow, "the REGISTER did not come over a new connection")
        let instance = { (text: String) in text.components(separatedBy: "+sip.instance=").last }
        #expect(instance(try #require(again["Contact"])) == instance(binding))
        #expect(again["Call-ID"] == first["Call-ID"])
        #expect(world.run(until: { setup.registeredCount() == 2 }, within: .seconds(1)))
        #expect(world.loop.elapsedTime - before < .seconds(1))

        // The registrar routes an INVITE to the binding over the new flow.
        let flow = try #require(againFlow)
        let remote = try #require(world.loop.withLoop { setup.server.addresses(of: flow)?.remote })
        let contact = try #require(again.contactURI)
        let invite = try SIPRequest(parsing: Self.invite(to: contact))
        world.loop.withLoop {
            setup.server.send(request: invite, to: Destination(transport: .ws, address: remote), completion: nil)
        }
        let arrived = try #require(await setup.delegate.invite(seconds: 2), "the INVITE did not arrive")
        #expect(arrived.from.value.contains("carol"))
    }

    static func invite(to contact: String) -> [UInt8] {
        let sdp = [
            "v=0", "o=- 1 1 IN IP4 10.0.0.2", "s=-", "c=IN IP4 10.0.0.2", "t=0 0", "m=audio 17000 RTP/AVP 0",
            "a=rtpmap:0 PCMU/8000", "",
        ].joined(separator: "\r\n")
        let text = [
            "INVITE \(contact) SIP/2.0", "Via: SIP/2.0/WS 10.0.0.2:80;branch=z9hG4bK-wsob-1", "Max-Forwards: 70",
            "From: <sip:carol@example.com>;tag=c1", "To: <sip:alice@example.com>", "Call-ID: wsob-invite-1",
            "CSeq: 1 INVITE", "Contact: <sip:carol@10.0.0.2:80;transport=ws>", "Content-Type: application/sdp",
            "Content-Length: \(sdp.utf8.count)", "", sdp,
        ].joined(separator: "\r\n")
        return Array(text.utf8)
    }
}
