import CSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The kernel's sockets: non-blocking descriptors watched by an `EventLoop`'s epoll.
package final class SystemNetwork: NetworkStack {
    package static let shared = SystemNetwork()

    package init() {}

    package func bindDatagram(_ address: SocketAddress, options: DatagramOptions) throws(TransportError)
        -> any DatagramChannel
    {
        let fd = try Socket.udp(bind: address, options: options)
        if options.stampsArrivals { _ = sb_enable_receive_timestamps(fd) }
        // Bound to a given port, the socket is where it was asked to be: only an ephemeral bind (port 0) needs
        // the kernel to say which port it got (a system call less per media socket).
        let local = address.port == 0 ? Socket.localAddress(fd) ?? address : address
        return SystemDatagram(fd: fd, local: local, timestamps: options.stampsArrivals)
    }

    package func listenStream(_ address: SocketAddress) throws(TransportError) -> any StreamListenerChannel {
        let fd = try Socket.tcpListen(bind: address)
        return SystemListener(fd: fd, local: Socket.localAddress(fd) ?? address)
    }

    package func connectStream(to address: SocketAddress) throws(TransportError) -> any StreamChannel {
        SystemStream(fd: try Socket.tcpConnect(to: address), remote: address)
    }

    package func routeSource(to remote: SocketAddress) -> SocketAddress? { Socket.routeSource(to: remote) }

    package var descriptorLimit: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {
            return Int.max
        }
        return Int(clamping: limit.rlim_cur)
    }
}

/// The epoll loop a system descriptor needs; a virtual loop cannot watch one.
private func systemLoop(_ loop: any EventLoopProtocol) throws(TransportError) -> EventLoop {
    guard let loop = loop as? EventLoop else {
        throw TransportError(.system, "a system socket needs the system event loop")
    }
    return loop
}

/// One watched descriptor: registration with the loop, and the close that ends it.
private struct Watch {
    var fd: Int32
    weak var loop: EventLoop?

    mutating func register(on loop: EventLoop, events: UInt32, _ handler: @escaping (UInt32) -> Void)
        throws(TransportError)
    {
        guard fd >= 0 else { throw .system("watch", errno: EBADF) }
        if self.loop === loop, loop.replaceHandler(fd: fd, handler: handler) { return }
        try loop.register(fd: fd, events: events, handler: handler)
        self.loop = loop
    }

    mutating func close() {
        guard fd >= 0 else { return }
        loop?.deregister(fd: fd)
        closeDescriptor(fd)
        fd = -1
    }
}

private final class SystemDatagram: DatagramChannel {
    let localAddress: SocketAddress
    /// No run-time exclusivity checks: used on the loop thread only (and in `deinit`), and a `Watch`'s
    /// methods reach only the loop's handler table, never this channel, so no two accesses can overlap.
    @exclusivity(unchecked) private var watch: Watch
    private let timestamps: Bool

    init(fd: Int32, local: SocketAddress, timestamps: Bool) {
        self.watch = Watch(fd: fd)
        self.localAddress = local
        self.timestamps = timestamps
    }

    deinit { watch.close() }

    func watch(on loop: any EventLoopProtocol, _ handler: @escaping () -> Void) throws(TransportError) {
        try watch.register(on: try systemLoop(loop), events: sb_EPOLLIN) { _ in handler() }
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer) -> ReceivedDatagram? {
        guard watch.fd >= 0 else { return nil }
        if timestamps { return Socket.receiveTimestampedDatagram(watch.fd, into: buffer) }
        return Socket.receiveDatagram(watch.fd, into: buffer).map { ReceivedDatagram(count: $0.count, source: $0.from) }
    }

    func send(_ bytes: UnsafeRawBufferPointer, to address: SocketAddress) throws(TransportError) {
        guard watch.fd >= 0 else { throw .system("sendto", errno: EBADF) }
        try Socket.sendDatagram(watch.fd, bytes, to: address)
    }

    func close() { watch.close() }
}

private final class SystemListener: StreamListenerChannel {
    let localAddress: SocketAddress
    private var watch: Watch

    init(fd: Int32, local: SocketAddress) {
        self.watch = Watch(fd: fd)
        self.localAddress = local
    }

    deinit { watch.close() }

    func watch(on loop: any EventLoopProtocol, _ handler: @escaping () -> Void) throws(TransportError) {
        try watch.register(on: try systemLoop(loop), events: sb_EPOLLIN) { _ in handler() }
    }

    func accept() -> (channel: any StreamChannel, remote: SocketAddress)? {
        while watch.fd >= 0 {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &storage) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sb_accept_nonblocking(watch.fd, $0, &length) }
            }
            guard client >= 0 else { return nil }
            guard let remote = SocketAddress(storage) else {
                closeDescriptor(client)
                continue
            }
            Socket.setOption(client, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
            return (SystemStream(fd: client, remote: remote), remote)
        }
        return nil
    }

    func close() { watch.close() }
}

private final class SystemStream: StreamChannel {
    private var watch: Watch
    private let remote: SocketAddress

    init(fd: Int32, remote: SocketAddress) {
        self.watch = Watch(fd: fd)
        self.remote = remote
    }

    deinit { watch.close() }

    var localAddress: SocketAddress? { watch.fd >= 0 ? Socket.localAddress(watch.fd) : nil }

    func watch(on loop: any EventLoopProtocol, writes: Bool, _ handler: @escaping (StreamReadiness) -> Void)
        throws(TransportError)
    {
        try watch.register(on: try systemLoop(loop), events: Self.events(writes: writes)) { events in
            var ready: StreamReadiness = []
            if events & sb_EPOLLIN != 0 { ready.insert(.readable) }
            if events & sb_EPOLLOUT != 0 { ready.insert(.writable) }
            if events & (sb_EPOLLRDHUP | sb_EPOLLHUP | sb_EPOLLERR) != 0 { ready.insert(.hangUp) }
            handler(ready)
        }
    }

    private static func events(writes: Bool) -> UInt32 {
        sb_EPOLLIN | sb_EPOLLRDHUP | (writes ? sb_EPOLLOUT : 0)
    }

    func setWriteInterest(_ wantsWrites: Bool) {
        guard watch.fd >= 0 else { return }
        watch.loop?.modify(fd: watch.fd, events: Self.events(writes: wantsWrites))
    }

    func connectError() -> TransportError? {
        let error = Socket.pendingError(watch.fd)
        guard error != 0 else { return nil }
        return .system("connect \(remote)", errno: error)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> StreamRead {
        let count = recv(watch.fd, buffer.baseAddress, buffer.count, 0)
        if count > 0 { return .bytes(count) }
        if count == 0 { return .end }
        let error = sb_errno()
        if error == EAGAIN || error == EWOULDBLOCK { return .wouldBlock }
        return .failed(.system("recv", errno: error))
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(TransportError) -> Int {
        let written = send(watch.fd, bytes.baseAddress, bytes.count, sb_MSG_NOSIGNAL)
        guard written < 0 else { return written }
        let error = sb_errno()
        if error == EAGAIN || error == EWOULDBLOCK { return 0 }
        throw .system("send", errno: error)
    }

    func close() { watch.close() }
}
