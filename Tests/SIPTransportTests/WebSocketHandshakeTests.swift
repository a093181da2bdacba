import Testing

@testable import SIPTransport

@Suite("WebSocket opening handshake (RFC 6455 §4, RFC 7118 §4)")
struct WebSocketHandshakeTests {
    /// A client's upgrade request with `fields` replacing or removing (value nil) the standard ones.
    static func request(
        method: String = "GET", version: String = "HTTP/1.1", _ changes: [String: String?] = [:]
    ) -> [UInt8] {
        var fields: [(String, String)] = [
            ("Host", "proxy.example.com"), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Origin", "http://www.example.com"),
            ("Sec-WebSocket-Protocol", "sip"), ("Sec-WebSocket-Version", "13"),
        ]
        for (name, value) in changes {
            if let index = fields.firstIndex(where: { $0.0 == name }) {
                if let value { fields[index].1 = value } else { fields.remove(at: index) }
            } else if let value {
                fields.append((name, value))
            }
        }
        let head = "\(method) /sip HTTP/1.1".replacingVersion(version)
        return Array((([head] + fields.map { "\($0.0): \($0.1)" }).joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    @Test("§1.3: the accept value of the sample key")
    func acceptVector() {
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test("Base64 round trips and refuses what is not base64")
    func base64() {
        for count in 0..<20 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
            #expect(WebSocketBase64.decode(WebSocketBase64.encode(bytes)) == bytes)
        }
        #expect(WebSocketBase64.decode("dGhlIHNhbXBsZSBub25jZQ==") == Array("the sample nonce".utf8))
        for bad in ["abc", "ab=c", "a===", "ab$=", "dGhlIHNhbXBsZSBub25jZR==", "=AAA"] {
            #expect(WebSocketBase64.decode(bad) == nil, "\(bad)")
        }
    }

    @Test("The client's request: GET with the upgrade fields, sip, version 13, a 16-byte key")
    func clientRequest() throws {
        var random = ScriptedRandom([0x0011_2233_4455_6677, 0x8899_aabb_ccdd_eeff])
        let client = try WebSocketClientHandshake(
            host: "proxy.example.com:8443", path: "/ws?x=1", origin: "https://example.com", using: &random)
        #expect(WebSocketBase64.decode(client.key) == [UInt8](hex: "00112233445566778899aabbccddeeff"))
        let text = String(decoding: client.request, as: UTF8.self)
        #expect(
            text
                == "GET /ws?x=1 HTTP/1.1\r\nHost: proxy.example.com:8443\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: \(client.key)\r\nOrigin: https://example.com\r\n"
                + "Sec-WebSocket-Protocol: sip\r\nSec-WebSocket-Version: 13\r\n\r\n")
    }

    @Test("The client refuses host and path values that would break the request")
    func clientValues() {
        var random = ScriptedRandom([1])
        for (host, path) in [("a\r\nX: y", "/"), ("", "/"), ("a b", "/"), ("a", "x"), ("a", "/ HTTP/1.0")] {
            #expect(throws: WebSocketHandshakeError.self) {
                try WebSocketClientHandshake(host: host, path: path, using: &random)
            }
        }
    }

    @Test("Client and server agree, byte by byte, and frames after the heads are kept")
    func bothSides() throws {
        var random = ScriptedRandom([42, 43])
        var client = try WebSocketClientHandshake(host: "example.com", using: &random)
        var server = WebSocketServerHandshake()
        let frame = masked(WebSocketFrame(.text, payload: Array("hi".utf8)))
        var serverOutput = WebSocketServerHandshake.Output.needMore
        for byte in client.request + frame {
            if case .needMore = serverOutput { serverOutput = server.receive([byte]) }
        }
        guard case .accepted(let request, let response, let remainder) = serverOutput else {
            Issue.record("server: \(serverOutput)")
            return
        }
        #expect(request.host == "example.com")
        #expect(request.target == "/")
        #expect(request.subprotocols == ["sip"])
        #expect(remainder == Array(frame.prefix(remainder.count)))
        let reply = WebSocketFrame(.text, payload: Array("ok".utf8)).serialized()
        var clientOutput = WebSocketClientHandshake.Output.needMore
        for byte in response + reply {
            if case .needMore = clientOutput { clientOutput = client.receive([byte]) }
        }
        #expect(clientOutput == .accepted(subprotocol: "sip", remainder: []))
        #expect(client.receive(reply) == clientOutput)
        // All at once, the remainder is the whole frame.
        var server2 = WebSocketServerHandshake()
        guard case .accepted(_, _, let rest) = server2.receive(client.request + frame) else {
            Issue.record("not accepted")
            return
        }
        #expect(rest == frame)
    }

    @Test("The server's 101 for the RFC 6455 sample key")
    func serverResponse() {
        var server = WebSocketServerHandshake()
        let output = server.receive(Self.request(["Sec-WebSocket-Protocol": "foo, sip"]))
        guard case .accepted(let request, let response, _) = output else {
            Issue.record("\(output)")
            return
        }
        #expect(request.origin == "http://www.example.com")
        #expect(request.subprotocols == ["foo", "sip"])
        #expect(
            String(decoding: response, as: UTF8.self)
                == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: sip\r\n\r\n")
    }

    @Test("Tokens are case-insensitive and Connection is a list")
    func tokenLists() {
        var server = WebSocketServerHandshake()
        let output = server.receive(
            Self.request(["Upgrade": "WebSocket", "Connection": "keep-alive, UPGRADE", "Host": nil, "HOST": "h"]))
        guard case .accepted = output else {
            Issue.record("\(output)")
            return
        }
    }

    struct ServerCase: Sendable, CustomTestStringConvertible {
        let name: String
        let request: [UInt8]
        let kind: WebSocketHandshakeError.Kind
        let status: Int
        var testDescription: String { name }
    }

    static let serverCases: [ServerCase] = [
        ServerCase(name: "POST", request: request(method: "POST"), kind: .wrongMethod, status: 405),
        ServerCase(name: "HTTP/1.0", request: request(version: "HTTP/1.0"), kind: .malformed, status: 400),
        ServerCase(name: "no Host", request: request(["Host": nil]), kind: .missingHost, status: 400),
        ServerCase(name: "no Upgrade", request: request(["Upgrade": nil]), kind: .notAnUpgrade, status: 400),
        ServerCase(name: "Upgrade: h2c", request: request(["Upgrade": "h2c"]), kind: .notAnUpgrade, status: 400),
        ServerCase(
            name: "Connection: keep-alive", request: request(["Connection": "keep-alive"]), kind: .notAnUpgrade,
            status: 400),
        ServerCase(
            name: "version 8", request: request(["Sec-WebSocket-Version": "8"]), kind: .unsupportedVersion,
            status: 426),
        ServerCase(
            name: "no version", request: request(["Sec-WebSocket-Version": nil]), kind: .unsupportedVersion,
            status: 426),
        ServerCase(name: "no key", request: request(["Sec-WebSocket-Key": nil]), kind: .invalidKey, status: 400),
        ServerCase(
            name: "a 15-byte key", request: request(["Sec-WebSocket-Key": "AAAAAAAAAAAAAAAAAAAA"]),
            kind: .invalidKey, status: 400),
        ServerCase(
            name: "a key that is not base64", request: request(["Sec-WebSocket-Key": "not base64 at all!!!!!=="]),
            kind: .invalidKey, status: 400),
        ServerCase(
            name: "no subprotocol", request: request(["Sec-WebSocket-Protocol": nil]), kind: .subprotocolMissing,
            status: 400),
        ServerCase(
            name: "other subprotocols only", request: request(["Sec-WebSocket-Protocol": "xmpp, msrp"]),
            kind: .subprotocolMissing, status: 400),
        ServerCase(name: "not HTTP", request: Array("hello\r\n\r\n".utf8), kind: .malformed, status: 400),
        ServerCase(
            name: "a folded line", request: Array("GET / HTTP/1.1\r\nHost: a\r\n b\r\n\r\n".utf8), kind: .malformed,
            status: 400),
    ]

    @Test("The server's refusals and their HTTP status", arguments: serverCases)
    func serverRefuses(_ test: ServerCase) {
        var server = WebSocketServerHandshake()
        let output = server.receive(test.request)
        guard case .rejected(let error, let response) = output else {
            Issue.record("\(test.name): \(output)")
            return
        }
        #expect(error.kind == test.kind)
        #expect(error.status == test.status)
        let text = String(decoding: response, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 \(test.status) "))
        #expect(text.contains("Connection: close\r\n"))
        if test.status == 426 { #expect(text.contains("\r\nSec-WebSocket-Version: 13\r\n")) }
        if test.kind == .subprotocolMissing { #expect(text.contains("\"sip\" subprotocol")) }
        // The outcome stays.
        #expect(server.receive([0x41]) == output)
    }

    @Test("A head over the limit is refused with 431, complete or not")
    func headTooLarge() throws {
        let limits = WebSocketLimits(maximumHandshakeSize: 200)
        var growing = WebSocketServerHandshake(limits: limits)
        var output = WebSocketServerHandshake.Output.needMore
        for _ in 0..<50 where output == .needMore { output = growing.receive(Array("X-Padding: 0123456789\r\n".utf8)) }
        guard case .rejected(let error, let response) = output else {
            Issue.record("\(output)")
            return
        }
        #expect(error.kind == .headTooLarge)
        #expect(String(decoding: response, as: UTF8.self).hasPrefix("HTTP/1.1 431 "))
        var whole = WebSocketServerHandshake(limits: limits)
        let big = Self.request(["X-Padding": String(repeating: "a", count: 200)])
        guard case .rejected(let bigError, _) = whole.receive(big) else {
            Issue.record("not refused")
            return
        }
        #expect(bigError.kind == .headTooLarge)
        var client = try Self.client()
        #expect(
            client.receive(Array(repeating: 0x41, count: 9000))
                == .rejected(WebSocketHandshakeError(.headTooLarge, status: 0)))
    }

    static func client() throws -> WebSocketClientHandshake {
        var random = ScriptedRandom([7, 8])
        return try WebSocketClientHandshake(host: "example.com", using: &random)
    }

    struct ClientCase: Sendable, CustomTestStringConvertible {
        let name: String
        let changes: [String: String?]
        var statusLine = "HTTP/1.1 101 Switching Protocols"
        let kind: WebSocketHandshakeError.Kind
        var testDescription: String { name }
    }

    static let clientCases: [ClientCase] = [
        ClientCase(name: "404", changes: [:], statusLine: "HTTP/1.1 404 Not Found", kind: .rejected),
        ClientCase(name: "not HTTP", changes: [:], statusLine: "SIP/2.0 200 OK", kind: .malformed),
        ClientCase(name: "503 without a reason", changes: [:], statusLine: "HTTP/1.1 503", kind: .rejected),
        ClientCase(name: "no Upgrade", changes: ["Upgrade": nil], kind: .notAnUpgrade),
        ClientCase(name: "no Connection", changes: ["Connection": nil], kind: .notAnUpgrade),
        ClientCase(
            name: "a wrong accept", changes: ["Sec-WebSocket-Accept": "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="],
            kind: .acceptMismatch),
        ClientCase(name: "no accept", changes: ["Sec-WebSocket-Accept": nil], kind: .acceptMismatch),
        ClientCase(name: "no subprotocol", changes: ["Sec-WebSocket-Protocol": nil], kind: .subprotocolMissing),
        ClientCase(name: "another subprotocol", changes: ["Sec-WebSocket-Protocol": "xmpp"], kind: .subprotocolMissing),
        ClientCase(
            name: "an extension not offered", changes: ["Sec-WebSocket-Extensions": "permessage-deflate"],
            kind: .unexpectedExtension),
    ]

    @Test("The client's checks of the server's answer", arguments: clientCases)
    func clientRefuses(_ test: ClientCase) throws {
        var client = try Self.client()
        var fields: [(String, String)] = [
            ("Upgrade", "WEBSOCKET"), ("Connection", "upgrade"),
            ("Sec-WebSocket-Accept", WebSocketHandshake.acceptValue(forKey: client.key)),
            ("Sec-WebSocket-Protocol", "sip"),
        ]
        for (name, value) in test.changes {
            if let index = fields.firstIndex(where: { $0.0 == name }) {
                if let value { fields[index].1 = value } else { fields.remove(at: index) }
            } else if let value {
                fields.append((name, value))
            }
        }
        let text = ([test.statusLine] + fields.map { "\($0.0): \($0.1)" }).joined(separator: "\r\n") + "\r\n\r\n"
        let output = client.receive(Array(text.utf8))
        guard case .rejected(let error) = output else {
            Issue.record("\(test.name): \(output)")
            return
        }
        #expect(error.kind == test.kind)
        if test.kind == .rejected { #expect(error.status == Int(test.statusLine.split(separator: " ")[1])) }
    }
}

extension String {
    fileprivate func replacingVersion(_ version: String) -> String {
        version == "HTTP/1.1" ? self : String(dropLast(8)) + version
    }
}
