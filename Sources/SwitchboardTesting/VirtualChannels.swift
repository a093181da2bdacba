import SIPTransport

/// A bound virtual UDP socket: a bounded queue of arrived datagrams.
final class VirtualDatagramChannel: DatagramChannel {
    let localAddress: SocketAddress
    /// Weak: a socket may outlive its network (a `DatagramSocket` closes its channel in `deinit`, which can run
    /// after the world is gone).
    private weak var network: VirtualNetwork?
    private var queue: [(bytes: [UInt8], source: SocketAddress, arrived: Duration)] = []
    private var head = 0
    private var handler: (() -> Void)?
    private var isClosed = false
    /// Arrivals beyond this many waiting are dropped, as a full receive buffer drops them.
    static let queueLimit = 1_024

    init(network: VirtualNetwork, local: SocketAddress) {
        self.network = network
        self.localAddress = local
    }

    func watch(on loop: any EventLoopProtocol, _ handler: @escaping () -> Void) throws(TransportError) {
        guard !isClosed else { throw TransportError.system("watch", errno: 9) }
        self.handler = handler
        if head < queue.count { network?.loop.post { [weak self] in self?.notify() } }
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer) -> ReceivedDatagram? {
        guard !isClosed, head < queue.count else { return nil }
        let (bytes, source, arrived) = queue[head]
        head += 1
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        }
        let count = min(bytes.count, buffer.count)
        bytes.withUnsafeBytes { raw in
            if count > 0, let base = raw.baseAddress { buffer.baseAddress?.copyMemory(from: base, byteCount: count) }
        }
        let queued = network.map { $0.loop.elapsedTime - arrived } ?? .zero
        return ReceivedDatagram(count: count, source: source, queuedNanoseconds: Self.nanoseconds(queued))
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds &* 1_000_000_000 &+ duration.components.attoseconds / 1_000_000_000
    }

    func send(_ bytes: UnsafeRawBufferPointer, to address: SocketAddress) throws(TransportError) {
        guard !isClosed, let network else { throw TransportError.system("sendto", errno: 9) }
        network.sendDatagram(Array(bytes), from: localAddress, to: address)
    }

    func arrive(_ bytes: [UInt8], from source: SocketAddress) {
        guard !isClosed, let network, queue.count - head < Self.queueLimit else { return }
        queue.append((bytes, source, network.loop.elapsedTime))
        notify()
    }

    func notify() {
        guard let handler, let network, !isClosed, head < queue.count, !network.isStalled(localAddress.host) else {
            return
        }
        handler()
        // Level-triggered, as epoll is: what the handler left waiting is offered again.
        if head < queue.count { network.loop.post { [weak self] in self?.notify() } }
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        handler = nil
        queue.removeAll()
        if let network, network.datagramEndpoints[localAddress] === self {
            network.datagramEndpoints[localAddress] = nil
        }
    }
}

extension VirtualNetwork {
    /// Sends one datagram: through the NATs and drop rules on the sender's side now, over the link, and through
    /// those on the receiver's side when it arrives.
    func sendDatagram(_ bytes: [UInt8], from sender: SocketAddress, to destination: SocketAddress) {
        let link = conditions(from: sender, to: destination)
        guard let source = routeDatagramOut(from: sender, to: destination) else {
            record(.datagram, from: sender, to: destination, bytes: bytes, dropped: true)
            return
        }
        let inside = source == sender ? nil : sender
        let ruled = datagramDropRule?(DatagramView(source: sender, destination: destination, bytes: bytes)) ?? false
        let dropped = ruled || (link.loss > 0 && Double.random(in: 0..<1, using: &random) < link.loss)
        let sequence = record(
            .datagram, from: source, to: destination, bytes: bytes, dropped: dropped, insideSource: inside)
        guard !dropped else { return }
        let copies = link.duplication > 0 && Double.random(in: 0..<1, using: &random) < link.duplication ? 2 : 1
        for _ in 0..<copies {
            var delay = link.latency
            if link.jitter > .zero { delay += link.jitter * Double.random(in: 0..<1, using: &random) }
            loop.scheduleTimer(after: delay) { [weak self] in
                self?.arriveDatagram(bytes, from: source, to: destination, record: sequence)
            }
        }
    }

    private func arriveDatagram(
        _ bytes: [UInt8], from source: SocketAddress, to destination: SocketAddress, record: Int
    ) {
        guard let target = routeDatagramIn(from: source, to: destination) else {
            updateRecord(record) { $0.isDropped = true }
            return
        }
        if target != destination { updateRecord(record) { $0.insideDestination = target } }
        datagramEndpoints[target]?.arrive(bytes, from: source)
    }
}

/// A listening virtual stream socket: connections wait to be accepted.
final class VirtualListenerChannel: StreamListenerChannel {
    let localAddress: SocketAddress
    private unowned let network: VirtualNetwork
    private var pending: [VirtualStreamChannel] = []
    private var handler: (() -> Void)?
    private(set) var isClosed = false
    /// Connections beyond this many waiting are refused, as a full backlog refuses them.
    static let backlog = 256

    init(network: VirtualNetwork, local: SocketAddress) {
        self.network = network
        self.localAddress = local
    }

    func watch(on loop: any EventLoopProtocol, _ handler: @escaping () -> Void) throws(TransportError) {
        guard !isClosed else { throw TransportError.system("watch", errno: 9) }
        self.handler = handler
    }

    /// Queues the server end of a new connection; false when the backlog is full.
    func offer(_ stream: VirtualStreamChannel) -> Bool {
        guard !isClosed, pending.count < Self.backlog else { return false }
        pending.append(stream)
        handler?()
        return true
    }

    func accept() -> (channel: any StreamChannel, remote: SocketAddress)? {
        guard !pending.isEmpty else { return nil }
        let stream = pending.removeFirst()
        return (stream, stream.remote)
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        handler = nil
        for stream in pending { stream.close() }
        pending.removeAll()
        if network.listeners[localAddress] === self { network.listeners[localAddress] = nil }
    }
}
