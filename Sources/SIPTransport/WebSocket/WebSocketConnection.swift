/// How a WebSocket connection ended (RFC 6455 §7.1.4-§7.1.6).
public struct WebSocketClosure: Sendable, Hashable, CustomStringConvertible {
    /// The peer's close code: 1005 when its close frame had no body, 1006 when none came; when this end
    /// failed the connection, the code it sent.
    public var code: WebSocketCloseCode
    /// The peer's reason (or the error's, when this end failed the connection).
    public var reason: String
    /// Whether both close frames were exchanged.
    public var isClean: Bool
    /// The peer's protocol violation that made this end fail the connection.
    public var error: WebSocketError?

    /// A closure record.
    public init(code: WebSocketCloseCode, reason: String = "", isClean: Bool, error: WebSocketError? = nil) {
        self.code = code
        self.reason = reason
        self.isClean = isClean
        self.error = error
    }

    public var description: String {
        let text = reason.isEmpty ? "\(code)" : "\(code) \(reason)"
        return isClean ? text : "\(text) (unclean)"
    }
}

/// One end of an open WebSocket connection, sans I/O (RFC 6455 §5-§7): bytes in, messages and bytes out.
/// Pings are answered, fragments reassembled, the close handshake run, and a protocol violation turns into
/// the close frame that names it. Timers (keep-alive, the wait for the peer's close) stay with the caller.
///
/// Start it after the opening handshake and feed it the handshake's remainder first.
public struct WebSocketConnection<MaskingKeys: RandomNumberGenerator> {
    /// Where the close handshake stands.
    public enum State: Sendable, Hashable {
        /// Messages flow both ways.
        case open
        /// This end sent its close frame and waits for the peer's.
        case closing(sent: WebSocketClose)
        /// Both close frames went (or the connection failed): close the TCP connection.
        case closed(WebSocketClosure)
    }

    /// What the caller does after an event, in order.
    public enum Action: Sendable, Hashable {
        /// A whole message arrived.
        case deliver(WebSocketMessage)
        /// Write these bytes to the peer.
        case send([UInt8])
        /// A pong arrived (the answer to a keep-alive ping), with its application data.
        case pong([UInt8])
        /// The WebSocket is closed: a server closes the TCP connection now; a client waits a little for the
        /// server to close it first (§7.1.1).
        case closed(WebSocketClosure)
    }

    /// This end's role: a client masks its frames.
    public let role: WebSocketRole
    /// Where the close handshake stands.
    public private(set) var state: State = .open
    private var decoder: WebSocketFrameDecoder
    private var maskingKeys: MaskingKeys

    /// A connection whose client frames are masked with keys from `maskingKeys` (RFC 6455 §5.3 asks for
    /// unpredictable ones; a server never uses it).
    /// - Parameters:
    ///   - role: this end's role.
    ///   - limits: the size limits (the per-message limit applies to what arrives).
    ///   - maskingKeys: the source of masking keys.
    public init(role: WebSocketRole, limits: WebSocketLimits = WebSocketLimits(), maskingKeys: MaskingKeys) {
        self.role = role
        self.decoder = WebSocketFrameDecoder(role: role, limits: limits)
        self.maskingKeys = maskingKeys
    }

    /// Takes received bytes and says what to do: deliver messages, send pongs and close frames, close.
    public mutating func receive(_ bytes: some Sequence<UInt8>) -> [Action] {
        if case .closed = state { return [] }
        decoder.append(bytes)
        var actions: [Action] = []
        while true {
            guard let output = decoder.next() else { break }
            switch output {
            case .needMore: return actions
            case .message(let message): actions.append(.deliver(message))
            case .ping(let payload):
                if case .open = state { actions.append(.send(encode(WebSocketFrame(.pong, payload: payload)))) }
            case .pong(let payload): actions.append(.pong(payload))
            case .close(let close): return actions + peerClosed(close)
            case .failed(let error): return actions + fail(error)
            }
        }
        return actions
    }

    /// The bytes of a data message, or `nil` once the close handshake has begun (§5.5.1: no data after a close).
    /// - Parameters:
    ///   - message: the message.
    ///   - fragmentSize: the largest payload per frame; `nil` sends one frame.
    public mutating func send(_ message: WebSocketMessage, fragmentSize: Int? = nil) -> [UInt8]? {
        guard case .open = state else { return nil }
        var out: [UInt8] = []
        for frame in WebSocketFrame.frames(for: message, fragmentSize: fragmentSize) {
            out += encode(frame)
        }
        return out
    }

    /// A keep-alive ping, or `nil` unless open; the caller's timer decides when, and watches for `.pong`.
    /// - Parameter payload: application data to echo back, cut at 125 bytes.
    public mutating func ping(_ payload: [UInt8] = []) -> [UInt8]? {
        guard case .open = state else { return nil }
        return encode(WebSocketFrame(.ping, payload: Array(payload.prefix(125))))
    }

    /// Starts the close handshake: the close frame to send, or `nil` unless open. The peer's close then
    /// comes out of `receive(_:)` as `.closed`; if it never does, the caller's timer calls `connectionLost()`.
    /// - Parameter close: the code and reason to send (a code that may not be sent becomes 1000).
    public mutating func close(_ close: WebSocketClose = WebSocketClose(code: .normalClosure)) -> [UInt8]? {
        guard case .open = state else { return nil }
        let sent = close.code.isValidOnWire ? close : WebSocketClose(code: .normalClosure, reason: close.reason)
        state = .closing(sent: sent)
        return encode(WebSocketFrame(.close, payload: sent.payload))
    }

    /// The TCP connection ended (or the close timer fired): the closure, 1006 unless already closed.
    public mutating func connectionLost() -> WebSocketClosure {
        if case .closed(let closure) = state { return closure }
        let closure = WebSocketClosure(code: .abnormalClosure, isClean: false)
        state = .closed(closure)
        return closure
    }

    /// The peer's close frame: echo it when this end had not closed, then the connection is closed.
    private mutating func peerClosed(_ close: WebSocketClose?) -> [Action] {
        let closure = WebSocketClosure(
            code: close?.code ?? .noStatusReceived, reason: close?.reason ?? "", isClean: true)
        var actions: [Action] = []
        if case .open = state {
            // Echo the code (§5.5.1); a close without a body is answered without one.
            actions.append(
                .send(
                    encode(WebSocketFrame(.close, payload: close.map { WebSocketClose(code: $0.code) }?.payload ?? [])))
            )
        }
        state = .closed(closure)
        actions.append(.closed(closure))
        return actions
    }

    /// A protocol violation: send the close frame naming it (unless one went already), then close (§7.1.7).
    private mutating func fail(_ error: WebSocketError) -> [Action] {
        var actions: [Action] = []
        if case .open = state {
            let close = WebSocketClose(code: error.closeCode, reason: "\(error.kind)")
            actions.append(.send(encode(WebSocketFrame(.close, payload: close.payload))))
        }
        let closure = WebSocketClosure(code: error.closeCode, reason: "\(error.kind)", isClean: false, error: error)
        state = .closed(closure)
        actions.append(.closed(closure))
        return actions
    }

    /// A frame on the wire: masked by a client, plain from a server.
    private mutating func encode(_ frame: WebSocketFrame) -> [UInt8] {
        frame.serialized(maskingKey: role == .client ? UInt32(truncatingIfNeeded: maskingKeys.next()) : nil)
    }
}

extension WebSocketConnection: Sendable where MaskingKeys: Sendable {}

extension WebSocketConnection where MaskingKeys == SystemRandomNumberGenerator {
    /// A connection masking with the system's random source.
    /// - Parameters:
    ///   - role: this end's role.
    ///   - limits: the size limits.
    public init(role: WebSocketRole, limits: WebSocketLimits = WebSocketLimits()) {
        self.init(role: role, limits: limits, maskingKeys: SystemRandomNumberGenerator())
    }
}
