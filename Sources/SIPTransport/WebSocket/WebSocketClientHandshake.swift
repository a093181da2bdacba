/// The client half of the opening handshake (RFC 6455 §4.1, RFC 7118 §4): the GET upgrade request asking for
/// the `sip` subprotocol, and the check of the server's 101 response.
///
/// Send `request`, then pass received bytes to `receive(_:)` until it stops returning `.needMore`.
public struct WebSocketClientHandshake: Sendable {
    /// What the response says so far.
    public enum Output: Sendable, Hashable {
        /// The head of the response is not complete yet.
        case needMore
        /// The server switched to WebSocket with `subprotocol` (always `sip`); `remainder` holds bytes that
        /// followed the head (frames), for the frame decoder.
        case accepted(subprotocol: String, remainder: [UInt8])
        /// The upgrade failed: close the connection.
        case rejected(WebSocketHandshakeError)
    }

    /// The Sec-WebSocket-Key sent (base64 of 16 random bytes).
    public let key: String
    /// The request to send: a GET with the upgrade header fields.
    public let request: [UInt8]
    private var reader: HTTPHeadReader
    private var outcome: Output?

    /// A handshake for `ws://host/path` (or `wss://`), its key drawn from `generator`.
    /// - Parameters:
    ///   - host: the Host field: the host, with `:port` when it is not the scheme's default.
    ///   - path: the request target: the URL's path and query, starting with `/`.
    ///   - origin: an Origin field, for servers that check it (browsers always send one).
    ///   - limits: the size limit on the response head.
    ///   - generator: the random source for the 16-byte key (RFC 6455 §4.1 asks for a fresh random one).
    /// - Throws: `.malformed` when a value holds control characters or spaces where none may be.
    public init(
        host: String, path: String = "/", origin: String? = nil, limits: WebSocketLimits = WebSocketLimits(),
        using generator: inout some RandomNumberGenerator
    ) throws(WebSocketHandshakeError) {
        var keyBytes: [UInt8] = []
        for _ in 0..<2 {
            let word = generator.next()
            for shift in stride(from: 56, through: 0, by: -8) { keyBytes.append(UInt8((word >> UInt64(shift)) & 0xFF)) }
        }
        try self.init(host: host, path: path, origin: origin, limits: limits, keyBytes: keyBytes)
    }

    init(host: String, path: String, origin: String?, limits: WebSocketLimits, keyBytes: [UInt8])
        throws(WebSocketHandshakeError)
    {
        guard !host.isEmpty, WebSocketHandshake.isSafeFieldValue(host), !host.contains(" ") else {
            throw WebSocketHandshakeError(.malformed, status: 0, "host \(host.debugDescription)")
        }
        guard path.hasPrefix("/"), WebSocketHandshake.isSafeFieldValue(path), !path.contains(" ") else {
            throw WebSocketHandshakeError(.malformed, status: 0, "path \(path.debugDescription)")
        }
        if let origin, !WebSocketHandshake.isSafeFieldValue(origin) {
            throw WebSocketHandshakeError(.malformed, status: 0, "origin \(origin.debugDescription)")
        }
        key = WebSocketBase64.encode(keyBytes)
        var text = "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        text += "Sec-WebSocket-Key: \(key)\r\n"
        if let origin { text += "Origin: \(origin)\r\n" }
        text += "Sec-WebSocket-Protocol: \(WebSocketHandshake.sipSubprotocol)\r\n"
        text += "Sec-WebSocket-Version: \(WebSocketHandshake.version)\r\n\r\n"
        request = Array(text.utf8)
        reader = HTTPHeadReader(limit: limits.maximumHandshakeSize)
    }

    /// Takes received bytes; once the response head is whole, checks it.
    public mutating func receive(_ bytes: some Sequence<UInt8>) -> Output {
        if let outcome { return outcome }
        let result: Output
        switch reader.receive(bytes) {
        case .needMore: return .needMore
        case .tooLarge: result = .rejected(WebSocketHandshakeError(.headTooLarge, status: 0))
        case .malformed: result = .rejected(WebSocketHandshakeError(.malformed, status: 0))
        case .head(let head, let remainder):
            switch check(head) {
            case .success(let subprotocol): result = .accepted(subprotocol: subprotocol, remainder: remainder)
            case .failure(let error): result = .rejected(error)
            }
        }
        outcome = result
        return result
    }

    /// RFC 6455 §4.1's checks of the server's answer, plus RFC 7118's subprotocol.
    private func check(_ head: HTTPHead) -> Result<String, WebSocketHandshakeError> {
        let (version, statusText, reason) = head.startLine
        guard version.hasPrefix("HTTP/1."), let status = Int(statusText), (100...999).contains(status) else {
            return .failure(WebSocketHandshakeError(.malformed, status: 0, "status line"))
        }
        guard status == 101 else {
            return .failure(WebSocketHandshakeError(.rejected, status: status, "\(status) \(reason)"))
        }
        guard head.lists("upgrade", "websocket"), head.lists("connection", "upgrade") else {
            return .failure(WebSocketHandshakeError(.notAnUpgrade, status: status, "Upgrade/Connection"))
        }
        let accept = head.values("sec-websocket-accept")
        guard accept == [WebSocketHandshake.acceptValue(forKey: key)] else {
            return .failure(WebSocketHandshakeError(.acceptMismatch, status: status, accept.joined(separator: ", ")))
        }
        let extensions = head.tokens("sec-websocket-extensions")
        guard extensions.isEmpty else {
            return .failure(
                WebSocketHandshakeError(.unexpectedExtension, status: status, extensions.joined(separator: ", ")))
        }
        let chosen = head.tokens("sec-websocket-protocol")
        guard chosen == [WebSocketHandshake.sipSubprotocol] else {
            return .failure(
                WebSocketHandshakeError(
                    .subprotocolMissing, status: status,
                    chosen.isEmpty ? "no Sec-WebSocket-Protocol" : chosen.joined(separator: ", ")))
        }
        return .success(WebSocketHandshake.sipSubprotocol)
    }
}
