import Foundation
import SIPMessage
import Switchboard
import SwitchboardTesting
import Testing

@testable import SIPTransport

/// SIP over WebSocket (RFC 7118) in the transport layer, over the virtual network in virtual time: the
/// upgrade, one SIP message per WebSocket message, path checks, bad messages, pings, the close handshake and
/// WSS certificate checks.
@Suite struct VirtualWebSocketTests {
    /// A server on 10.0.0.2:80 answering upgrades on `/sip`, and a client on 10.0.0.1.
    final class Pair {
        let loop = VirtualEventLoop()
        let network: VirtualNetwork
        let server: SIPTransportLayer
        let client: SIPTransportLayer
        var received: [IncomingMessage] = []
        var serverEvents: [FlowEvent] = []
        var clientEvents: [FlowEvent] = []
        var clientReceived: [IncomingMessage] = []
        let serverAddress: SocketAddress

        init(
            transport: TransportProtocol = .ws, serverTLS: TLSConfiguration = TLSConfiguration(),
            clientTLS: TLSConfiguration = TLSConfiguration()
        ) throws {
            network = VirtualNetwork(loop: loop, seed: 3)
            server = network.makeTransportLayer(host: "10.0.0.2", configuration: TransportConfiguration(tls: serverTLS))
            client = network.makeTransportLayer(host: "10.0.0.1", configuration: TransportConfiguration(tls: clientTLS))
            let port: UInt16 = transport == .wss ? 443 : 80
            serverAddress = try #require(SocketAddress(ip: "10.0.0.2", port: port))
            let (server, client, address) = (server, client, serverAddress)
            _ = try loop.withLoop { () throws(TransportError) in
                try server.listen(transport, on: address, resource: "/sip")
            }
            loop.withLoop {
                server.onMessage = { [unowned self] in
                    self.received.append($0)
                    if case .request(let request) = $0.message {
                        self.server.send(response: Self.ok(request), toRequest: $0)
                    }
                }
                server.onFlowEvent = { [unowned self] in self.serverEvents.append($0) }
                client.onMessage = { [unowned self] in self.clientReceived.append($0) }
                client.onFlowEvent = { [unowned self] in self.clientEvents.append($0) }
            }
        }

        static func ok(_ request: SIPRequest) -> SIPResponse {
            var fields = SIPFields()
            for name in [SIPField.Name.via, .from, .to, .callID, .cseq] {
                for value in request.headerFields[values: name] { fields.append(SIPField(name: name, value: value)) }
            }
            fields.append(.contentLength, "0")
            return SIPResponse(statusCode: 200, reasonPhrase: "OK", headerFields: fields)
        }

        /// Sends an OPTIONS over `transport` to the server (as `serverName`, asking for `resource`); returns
        /// the send's outcome once virtual time settles.
        func sendOptions(
            over transport: TransportProtocol = .ws, serverName: String? = nil, resource: String = "/sip",
            branch: String = "z9hG4bK-ws1"
        ) throws -> TransportError?? {
            let destination = Destination(transport: transport, address: serverAddress, serverName: serverName)
            var outcome: TransportError??
            let client = client
            try loop.withLoop {
                client.setWebSocketResource(resource, host: serverName ?? "10.0.0.2", port: serverAddress.port)
                let via = try #require(client.makeVia(for: destination, branch: branch))
                client.send(request: try Self.options(via: via, transport: transport), to: destination) {
                    outcome = .some($0)
                }
            }
            loop.advance(by: .seconds(2))
            return outcome
        }

        static func options(via: Via, transport: TransportProtocol) throws -> SIPRequest {
            let scheme = transport == .wss ? "sips" : "sip"
            return try optionsRequest(to: "\(scheme):bob@10.0.0.2;transport=ws", via: via, callID: "ws-call-1")
        }

        var wire: String {
            network.records.map { String(decoding: $0.bytes, as: UTF8.self) }.joined(separator: "\n")
        }
    }

    @Test func aRequestAndItsResponseCrossAsWebSocketMessages() throws {
        let pair = try Pair()
        let outcome = try pair.sendOptions()
        #expect(outcome == .some(nil))
        let incoming = try #require(pair.received.first)
        #expect(incoming.transport == .ws)
        #expect(incoming.flow != nil)
        guard case .request(let request) = incoming.message else { return #expect(Bool(false)) }
        #expect(request.method == .options)
        // No WS listener on the client: its Via names the `.invalid` host (RFC 7118 §5.2, §8).
        let via = request.headerFields[.via] ?? ""
        #expect(via.hasPrefix("SIP/2.0/WS switchboard.invalid;"), "\(via)")
        #expect(via.contains("received=10.0.0.1"))
        // The 200 came back over the same connection, to a Via host no one can resolve.
        #expect(pair.clientReceived.count == 1)
        #expect(pair.clientReceived.first?.transport == .ws)
        let wire = pair.wire
        #expect(wire.contains("GET /sip HTTP/1.1\r\nHost: 10.0.0.2\r\n"))
        #expect(wire.contains("Sec-WebSocket-Protocol: sip\r\n"))
        #expect(wire.contains("HTTP/1.1 101 Switching Protocols"))
        // The client masks its frames: its OPTIONS never crosses in the clear; the server's 200 does not mask.
        #expect(!wire.contains("OPTIONS sip:"))
        #expect(wire.contains("SIP/2.0 200 OK"))
        let frames = pair.network.records.filter { !$0.bytes.isEmpty && $0.bytes[0] == 0x81 }
        #expect(frames.count == 2)
    }

    @Test func anUpgradeForAnotherPathGets404AndNothingIsDelivered() throws {
        let pair = try Pair()
        let outcome = try pair.sendOptions(resource: "/other")
        #expect(outcome??.code == .webSocketUpgradeFailed)
        #expect(pair.received.isEmpty)
        #expect(pair.wire.contains("HTTP/1.1 404 Not Found"))
        #expect(pair.loop.withLoop { pair.server.connectionCount } == 0)
    }

    @Test func aMessageThatDoesNotParseIsDroppedAndTheFlowStays() throws {
        let pair = try Pair()
        #expect(try pair.sendOptions() == .some(nil))
        let flow = try #require(pair.received.first?.flow)
        let clientFlow = try #require(pair.clientReceived.first?.flow)
        // Garbage in one WebSocket message: counted as a parse error, as a bad datagram would be.
        pair.loop.withLoop {
            pair.client.send(bytes: Array("NOT SIP AT ALL\r\n\r\n".utf8), to: nil, flow: clientFlow, completion: nil)
        }
        pair.loop.advance(by: .seconds(1))
        #expect(pair.loop.withLoop { pair.server.statistics.parseErrors } == 1)
        #expect(pair.loop.withLoop { pair.server.isOpen(flow) })
        #expect(try pair.sendOptions(branch: "z9hG4bK-ws2") == .some(nil))
        #expect(pair.received.count == 2)
        #expect(pair.received.last?.flow == flow)
    }

    @Test func keepAlivePingsAreAnsweredWithPongs() throws {
        let pair = try Pair()
        #expect(try pair.sendOptions() == .some(nil))
        let clientFlow = try #require(pair.clientReceived.first?.flow)
        pair.loop.withLoop { pair.client.setKeepAlive(flow: clientFlow, interval: .seconds(5)) }
        pair.loop.advance(by: .seconds(60))
        #expect(pair.clientEvents.isEmpty)
        #expect(pair.loop.withLoop { pair.client.isOpen(clientFlow) })
        // Masked pings from the client (0x89), pongs from the server (0x8A).
        let records = pair.network.records.filter { !$0.bytes.isEmpty }
        #expect(records.filter { $0.bytes[0] == 0x89 }.count >= 10)
        #expect(records.filter { $0.bytes[0] == 0x8A }.count >= 10)
    }

    @Test func closingAFlowRunsTheCloseHandshake() throws {
        let pair = try Pair()
        #expect(try pair.sendOptions() == .some(nil))
        let clientFlow = try #require(pair.clientReceived.first?.flow)
        pair.loop.withLoop { pair.client.close(flow: clientFlow) }
        pair.loop.advance(by: .seconds(1))
        // The server saw a clean close (1000), not a lost connection.
        let closed = pair.serverEvents.compactMap { event -> TransportError?? in
            if case .closed(_, let error) = event { return .some(error) }
            return nil
        }
        #expect(closed.count == 1)
        #expect(closed.first == .some(nil))
        let closeFrames = pair.network.records.filter { !$0.bytes.isEmpty && $0.bytes[0] == 0x88 }
        #expect(closeFrames.count >= 1)
    }

    /// A client on 10.0.0.1 whose flow to a scripted WebSocket server on 10.0.0.2:80 is open (the upgrade
    /// answered, one OPTIONS received), then closed by the client: the client (keep it: its timers and
    /// handlers hold it weakly), the server's connection, and what came.
    func clientClosingItsFlow(world: VirtualWorld) throws -> (SIPTransportLayer, ScriptedConnection, [UInt8]) {
        let listener = try ScriptedListener(world: world, host: "10.0.0.2", port: 80)
        var configuration = TransportConfiguration()
        configuration.webSocketCloseTimeout = .seconds(2)
        let client = world.network.makeTransportLayer(host: "10.0.0.1", configuration: configuration)
        let destination = Destination(transport: .ws, address: listener.address)
        try world.loop.withLoop {
            let via = try #require(client.makeVia(for: destination, branch: "z9hG4bK-close"))
            client.send(request: try Pair.options(via: via, transport: .ws), to: destination, completion: nil)
        }
        let server = try #require(listener.accept(within: .seconds(2)))
        let upgrade = try #require(server.message(within: .seconds(2)))
        var handshake = WebSocketServerHandshake(resource: "/")
        guard case .accepted(_, let response, _) = handshake.receive(Array(upgrade.utf8)) else {
            Issue.record("not an upgrade: \(upgrade)")
            return (client, server, [])
        }
        server.send(bytes: response)
        world.advance(by: .milliseconds(100))
        let flow = try #require(world.loop.withLoop { client.flow(to: destination) })
        _ = server.takeBytes()  // the OPTIONS
        world.loop.withLoop { client.close(flow: flow) }
        world.advance(by: .milliseconds(500))
        return (client, server, server.takeBytes())
    }

    /// RFC 6455 §7.1.1: the client sends its close frame and leaves the TCP close to the server; once the
    /// server's close frame came it closes at once.
    @Test func aClosingClientWaitsForTheServersCloseFrame() throws {
        let world = VirtualWorld(seed: 5)
        let (client, server, arrived) = try clientClosingItsFlow(world: world)
        defer { world.loop.withLoop { client.shutdown() } }
        #expect(arrived.first == 0x88, "the client's close frame (masked, 1000)")
        #expect(!server.isClosed, "the client closed TCP before the server's close frame")
        server.send(bytes: WebSocketFrame(.close, payload: [0x03, 0xE8]).serialized())
        world.advance(by: .milliseconds(100))
        #expect(server.isClosed, "the server's close frame did not end the wait")
    }

    /// A server that never answers the close frame: the client closes TCP itself after
    /// `webSocketCloseTimeout` (2 s here), not before.
    @Test func aClosingClientGivesUpOnASilentServer() throws {
        let world = VirtualWorld(seed: 6)
        let (client, server, arrived) = try clientClosingItsFlow(world: world)
        defer { world.loop.withLoop { client.shutdown() } }
        #expect(arrived.first == 0x88)
        world.advance(by: .milliseconds(1400))
        #expect(!server.isClosed, "closed 1.9 s after the close frame, before the timeout")
        world.advance(by: .milliseconds(200))
        #expect(server.isClosed, "still open 2.1 s after the close frame")
    }

    /// WSS: the certificate and the name are checked as for TLS.
    func wss(certificateHost: String, serverName: String?) throws -> (TransportError??, Int) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sb-vwss-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = try SelfSignedCertificate(host: certificateHost, directory: directory.path)
        let pair = try Pair(
            transport: .wss,
            serverTLS: TLSConfiguration(
                certificateFile: certificate.certificateFile, privateKeyFile: certificate.privateKeyFile),
            clientTLS: TLSConfiguration(trustedCAFile: certificate.certificateFile))
        let outcome = try pair.sendOptions(over: .wss, serverName: serverName)
        #expect(!pair.wire.contains("GET /sip"), "the upgrade crossed in the clear")
        return (outcome, pair.received.count)
    }

    @Test func wssWithATrustedCertificateCarriesSIP() throws {
        let (outcome, received) = try wss(certificateHost: "sip.example.test", serverName: "sip.example.test")
        #expect(outcome == .some(nil))
        #expect(received == 1)
    }

    @Test func wssRefusesACertificateForAnotherName() throws {
        let (outcome, received) = try wss(certificateHost: "other.example.test", serverName: "sip.example.test")
        #expect(outcome??.code == .nameMismatch)
        #expect(received == 0)
    }
}

/// An OPTIONS from alice to `uri` with `via`, as a raw client sends it.
func optionsRequest(to uri: String, via: Via, callID: String) throws -> SIPRequest {
    var request = SIPRequest(method: .options, uri: try URI(uri))
    request.headerFields.append(.via, via)
    request.headerFields.append(.from, "<sip:alice@example.com>;tag=a1")
    request.headerFields.append(.to, "<sip:bob@10.0.0.2>")
    request.headerFields.append(.callID, callID)
    request.headerFields.append(.cseq, "1 OPTIONS")
    request.headerFields.append(.maxForwards, "70")
    request.headerFields.append(.contentLength, "0")
    return request
}
