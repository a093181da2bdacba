import SIPTransport

/// One end of a virtual stream connection: bytes arrive in order after the link's latency; a close
/// reaches the peer as end of stream after the bytes sent before it.
final class VirtualStreamChannel: StreamChannel {
    enum State {
        case connecting
        case connected
        case failed(TransportError)
        case closed
    }

    let local: SocketAddress
    let remote: SocketAddress
    /// For a connection opened through NATs: the client end's route out (the far end sees `outside`).
    private var route: StreamRoute?
    /// For the server end of a connection opened through NATs: the client's own address and the NATs that
    /// forward to it (`remote` is then the outermost NAT's public address).
    private var insideRemote: (address: SocketAddress, nats: [VirtualNAT])?
    private unowned let network: VirtualNetwork
    private(set) var state = State.connecting
    private weak var peer: VirtualStreamChannel?
    private var inbound: [UInt8] = []
    private var inboundOffset = 0
    private var peerFinished = false
    private var handler: ((StreamReadiness) -> Void)?
    private var wantsWrites = false
    /// When the last segment toward the peer arrives: later ones never overtake it.
    private var lastArrival: Duration = .zero
    /// Bytes waiting unread beyond this make the writer wait, as a full window would.
    static let windowBytes = 4 << 20

    init(network: VirtualNetwork, local: SocketAddress, remote: SocketAddress) {
        self.network = network
        self.local = local
        self.remote = remote
    }

    var localAddress: SocketAddress? { local }

    /// For the server end of a connection opened through NATs, the client's own address.
    var insideRemoteAddress: SocketAddress? { insideRemote?.address }

    private var isConnected: Bool {
        if case .connected = state { return true }
        return false
    }

    // MARK: Connecting

    /// The handshake: the listener at `remote` takes the connection after one trip, and the client learns
    /// it is connected (or refused) after the trip back. NATs on the way translate it; one at `remote` refuses
    /// it (no port forwarding).
    func startConnecting() {
        let there = network.conditions(from: local, to: remote).latency
        let back = network.conditions(from: remote, to: local).latency
        route = network.routeStreamOut(from: local, to: remote)
        let isRefused = route == nil
        if route?.isTranslated == false { route = nil }
        network.loop.scheduleTimer(after: there) { [weak self] in
            guard let self, case .connecting = self.state else { return }
            guard !isRefused, let listener = self.network.listeners[self.remote], !listener.isClosed else {
                self.network.loop.scheduleTimer(after: back) { [weak self] in
                    self?.fail(TransportError.system("connect \(self?.remote.description ?? "")", errno: 111))
                }
                return
            }
            let server = VirtualStreamChannel(
                network: self.network, local: self.remote, remote: self.route?.outside ?? self.local)
            if let route = self.route { server.insideRemote = (self.local, route.hops.map(\.nat)) }
            server.state = .connected
            server.peer = self
            self.peer = server
            self.network.streams[ObjectIdentifier(server)] = server
            guard listener.offer(server) else {
                server.close()
                self.fail(TransportError.system("connect \(self.remote)", errno: 111))
                return
            }
            self.network.loop.scheduleTimer(after: back) { [weak self] in
                guard let self, case .connecting = self.state else { return }
                self.state = .connected
                self.notify(.writable)
            }
        }
    }

    // MARK: StreamChannel

    func watch(on loop: any EventLoopProtocol, writes: Bool, _ handler: @escaping (StreamReadiness) -> Void)
        throws(TransportError)
    {
        if case .closed = state { throw TransportError.system("watch", errno: 9) }
        self.handler = handler
        wantsWrites = writes
        if inboundOffset < inbound.count || peerFinished { offerAgain(.readable) }
    }

    func setWriteInterest(_ wantsWrites: Bool) {
        self.wantsWrites = wantsWrites
        if wantsWrites, isConnected { offerAgain(.writable) }
    }

    func connectError() -> TransportError? {
        switch state {
        case .failed(let error): return error
        case .closed: return TransportError(.connectionClosed, "closed")
        case .connecting, .connected: return nil
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> StreamRead {
        if case .failed(let error) = state { return .failed(error) }
        let available = inbound.count - inboundOffset
        guard available > 0 else { return peerFinished ? .end : .wouldBlock }
        let count = min(available, buffer.count)
        inbound.withUnsafeBytes { raw in
            if let base = raw.baseAddress {
                buffer.baseAddress?.copyMemory(from: base + inboundOffset, byteCount: count)
            }
        }
        inboundOffset += count
        if inboundOffset == inbound.count {
            inbound.removeAll(keepingCapacity: true)
            inboundOffset = 0
        }
        // Room in the window again: a writer that waited may go on.
        if let peer, peer.wantsWrites { peer.offerAgain(.writable) }
        return .bytes(count)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(TransportError) -> Int {
        guard isConnected, let peer else { throw TransportError(.connectionClosed, "send: not connected") }
        let room = Self.windowBytes - peer.unreadBytes
        guard room > 0 else { return 0 }
        let segment = Array(bytes.prefix(room))
        recordSegment(segment)
        deliverInOrder { [weak peer] in peer?.arrive(segment) }
        return segment.count
    }

    func close() {
        if case .closed = state { return }
        let wasConnected = isConnected
        state = .closed
        handler = nil
        network.streams[ObjectIdentifier(self)] = nil
        releaseRoute()
        if wasConnected, let peer { deliverInOrder { [weak peer] in peer?.finish() } }
    }

    // MARK: Arrivals

    private var unreadBytes: Int { inbound.count - inboundOffset }

    /// Records a segment with the addresses on the wire, and counts it at the NATs it crosses.
    private func recordSegment(_ segment: [UInt8]) {
        if let route {
            for hop in route.hops { hop.nat.countStreamOut() }
            network.record(
                .stream, from: route.outside, to: remote, bytes: segment, dropped: false, insideSource: local)
        } else if let insideRemote {
            for nat in insideRemote.nats { nat.countStreamIn() }
            network.record(
                .stream, from: local, to: remote, bytes: segment, dropped: false,
                insideDestination: insideRemote.address)
        } else {
            network.record(.stream, from: local, to: remote, bytes: segment, dropped: false)
        }
    }

    /// Gives back the NAT mappings of a connection opened through NATs.
    private func releaseRoute() {
        route?.release()
        route = nil
    }

    private func deliverInOrder(_ arrival: @escaping () -> Void) {
        let now = network.loop.elapsedTime
        let toward = insideRemote?.address ?? remote
        let arrives = max(now + network.conditions(from: local, to: toward).latency, lastArrival)
        lastArrival = arrives
        network.loop.scheduleTimer(after: arrives - now, arrival)
    }

    private func arrive(_ segment: [UInt8]) {
        guard isConnected else { return }
        inbound.append(contentsOf: segment)
        notify(.readable)
    }

    private func finish() {
        guard isConnected else { return }
        peerFinished = true
        notify([.readable, .hangUp])
    }

    /// The connection broke (a reset, a refused connect): both directions fail.
    func fail(_ error: TransportError) {
        switch state {
        case .closed, .failed: return
        case .connecting, .connected: break
        }
        state = .failed(error)
        releaseRoute()
        notify(.hangUp)
    }

    private func notify(_ ready: StreamReadiness) {
        guard let handler else { return }
        if case .closed = state { return }
        handler(ready)
        // Level-triggered, as epoll is: bytes the handler left unread are offered again.
        if isConnected, self.handler != nil, unreadBytes > 0 { offerAgain(.readable) }
    }

    private func offerAgain(_ ready: StreamReadiness) {
        network.loop.post { [weak self] in self?.notify(ready) }
    }
}
