import SIPMessage

/// SIP over one WebSocket connection (RFC 7118), sans I/O: the opening handshake from either end, then one
/// SIP message per WebSocket message each way. The transport layer feeds it the connection's plaintext and
/// writes what it returns; the connection's timers (keep-alive, connect) stay with the transport layer.
struct WebSocketFlow {
    enum State {
        /// A client waiting for the server's 101.
        case clientHandshake(WebSocketClientHandshake)
        /// A server waiting for the client's upgrade request for `resource`.
        case serverHandshake(WebSocketServerHandshake)
        /// Messages flow.
        case open(WebSocketConnection<SystemRandomNumberGenerator>)
        /// This end sent its close frame and waits for the peer's; what else arrives is dropped.
        case closing(WebSocketConnection<SystemRandomNumberGenerator>)
        /// Closed (or refused).
        case closed
    }

    /// What the transport layer does next, in order.
    enum Event: Equatable {
        /// Write these bytes (handshake, frames) to the connection as they are.
        case send([UInt8])
        /// The handshake completed: SIP can flow (send what waited).
        case opened
        /// A whole WebSocket message: one SIP message (RFC 7118 §5).
        case message([UInt8])
        /// The answer to a keep-alive ping.
        case pong
        /// The handshake failed or the WebSocket closed: close the connection, with the error when not clean.
        case closed(TransportError?)
    }

    private(set) var state: State
    let limits: WebSocketLimits

    /// The client end: `request` is the upgrade to send first.
    init(clientHost host: String, resource: String, limits: WebSocketLimits) throws(TransportError) {
        var generator = SystemRandomNumberGenerator()
        do {
            state = .clientHandshake(
                try WebSocketClientHandshake(host: host, path: resource, limits: limits, using: &generator))
        } catch {
            throw TransportError(.invalidAddress, "WebSocket URL: \(error)")
        }
        self.limits = limits
    }

    /// The server end, answering upgrades for `resource` only.
    init(serverResource resource: String, limits: WebSocketLimits) {
        state = .serverHandshake(WebSocketServerHandshake(limits: limits, resource: resource))
        self.limits = limits
    }

    /// The client's upgrade request, to send once the TCP (or TLS) connection is up.
    var upgradeRequest: [UInt8]? {
        if case .clientHandshake(let handshake) = state { return handshake.request }
        return nil
    }

    var isOpen: Bool {
        if case .open = state { return true }
        return false
    }

    /// This end sent its close frame and waits for the peer's.
    var isClosing: Bool {
        if case .closing = state { return true }
        return false
    }

    /// Takes plaintext from the connection.
    mutating func receive(_ bytes: [UInt8]) -> [Event] {
        switch state {
        case .clientHandshake(var handshake):
            let output = handshake.receive(bytes)
            state = .clientHandshake(handshake)
            switch output {
            case .needMore: return []
            case .rejected(let error):
                state = .closed
                return [.closed(TransportError(.webSocketUpgradeFailed, "\(error)"))]
            case .accepted(_, let remainder):
                return [.opened] + open(role: .client, remainder: remainder)
            }
        case .serverHandshake(var handshake):
            let output = handshake.receive(bytes)
            state = .serverHandshake(handshake)
            switch output {
            case .needMore: return []
            case .rejected(let error, let response):
                state = .closed
                return [.send(response), .closed(TransportError(.webSocketUpgradeFailed, "\(error)"))]
            case .accepted(_, let response, let remainder):
                return [.send(response), .opened] + open(role: .server, remainder: remainder)
            }
        case .open(var connection):
            let actions = connection.receive(bytes)
            state = .open(connection)
            return events(actions)
        case .closing(var connection):
            let actions = connection.receive(bytes)
            state = .closing(connection)
            return events(actions).filter {
                if case .message = $0 { return false }
                return true
            }
        case .closed:
            return []
        }
    }

    /// The frame carrying one SIP message: text when it is UTF-8 (RFC 7118 §5.1), binary otherwise; `nil`
    /// unless open.
    mutating func frame(_ message: [UInt8]) -> [UInt8]? {
        guard case .open(var connection) = state else { return nil }
        let payload: WebSocketMessage =
            if let text = String(validating: message, as: UTF8.self) { .text(text) } else { .binary(message) }
        let bytes = connection.send(payload)
        state = .open(connection)
        return bytes
    }

    /// A keep-alive ping (RFC 6455 §5.5.2), or `nil` unless open.
    mutating func ping() -> [UInt8]? {
        guard case .open(var connection) = state else { return nil }
        let bytes = connection.ping()
        state = .open(connection)
        return bytes
    }

    /// The close frame that starts the close handshake, or `nil` unless open. The flow then waits for the
    /// peer's close frame (`isClosing`), which comes out of `receive(_:)` as `.closed`.
    mutating func close(_ code: WebSocketCloseCode) -> [UInt8]? {
        guard case .open(var connection) = state else {
            state = .closed
            return nil
        }
        guard let bytes = connection.close(WebSocketClose(code: code)) else {
            state = .closed
            return nil
        }
        state = .closing(connection)
        return bytes
    }

    private mutating func open(role: WebSocketRole, remainder: [UInt8]) -> [Event] {
        var connection = WebSocketConnection(role: role, limits: limits)
        let actions = remainder.isEmpty ? [] : connection.receive(remainder)
        state = .open(connection)
        return events(actions)
    }

    private mutating func events(_ actions: [WebSocketConnection<SystemRandomNumberGenerator>.Action]) -> [Event] {
        var events: [Event] = []
        for action in actions {
            switch action {
            case .deliver(let message): events.append(.message(message.payload))
            case .send(let bytes): events.append(.send(bytes))
            case .pong: events.append(.pong)
            case .closed(let closure):
                state = .closed
                if closure.isClean {
                    events.append(.closed(nil))
                } else {
                    let code: TransportError.Code =
                        closure.code == .messageTooBig ? .messageTooLarge : .connectionClosed
                    events.append(.closed(TransportError(code, "WebSocket closed: \(closure)")))
                }
            }
        }
        return events
    }
}
