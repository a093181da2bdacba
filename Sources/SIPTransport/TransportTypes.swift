public import SIPMessage

/// A SIP transport protocol.
public enum TransportProtocol: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case udp
    case tcp
    case tls
    /// SIP over WebSocket on TCP (RFC 7118).
    case ws
    /// SIP over WebSocket on TLS (RFC 7118): a `sips:` URI with `transport=ws` (§5.2).
    case wss

    /// Reliable transports carry no retransmissions (RFC 3261 §17.1.1.2).
    public var isReliable: Bool { self != .udp }
    /// Whether the transport runs over TLS (TLS and WSS): the peer's certificate and name are checked.
    public var isSecure: Bool { self == .tls || self == .wss }
    /// Whether SIP travels in WebSocket messages (RFC 7118): WS and WSS.
    public var isWebSocket: Bool { self == .ws || self == .wss }
    /// The transport token of a Via (`UDP`, `TCP`, `TLS`, `WS`, `WSS`; RFC 7118 §5.1).
    public var viaToken: String { rawValue.uppercased() }
    /// 5060, 5061 for TLS, and the HTTP ports for WebSocket: 80 for WS, 443 for WSS (RFC 6455 §3).
    public var defaultPort: UInt16 {
        switch self {
        case .udp, .tcp: 5060
        case .tls: 5061
        case .ws: 80
        case .wss: 443
        }
    }

    /// From a Via token or `transport` parameter (case-insensitive).
    public init?(token: String) {
        self.init(rawValue: token.lowercased())
    }

    public var description: String { viaToken }
}

/// Where to send a request: a transport, an address and, for TLS, the SIP domain the certificate must
/// name (RFC 5922). Resolution (RFC 3263) produces these.
public struct Destination: Sendable, Hashable, CustomStringConvertible {
    public var transport: TransportProtocol
    public var address: SocketAddress
    /// The domain the request was sent to: SNI and the certificate's name; `nil` checks the IP.
    public var serverName: String?

    public init(transport: TransportProtocol, address: SocketAddress, serverName: String? = nil) {
        self.transport = transport
        self.address = address
        self.serverName = serverName
    }

    public var description: String { "\(transport.rawValue):\(address)" }
}

/// A connection (TCP/TLS) or the pair of local socket and remote address (UDP) that messages travel on.
public struct FlowID: Sendable, Hashable, CustomStringConvertible {
    let raw: UInt64
    public var description: String { "flow-\(raw)" }
}

/// A message as it arrived.
public struct IncomingMessage: Sendable {
    public var message: Message
    public var transport: TransportProtocol
    /// The packet's source address (what `received`/`rport` record).
    public var source: SocketAddress
    /// The local address it arrived on.
    public var local: SocketAddress
    /// The connection it arrived on (streams), for responses and outbound flows.
    public var flow: FlowID?
    /// The top Via summary of the request this is or answers, read once when it arrived (after `received`
    /// and `rport` were stamped). A hint only: readers take it through `topViaSummary(reusing:)`, which uses
    /// it only when the Via bytes it was read from are the message's own.
    package var topVia: TopViaSummary?

    public init(
        message: Message, transport: TransportProtocol, source: SocketAddress, local: SocketAddress, flow: FlowID?
    ) {
        self.message = message
        self.transport = transport
        self.source = source
        self.local = local
        self.flow = flow
    }
}

/// Things that happen to flows.
public enum FlowEvent: Sendable {
    /// A stream connection closed, with the reason (`nil` for an orderly close).
    case closed(FlowID, TransportError?)
    /// A keep-alive pong did not arrive in time: the flow is dead (RFC 5626 §4.4.1).
    case dead(FlowID)
}

/// Limits and timers of the transport layer.
public struct TransportConfiguration: Sendable {
    /// Parser limits; datagrams and stream messages above `maximumMessageSize` get 513 or are closed.
    public var parserLimits: ParserLimits
    /// The most stream connections open at once (accepted or opened).
    public var maximumConnections: Int
    /// Read buffer cap per connection: a peer cannot make one connection hold more.
    public var maximumBufferedBytes: Int
    /// Connections with no traffic for this long are closed unless a registration or dialog holds them.
    public var idleTimeout: Duration
    /// How long to wait for TCP/TLS connection setup.
    public var connectTimeout: Duration
    /// How long to wait for a CRLF pong after a CRLFCRLF ping before the flow is reported dead.
    public var pongTimeout: Duration
    /// Requests over UDP larger than this move to TCP (RFC 3261 §18.1.1); `nil` never switches.
    public var udpSwitchThreshold: Int?
    public var tls: TLSConfiguration
    /// How long a WebSocket client that sent its close frame waits for the server's before it closes the
    /// TCP connection itself (RFC 6455 §7.1.1: the server closes first).
    public var webSocketCloseTimeout: Duration = .seconds(2)
    /// A UDP datagram that waited longer than this in the socket's queue marks the loop as behind its input
    /// (`SIPTransportLayer.isReceiveBacklogged`). T1: by then the caller retransmits, so the backlog feeds
    /// itself; a shorter stall (a busy machine's scheduling) only delays calls and must not fail them.
    public var backlogDelay: Duration = .milliseconds(500) {
        didSet {
            let (seconds, attoseconds) = backlogDelay.components
            backlogDelayNanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        }
    }

    /// `backlogDelay` as the kernel's timestamps count, worked out once: every datagram compares with it.
    private(set) var backlogDelayNanoseconds: Int64 = 500_000_000

    public init(
        parserLimits: ParserLimits = ParserLimits(), maximumConnections: Int = 1024,
        maximumBufferedBytes: Int = 256 * 1024, idleTimeout: Duration = .seconds(120),
        connectTimeout: Duration = .seconds(10), pongTimeout: Duration = .seconds(10),
        udpSwitchThreshold: Int? = 1300, tls: TLSConfiguration = TLSConfiguration()
    ) {
        self.parserLimits = parserLimits
        self.maximumConnections = maximumConnections
        self.maximumBufferedBytes = maximumBufferedBytes
        self.idleTimeout = idleTimeout
        self.connectTimeout = connectTimeout
        self.pongTimeout = pongTimeout
        self.udpSwitchThreshold = udpSwitchThreshold
        self.tls = tls
    }
}

/// One SIP message as it crossed the transport, for traces, pcap export and call-flow diagrams.
public struct TraceRecord: Sendable {
    public enum Direction: Sendable, Hashable {
        case incoming
        case outgoing
    }

    public var direction: Direction
    public var transport: TransportProtocol
    public var local: SocketAddress
    public var remote: SocketAddress
    /// Wall-clock time is the observer's business; this is monotonic.
    public var time: ContinuousClock.Instant
    /// The message bytes as sent or received.
    public var bytes: [UInt8]

    public init(
        direction: Direction, transport: TransportProtocol, local: SocketAddress, remote: SocketAddress,
        time: ContinuousClock.Instant, bytes: [UInt8]
    ) {
        self.direction = direction
        self.transport = transport
        self.local = local
        self.remote = remote
        self.time = time
        self.bytes = bytes
    }
}
