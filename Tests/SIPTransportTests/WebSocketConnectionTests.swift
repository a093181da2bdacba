import SIPMessage
import Testing

@testable import SIPTransport

@Suite("WebSocket connection state machine (RFC 6455 §5-§7)")
struct WebSocketConnectionTests {
    typealias Connection = WebSocketConnection<ScriptedRandom>

    static func pair() -> (client: Connection, server: Connection) {
        (
            Connection(role: .client, maskingKeys: ScriptedRandom([0x1122_3344, 0x5566_7788])),
            Connection(role: .server, maskingKeys: ScriptedRandom([0]))
        )
    }

    /// The bytes of every `.send` in `actions`, joined.
    static func sent(_ actions: [Connection.Action]) -> [UInt8] {
        actions.flatMap { action -> [UInt8] in
            if case .send(let bytes) = action { return bytes }
            return []
        }
    }

    @Test("Messages both ways; client frames masked with the injected keys, server frames plain")
    func messages() throws {
        var (client, server) = Self.pair()
        let toServer = try required(client.send(.text("Hello")))
        #expect(toServer == WebSocketFrame(.text, payload: Array("Hello".utf8)).serialized(maskingKey: 0x1122_3344))
        #expect(server.receive(toServer) == [.deliver(.text("Hello"))])
        let toClient = try required(server.send(.binary([1, 2, 3]), fragmentSize: 2))
        #expect(toClient == [0x02, 0x02, 1, 2, 0x80, 0x01, 3])
        #expect(client.receive(toClient) == [.deliver(.binary([1, 2, 3]))])
    }

    @Test("A ping is answered with a pong carrying its data, also between fragments")
    func pingAnswered() throws {
        var (client, server) = Self.pair()
        var frames = WebSocketFrame.frames(for: .text("abcd"), fragmentSize: 2)
        frames.insert(WebSocketFrame(.ping, payload: [7, 7]), at: 1)
        let actions = client.receive(frames.flatMap { $0.serialized() })
        #expect(actions.count == 2)
        #expect(actions.last == .deliver(.text("abcd")))
        let pong = Self.sent(actions)
        #expect(server.receive(pong) == [.pong([7, 7])])
    }

    @Test("Keep-alive: a ping on request, its pong reported")
    func keepAlive() throws {
        var (client, server) = Self.pair()
        let ping = try required(client.ping([1]))
        let answer = server.receive(ping)
        #expect(answer == [.send([0x8A, 0x01, 1])])
        #expect(client.receive(Self.sent(answer)) == [.pong([1])])
        #expect(client.ping(.init(repeating: 0, count: 200)).map { $0[1] & 0x7F } == 125)
    }

    @Test("The client closes: the server echoes, both end clean")
    func clientCloses() throws {
        var (client, server) = Self.pair()
        let close = try required(client.close(WebSocketClose(code: .goingAway, reason: "leaving")))
        #expect(client.state == .closing(sent: WebSocketClose(code: .goingAway, reason: "leaving")))
        #expect(client.send(.text("late")) == nil)
        #expect(client.ping() == nil)
        #expect(client.close() == nil)
        let serverActions = server.receive(close)
        let closure = WebSocketClosure(code: .goingAway, reason: "leaving", isClean: true)
        #expect(serverActions == [.send([0x88, 0x02, 0x03, 0xE9]), .closed(closure)])
        #expect(server.state == .closed(closure))
        #expect(server.send(.text("x")) == nil)
        let clientActions = client.receive(Self.sent(serverActions))
        #expect(clientActions == [.closed(WebSocketClosure(code: .goingAway, isClean: true))])
        // Nothing more after the close.
        #expect(client.receive([0x81, 0x00]) == [])
        #expect(client.connectionLost() == WebSocketClosure(code: .goingAway, isClean: true))
    }

    @Test("The server closes: messages still in flight are delivered, then the close")
    func serverCloses() throws {
        var (client, server) = Self.pair()
        let close = try required(server.close())
        let inFlight = try required(client.send(.text("in flight")))
        #expect(server.receive(inFlight) == [.deliver(.text("in flight"))])
        // A ping while closing gets no pong.
        #expect(server.receive(try required(client.ping())) == [])
        let clientActions = client.receive(close)
        #expect(clientActions.count == 2)
        #expect(clientActions.last == .closed(WebSocketClosure(code: .normalClosure, isClean: true)))
        #expect(
            server.receive(Self.sent(clientActions)) == [.closed(WebSocketClosure(code: .normalClosure, isClean: true))]
        )
    }

    @Test("A close without a body is echoed without one and reads as 1005")
    func emptyClose() {
        var (_, server) = Self.pair()
        let actions = server.receive(masked(WebSocketFrame(.close, payload: [])))
        #expect(actions == [.send([0x88, 0x00]), .closed(WebSocketClosure(code: .noStatusReceived, isClean: true))])
    }

    @Test("A code that may not be sent becomes 1000")
    func unsendableCode() throws {
        var (client, _) = Self.pair()
        _ = try required(client.close(WebSocketClose(code: .abnormalClosure, reason: "x")))
        #expect(client.state == .closing(sent: WebSocketClose(code: .normalClosure, reason: "x")))
    }

    @Test(
        "A protocol violation sends the close frame naming it",
        arguments: [
            (WebSocketFrame(.text, payload: [0x41]).serialized(), WebSocketCloseCode.protocolError),
            (masked(WebSocketFrame(.text, payload: [0xFF])), .invalidPayloadData),
            (masked(WebSocketFrame(.binary, payload: .init(repeating: 0, count: 65537))), .messageTooBig),
        ])
    func violation(bytes: [UInt8], code: WebSocketCloseCode) throws {
        var (_, server) = Self.pair()
        let actions = server.receive(bytes)
        #expect(actions.count == 2)
        let sent = Self.sent(actions)
        #expect(Array(sent.prefix(4)) == [0x88, sent[1], UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)])
        guard case .closed(let closure) = actions.last else {
            Issue.record("\(actions)")
            return
        }
        #expect(closure.code == code)
        #expect(!closure.isClean)
        #expect(closure.error?.closeCode == code)
    }

    @Test("A violation while closing sends no second close")
    func violationWhileClosing() throws {
        var (_, server) = Self.pair()
        _ = try required(server.close())
        let actions = server.receive(WebSocketFrame(.text, payload: []).serialized())
        #expect(actions.count == 1)
        guard case .closed(let closure) = actions.first else {
            Issue.record("\(actions)")
            return
        }
        #expect(closure.error?.kind == .wrongMasking)
    }

    @Test("The connection lost without a close is 1006")
    func lost() {
        var (client, _) = Self.pair()
        #expect(client.connectionLost() == WebSocketClosure(code: .abnormalClosure, isClean: false))
        #expect(client.send(.text("x")) == nil)
    }

    @Test("RFC 7118 §8: a REGISTER in a text frame, from handshake to parsed message")
    func register() throws {
        var random = ScriptedRandom([0xABCD, 0x1234])
        var clientHandshake = try WebSocketClientHandshake(host: "proxy.example.com", path: "/", using: &random)
        var serverHandshake = WebSocketServerHandshake()
        guard case .accepted(_, let response, let early) = serverHandshake.receive(clientHandshake.request) else {
            Issue.record("handshake refused")
            return
        }
        #expect(early.isEmpty)
        #expect(clientHandshake.receive(response) == .accepted(subprotocol: "sip", remainder: []))
        let register = [
            "REGISTER sip:proxy.example.com SIP/2.0",
            "Via: SIP/2.0/WSS df7jal23ls0d.invalid;branch=z9hG4bKasudf",
            "From: sip:alice@example.com;tag=65bnmj.34asd",
            "To: sip:alice@example.com",
            "Call-ID: aiuy7k9njasd",
            "CSeq: 1 REGISTER",
            "Max-Forwards: 70",
            "Supported: path, outbound, gruu",
            "Contact: <sip:alice@df7jal23ls0d.invalid;transport=ws>;reg-id=1"
                + ";+sip.instance=\"<urn:uuid:f81-7dec-14a06cf1>\"",
            "Content-Length: 0", "", "",
        ].joined(separator: "\r\n")
        var (client, server) = Self.pair()
        let wire = try required(client.send(.text(register)))
        var delivered: [WebSocketMessage] = []
        for byte in wire {
            for case .deliver(let message) in server.receive([byte]) { delivered.append(message) }
        }
        #expect(delivered == [.text(register)])
        guard case .text(let text) = delivered.first else { return }
        let message = try Message(parsing: Array(text.utf8))
        #expect(try message.headerFields.callID == "aiuy7k9njasd")
        #expect(try message.headerFields.topVia?.transport == "WSS")
    }
}
