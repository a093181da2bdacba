import SIPMessage

/// One TCP or TLS connection, owned by the transport layer on its loop.
final class StreamConnection {
    enum State {
        case connecting
        case handshaking
        case established
        /// A WebSocket client sent its close frame and waits (bounded by `closeTimer`) for the server's
        /// before it closes the TCP connection (RFC 6455 §7.1.1). Gone from the flow tables: nothing is sent.
        case closing
        case closed
    }

    let id: FlowID
    let channel: any StreamChannel
    let transport: TransportProtocol
    let remote: SocketAddress
    var local: SocketAddress
    let serverName: String?
    let isOutbound: Bool
    var state: State
    var framer: StreamFramer
    var tls: TLSSession?
    /// SIP over WebSocket (RFC 7118) on this connection: the upgrade, then one message per WebSocket message.
    var webSocket: WebSocketFlow?
    /// Bytes waiting for the socket to accept them (ciphertext for TLS).
    var outbox: [UInt8] = []
    var outboxOffset = 0
    /// Sends accepted while connecting or handshaking, with their completions.
    var pending: [(bytes: [UInt8], completion: ((TransportError?) -> Void)?)] = []
    var lastActivity: ContinuousClock.Instant
    /// Registrations and dialogs that keep this flow open (no idle close while > 0).
    var holders = 0
    var connectTimer: TimerHandle?
    var keepAliveTimer: TimerHandle?
    var pongTimer: TimerHandle?
    /// The bound on `.closing`.
    var closeTimer: TimerHandle?
    var keepAliveInterval: Duration?
    /// The peer's sent-by this connection also stands for (RFC 5923 `alias`), in the connection index.
    var alias: SIPTransportLayer.ConnectionKey?
    var watchingWrites = false

    init(
        id: FlowID, channel: any StreamChannel, transport: TransportProtocol, remote: SocketAddress,
        local: SocketAddress, serverName: String?, isOutbound: Bool, state: State, limits: ParserLimits,
        now: ContinuousClock.Instant
    ) {
        self.id = id
        self.channel = channel
        self.lastActivity = now
        self.transport = transport
        self.remote = remote
        self.local = local
        self.serverName = serverName
        self.isOutbound = isOutbound
        self.state = state
        self.framer = StreamFramer(limits: limits)
    }

    var hasUnsentBytes: Bool { outboxOffset < outbox.count }

    /// Queues plaintext for the wire (encrypting it on TLS).
    func enqueue(_ bytes: [UInt8]) throws(TransportError) {
        if let tls {
            try tls.writePlaintext(bytes)
            outbox.append(contentsOf: tls.takeCiphertext())
        } else {
            outbox.append(contentsOf: bytes)
        }
    }

    /// Queues one SIP message: in a WebSocket frame on WS/WSS, as is otherwise.
    func enqueueMessage(_ bytes: [UInt8]) throws(TransportError) {
        guard webSocket != nil else { return try enqueue(bytes) }
        guard let framed = webSocket?.frame(bytes) else {
            throw TransportError(.connectionClosed, "the WebSocket is closing")
        }
        try enqueue(framed)
    }

    /// Writes as much of the outbox as the socket takes. Returns false when the peer is gone.
    func flush() throws(TransportError) {
        while outboxOffset < outbox.count {
            let offset = outboxOffset
            let written = outbox.withUnsafeBytes { raw -> Result<Int, TransportError> in
                Result { () throws(TransportError) in
                    try channel.write(UnsafeRawBufferPointer(rebasing: raw[offset...]))
                }
            }
            guard case .success(let count) = written else {
                if case .failure(let error) = written { throw error }
                break
            }
            if count == 0 { break }
            outboxOffset += count
        }
        if outboxOffset == outbox.count {
            outbox.removeAll(keepingCapacity: true)
            outboxOffset = 0
        } else if outboxOffset > 65_536 {
            outbox.removeSubrange(0..<outboxOffset)
            outboxOffset = 0
        }
    }
}
