/// A client's upgrade request, once accepted (RFC 6455 §4.2.1).
public struct WebSocketUpgradeRequest: Sendable, Hashable {
    /// The request target: path and query.
    public var target: String
    /// The Host field.
    public var host: String
    /// The Origin field, if any.
    public var origin: String?
    /// The subprotocols the client offered, in its order (`sip` among them).
    public var subprotocols: [String]
}

/// The server half of the opening handshake (RFC 6455 §4.2, RFC 7118 §4): reads the client's GET, checks it,
/// and produces the 101 response choosing `sip`, or the HTTP error to send before closing.
///
/// Pass received bytes to `receive(_:)` until it stops returning `.needMore`.
public struct WebSocketServerHandshake: Sendable {
    /// What the request says so far.
    public enum Output: Sendable, Hashable {
        /// The head of the request is not complete yet.
        case needMore
        /// A valid upgrade: send `response` (101), then speak WebSocket; `remainder` holds bytes that followed
        /// the head (frames), for the frame decoder.
        case accepted(WebSocketUpgradeRequest, response: [UInt8], remainder: [UInt8])
        /// Not a valid upgrade: send `response` (the HTTP error), then close the connection.
        case rejected(WebSocketHandshakeError, response: [UInt8])
    }

    private var reader: HTTPHeadReader
    private var outcome: Output?
    private let resource: String?

    /// A server handshake.
    /// - Parameters:
    ///   - limits: the size limit on the request head.
    ///   - resource: the only path upgrades are answered on (the query is ignored); any when `nil`. Other
    ///     paths get 404.
    public init(limits: WebSocketLimits = WebSocketLimits(), resource: String? = nil) {
        reader = HTTPHeadReader(limit: limits.maximumHandshakeSize)
        self.resource = resource
    }

    /// Takes received bytes; once the request head is whole, checks it.
    public mutating func receive(_ bytes: some Sequence<UInt8>) -> Output {
        if let outcome { return outcome }
        let result: Output
        switch reader.receive(bytes) {
        case .needMore: return .needMore
        case .tooLarge: result = Self.reject(WebSocketHandshakeError(.headTooLarge, status: 431))
        case .malformed: result = Self.reject(WebSocketHandshakeError(.malformed, status: 400))
        case .head(let head, let remainder):
            switch Self.check(head, resource: resource) {
            case .success(let (request, key)):
                result = .accepted(request, response: Self.switchingProtocols(key: key), remainder: remainder)
            case .failure(let error):
                result = Self.reject(error)
            }
        }
        outcome = result
        return result
    }

    /// RFC 6455 §4.2.1's checks of the client's request, plus RFC 7118's subprotocol.
    private static func check(_ head: HTTPHead, resource: String?) -> Result<
        (WebSocketUpgradeRequest, String), WebSocketHandshakeError
    > {
        let (method, target, version) = head.startLine
        guard version == "HTTP/1.1" else {
            return .failure(WebSocketHandshakeError(.malformed, status: 400, "version \(version)"))
        }
        guard method == "GET" else { return .failure(WebSocketHandshakeError(.wrongMethod, status: 405, method)) }
        if let resource,
            target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first
                .map(String.init) != resource
        {
            return .failure(WebSocketHandshakeError(.unknownResource, status: 404, target))
        }
        let hosts = head.values("host")
        guard hosts.count == 1, let host = hosts.first, !host.isEmpty else {
            return .failure(WebSocketHandshakeError(.missingHost, status: 400))
        }
        guard head.lists("upgrade", "websocket"), head.lists("connection", "upgrade") else {
            return .failure(WebSocketHandshakeError(.notAnUpgrade, status: 400, "Upgrade/Connection"))
        }
        let versions = head.tokens("sec-websocket-version")
        guard versions == [WebSocketHandshake.version] else {
            return .failure(
                WebSocketHandshakeError(.unsupportedVersion, status: 426, versions.joined(separator: ", ")))
        }
        let keys = head.values("sec-websocket-key")
        guard keys.count == 1, let key = keys.first, WebSocketBase64.decode(key)?.count == 16 else {
            return .failure(WebSocketHandshakeError(.invalidKey, status: 400, keys.joined(separator: ", ")))
        }
        let offered = head.tokens("sec-websocket-protocol")
        guard offered.contains(WebSocketHandshake.sipSubprotocol) else {
            return .failure(
                WebSocketHandshakeError(
                    .subprotocolMissing, status: 400,
                    offered.isEmpty ? "no Sec-WebSocket-Protocol" : offered.joined(separator: ", ")))
        }
        let origins = head.values("origin")
        let request = WebSocketUpgradeRequest(
            target: target, host: host, origin: origins.first, subprotocols: offered)
        return .success((request, key))
    }

    /// The 101 answer: the accept value and the `sip` subprotocol; no extensions.
    static func switchingProtocols(key: String) -> [UInt8] {
        let text =
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(WebSocketHandshake.acceptValue(forKey: key))\r\n"
            + "Sec-WebSocket-Protocol: \(WebSocketHandshake.sipSubprotocol)\r\n\r\n"
        return Array(text.utf8)
    }

    /// The HTTP error for a refused handshake, with a one-line plain-text body saying why.
    private static func reject(_ error: WebSocketHandshakeError) -> Output {
        let reason: String
        var extra = ""
        switch error.status {
        case 405:
            reason = "Method Not Allowed"
            extra = "Allow: GET\r\n"
        case 426:
            reason = "Upgrade Required"
            extra =
                "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: \(WebSocketHandshake.version)\r\n"
        case 404: reason = "Not Found"
        case 431: reason = "Request Header Fields Too Large"
        default: reason = "Bad Request"
        }
        let body: String
        if error.kind == .subprotocolMissing {
            body = "This endpoint speaks SIP over WebSocket only (RFC 7118): offer the \"sip\" subprotocol.\n"
        } else {
            body = "\(error.kind).\n"
        }
        let text =
            "HTTP/1.1 \(error.status) \(reason)\r\n\(extra)Content-Type: text/plain\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        return .rejected(error, response: Array(text.utf8))
    }
}
