public import SIPMessage

/// The SIP transport layer (RFC 3261 §18) on one event loop: UDP, TCP and TLS listeners and connections,
/// stream framing, Via `received`/`rport` (§18.2.1, RFC 3581), response routing (§18.2.2), connection
/// reuse, idle timeouts, CRLF keep-alives (RFC 5626 §4.4.1) and limits.
///
/// Every method must be called on `loop` (use `loop.execute` from elsewhere); callbacks run on the loop.
public final class SIPTransportLayer: @unchecked Sendable {
    // @unchecked Sendable: all state is confined to `loop`'s thread; the class is passed to other threads
    // only so they can post work to the loop through `loop.execute`.

    public let loop: any EventLoopProtocol
    public let configuration: TransportConfiguration
    let network: any NetworkStack
    // The hot per-message state below is read and written without run-time exclusivity checks
    // (`@exclusivity(unchecked)`): it is confined to the loop, and every access is a momentary read or write
    // of a value whose methods call nothing outside it (a callback is read out first and called after the
    // access ends; a receive into `receiveBuffer` calls only the channel, a route lookup only the network),
    // so no two accesses can overlap.

    /// Every message that arrives, after framing and §18.2.1 processing.
    @exclusivity(unchecked) public var onMessage: ((IncomingMessage) -> Void)?
    /// Connections that close or die.
    public var onFlowEvent: ((FlowEvent) -> Void)?
    /// Every SIP message sent or received (keep-alives excluded), when set.
    @exclusivity(unchecked) public var onTrace: ((TraceRecord) -> Void)?
    /// Counters for tests and statistics.
    @exclusivity(unchecked) public internal(set) var statistics = Statistics()

    public struct Statistics: Sendable {
        public var datagramsReceived = 0
        /// Datagrams handled while `isReceiveBacklogged` was set.
        public var backloggedDatagrams = 0
        public var messagesReceived = 0
        public var messagesSent = 0
        public var parseErrors = 0
        public var errorResponsesSent = 0
        public var connectionsOpened = 0
        public var connectionsAccepted = 0
        public var connectionsRefused = 0
        /// STUN datagrams on the SIP UDP sockets (RFC 5626 §4.4.2 keep-alives), in and out.
        public var stunDatagramsReceived = 0
        public var stunDatagramsSent = 0
    }

    struct UDPListener {
        let channel: any DatagramChannel
        let address: SocketAddress
    }

    struct StreamListener {
        let channel: any StreamListenerChannel
        let address: SocketAddress
        let transport: TransportProtocol
    }

    struct ConnectionKey: Hashable {
        let transport: TransportProtocol
        let remote: SocketAddress
        let serverName: String?
    }

    /// The key of a connection to `destination`: a TLS or WSS connection is for the name it verified.
    static func key(_ destination: Destination) -> ConnectionKey {
        ConnectionKey(
            transport: destination.transport, remote: destination.address,
            serverName: destination.transport.isSecure ? destination.serverName : nil)
    }

    @exclusivity(unchecked) var udpListeners: [UDPListener] = []
    /// Who hears the STUN datagrams of the SIP UDP sockets (`addSTUNObserver`).
    var stunObservers: [Int: ([UInt8], SocketAddress) -> Void] = [:]
    var nextSTUNObserver = 0
    var streamListeners: [StreamListener] = []
    var connections: [FlowID: StreamConnection] = [:]
    /// WebSocket client connections waiting for the server's close frame (out of `connections`).
    var closingConnections: [FlowID: StreamConnection] = [:]
    var connectionIndex: [ConnectionKey: FlowID] = [:]
    var nextFlow: UInt64 = 1
    @exclusivity(unchecked) var receiveBuffer = [UInt8](repeating: 0, count: 65_536)
    @exclusivity(unchecked) var routeSources = RouteSourceCache()
    /// Whether the UDP datagram being handled waited in the socket's queue longer than
    /// `configuration.backlogDelay` (by the kernel's receive timestamp): the loop is behind its input, and
    /// the user agent sheds new calls (503) instead of falling further behind. Linux switches receive
    /// timestamps on a moment after the first socket of the system asks for them (deferred work); a datagram
    /// that arrives before then is stamped when it is read, so it never counts as having waited.
    @exclusivity(unchecked) public internal(set) var isReceiveBacklogged = false
    lazy var clientTLS: Result<TLSContext, TransportError> = Result { () throws(TransportError) in
        try TLSContext(configuration: configuration.tls, server: false)
    }
    var serverTLS: TLSContext?
    var idleSweep: TimerHandle?
    /// The host a WebSocket client with no WS listener names in its Via sent-by and Contact: it cannot know
    /// an address it is reachable at, so the server routes back over the flow (RFC 7118 §5.2, §8). A
    /// random label under `.invalid` (RFC 6761); the owner of the layer sets it from its random source.
    public var webSocketClientHost = "switchboard.invalid"
    /// The resource (URL path) WebSocket connections to a server ask for, by `host:port` as the URL names it.
    var webSocketResources: [String: String] = [:]
    /// The latest local address a Via named, with its host as the Via writes it: most requests leave from
    /// the same address, and writing it as text and parsing that back costs more than the rest of the Via.
    @exclusivity(unchecked) var lastViaHost: (address: SocketAddress, host: SIPHost)?

    public convenience init(loop: EventLoop, configuration: TransportConfiguration = TransportConfiguration()) {
        self.init(loop: loop, network: SystemNetwork.shared, configuration: configuration)
    }

    /// A transport layer over `network` (the kernel's sockets, or the testing product's in-memory network)
    /// on `loop`.
    package init(
        loop: any EventLoopProtocol, network: any NetworkStack,
        configuration: TransportConfiguration = TransportConfiguration()
    ) {
        self.loop = loop
        self.network = network
        self.configuration = configuration
    }

    // MARK: Listening

    /// Opens a listener; `port` 0 picks a free port. Returns the bound address.
    /// - Parameters:
    ///   - transport: the transport; WS and WSS listeners answer WebSocket upgrades (RFC 7118 §4).
    ///   - address: where to listen.
    ///   - resource: for WS and WSS, the only path upgrades are accepted on; others get 404.
    @discardableResult
    public func listen(_ transport: TransportProtocol, on address: SocketAddress, resource: String = "/")
        throws(TransportError) -> SocketAddress
    {
        switch transport {
        case .udp:
            let channel = try network.bindDatagram(
                address,
                options: DatagramOptions(receiveBufferBytes: 1 << 20, reusesAddress: true, stampsArrivals: true))
            let bound = channel.localAddress
            udpListeners.append(UDPListener(channel: channel, address: bound))
            try channel.watch(on: loop) { [weak self, unowned channel] in
                self?.readDatagrams(channel, local: bound)
            }
            return bound
        case .tcp, .tls, .ws, .wss:
            if transport.isSecure, serverTLS == nil {
                serverTLS = try TLSContext(configuration: configuration.tls, server: true)
            }
            let channel = try network.listenStream(address)
            let bound = channel.localAddress
            streamListeners.append(StreamListener(channel: channel, address: bound, transport: transport))
            let resource = transport.isWebSocket ? resource : nil
            try channel.watch(on: loop) { [weak self, unowned channel] in
                self?.acceptConnections(channel, transport: transport, local: bound, resource: resource)
            }
            startIdleSweep()
            return bound
        }
    }

    /// The address a listener of `transport` is bound to, for the family of `peer` when several are open.
    public func listeningAddress(_ transport: TransportProtocol, family: SocketAddress.Family? = nil) -> SocketAddress?
    {
        switch transport {
        case .udp: return udpListeners.first { family == nil || $0.address.family == family }?.address
        default:
            return streamListeners.first {
                $0.transport == transport && (family == nil || $0.address.family == family)
            }?.address
        }
    }

    /// Closes the listeners bound to `address` (any transport); connections they accepted stay.
    public func stopListening(at address: SocketAddress) {
        for listener in udpListeners where listener.address == address { listener.channel.close() }
        for listener in streamListeners where listener.address == address { listener.channel.close() }
        udpListeners.removeAll { $0.address == address }
        streamListeners.removeAll { $0.address == address }
    }

    /// Closes every listener and connection.
    public func shutdown() {
        for listener in udpListeners { listener.channel.close() }
        for listener in streamListeners { listener.channel.close() }
        udpListeners.removeAll()
        streamListeners.removeAll()
        for connection in Array(connections.values) { closeConnection(connection, error: nil, notify: false) }
        for connection in Array(closingConnections.values) { finishClosing(connection) }
        if let idleSweep { loop.cancelTimer(idleSweep) }
    }

    // MARK: Local addresses

    /// The local address for Via and Contact toward `destination`, the one rule for both (`TransportForm`
    /// documents it for Contacts):
    /// - with a listener for the transport: the listener's port, with the address the kernel picks for the
    ///   route to the peer when the listener is bound to every address (never a guessed interface);
    /// - TCP or TLS without one: the local address and port of the connection the request leaves on,
    ///   opened now when there is none yet (the kernel binds its port at `connect`). A peer that looks for a
    ///   connection to that address (Kamailio, sofia-sip, pjsip) finds and reuses it, so requests in the
    ///   other direction reach this side over the connection (RFC 5923 §4; RFC 5626 §5.3 routes the same
    ///   way);
    /// - WS or WSS without one: the route's address with port 0 (RFC 7118 §8: the client names a `.invalid`
    ///   host and the server routes back over the connection);
    /// - UDP without one: the route's address with port 0.
    public func localAddress(for destination: Destination) -> SocketAddress? {
        let family = destination.address.family
        let listenerTransport: TransportProtocol = destination.transport
        guard let listener = listeningAddress(listenerTransport, family: family) else {
            if destination.transport == .tcp || destination.transport == .tls,
                let connection = connection(for: destination, opening: true)
            {
                return connection.local
            }
            // No listener for this transport: the route's address, port unknown (0).
            return routeSource(to: destination.address)?.with(port: 0)
        }
        if !listener.isUnspecified { return listener }
        let route = routeSource(to: destination.address) ?? listener
        return route.with(port: listener.port)
    }

    /// The local address the kernel's route to `remote` leaves from (kept a second: `RouteSourceCache`).
    func routeSource(to remote: SocketAddress) -> SocketAddress? {
        routeSources.source(to: remote, now: loop.now) { network.routeSource(to: $0) }
    }

    /// The open connection a request to `destination` goes over (`send`'s choice): the one to the same peer
    /// for the same name, else one accepted from that peer (TCP; TLS only if unnamed). With `opening`, a new
    /// connection when there is none, that the request then takes; `nil` when it cannot be opened.
    func connection(for destination: Destination, opening: Bool) -> StreamConnection? {
        if let id = connectionIndex[Self.key(destination)], let connection = connections[id] { return connection }
        if destination.serverName == nil,
            let id = connectionIndex[
                ConnectionKey(transport: destination.transport, remote: destination.address, serverName: nil)],
            let connection = connections[id]
        {
            return connection
        }
        guard opening else { return nil }
        return try? openConnection(to: destination)
    }

    /// A Via for a request toward `destination` with `branch` and `rport` requested (RFC 3581).
    /// A WebSocket client without a WS listener names `webSocketClientHost` (RFC 7118 §5.2). Over a TCP or
    /// TLS connection this side opens, the Via carries `alias` (RFC 5923 §5): the peer may send its requests
    /// to the sent-by over this connection.
    public func makeVia(for destination: Destination, branch: String) -> Via? {
        guard let local = localAddress(for: destination) else { return nil }
        let host: SIPHost
        if destination.transport.isWebSocket && local.port == 0 {
            guard let named = SIPHost(webSocketClientHost) else { return nil }
            host = named
        } else if let last = lastViaHost, last.address == local {
            host = last.host
        } else {
            guard let parsed = SIPHost(local.host) else { return nil }
            lastViaHost = (local, parsed)
            host = parsed
        }
        let port = local.port == 0 ? nil : local.port
        // Built in one go: each parameter set on a finished Via writes its bytes again.
        var parameters = [Parameter("branch", branch), Parameter("rport")]
        if destination.transport == .tcp || destination.transport == .tls,
            connection(for: destination, opening: false)?.isOutbound ?? true
        {
            parameters.append(Parameter("alias"))
        }
        return Via(
            transport: destination.transport.viaToken, host: host, port: port, parameters: Parameters(parameters))
    }

    /// Makes new WS/WSS connections to `host:port` ask for `resource` in their upgrade (a `ws://` URL's path,
    /// RFC 6455 §3); others ask for `/`.
    /// - Parameters:
    ///   - resource: the path, starting with `/`.
    ///   - host: the URL's host: a domain (matched against the destination's server name) or an address.
    ///   - port: the URL's port.
    public func setWebSocketResource(_ resource: String, host: String, port: UInt16) {
        webSocketResources[Self.resourceKey(host: host, port: port)] = resource
    }

    static func resourceKey(host: String, port: UInt16) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return "\(host) \(port)"
    }

    func webSocketResource(for destination: Destination) -> String {
        let host = destination.serverName ?? destination.address.host
        return webSocketResources[Self.resourceKey(host: host, port: destination.address.port)] ?? "/"
    }

    func newFlowID() -> FlowID {
        defer { nextFlow &+= 1 }
        return FlowID(raw: nextFlow)
    }
}
