import CSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Thin, non-blocking socket calls. Every descriptor is created non-blocking and close-on-exec.
enum Socket {
    static func make(_ family: SocketAddress.Family, _ type: Int32) throws(TransportError) -> Int32 {
        let domain = family == .ipv4 ? AF_INET : AF_INET6
        let fd = socket(domain, type | sb_SOCK_NONBLOCK | sb_SOCK_CLOEXEC, 0)
        guard fd >= 0 else { throw .system("socket", errno: sb_errno()) }
        if family == .ipv6 { setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 1) }
        return fd
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
        var v = value
        _ = setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
    }

    static func bind(_ fd: Int32, _ address: SocketAddress) throws(TransportError) {
        let result = address.withSockAddr { Glibc.bind(fd, $0, $1) }
        guard result == 0 else { throw .system("bind \(address)", errno: sb_errno()) }
    }

    /// A bound UDP socket.
    static func udp(bind address: SocketAddress, options: DatagramOptions) throws(TransportError) -> Int32 {
        let fd = try make(address.family, Int32(SOCK_DGRAM.rawValue))
        if options.reusesAddress { setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1) }
        setOption(fd, SOL_SOCKET, SO_RCVBUF, options.receiveBufferBytes)
        do {
            try bind(fd, address)
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// A listening TCP socket.
    static func tcpListen(bind address: SocketAddress, backlog: Int32 = 256) throws(TransportError) -> Int32 {
        let fd = try make(address.family, Int32(SOCK_STREAM.rawValue))
        setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        do {
            try bind(fd, address)
        } catch {
            close(fd)
            throw error
        }
        guard listen(fd, backlog) == 0 else {
            let error = TransportError.system("listen", errno: sb_errno())
            close(fd)
            throw error
        }
        return fd
    }

    /// Starts a non-blocking TCP connect; the caller waits for writability and checks `pendingError`.
    static func tcpConnect(to address: SocketAddress) throws(TransportError) -> Int32 {
        let fd = try make(address.family, Int32(SOCK_STREAM.rawValue))
        setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        let result = address.withSockAddr { connect(fd, $0, $1) }
        if result != 0, sb_errno() != EINPROGRESS {
            let error = TransportError.system("connect \(address)", errno: sb_errno())
            close(fd)
            throw error
        }
        return fd
    }

    /// The error of a finished non-blocking connect, if any (SO_ERROR).
    static func pendingError(_ fd: Int32) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length)
        return value
    }

    static func localAddress(_ fd: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return result == 0 ? SocketAddress(storage) : nil
    }

    static func peerAddress(_ fd: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        return result == 0 ? SocketAddress(storage) : nil
    }

    /// The local address the kernel picks for the route to `remote` (a connected UDP socket's name).
    static func routeSource(to remote: SocketAddress) -> SocketAddress? {
        guard let fd = try? make(remote.family, Int32(SOCK_DGRAM.rawValue)) else { return nil }
        defer { close(fd) }
        let connected = remote.withSockAddr { connect(fd, $0, $1) }
        guard connected == 0 else { return nil }
        return localAddress(fd)
    }

    /// Receives one datagram into `buffer`; `nil` when there is nothing to read.
    static func receiveDatagram(_ fd: Int32, into buffer: inout [UInt8]) -> (count: Int, from: SocketAddress)? {
        buffer.withUnsafeMutableBytes { receiveDatagram(fd, into: $0) }
    }

    static func receiveDatagram(_ fd: Int32, into raw: UnsafeMutableRawBufferPointer) -> (
        count: Int, from: SocketAddress
    )? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let count = withUnsafeMutablePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                recvfrom(fd, raw.baseAddress, raw.count, sb_MSG_DONTWAIT, $0, &length)
            }
        }
        guard count >= 0, let from = SocketAddress(storage) else { return nil }
        return (count, from)
    }

    /// `receiveDatagram` that also returns how long the datagram waited in the socket's queue (zero when
    /// the socket has no receive timestamps).
    static func receiveTimestampedDatagram(_ fd: Int32, into raw: UnsafeMutableRawBufferPointer)
        -> ReceivedDatagram?
    {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        var received: Int64 = 0
        let count = sb_recv_timestamped(fd, raw.baseAddress, raw.count, &storage, &length, &received)
        guard count >= 0, let from = SocketAddress(storage) else { return nil }
        let queued = received > 0 ? max(0, sb_realtime_ns() - received) : 0
        return ReceivedDatagram(count: count, source: from, queuedNanoseconds: queued)
    }

    static func sendDatagram(_ fd: Int32, _ raw: UnsafeRawBufferPointer, to address: SocketAddress)
        throws(TransportError)
    {
        let sent = address.withSockAddr { sendto(fd, raw.baseAddress, raw.count, sb_MSG_NOSIGNAL, $0, $1) }
        guard sent >= 0 else { throw .system("sendto \(address)", errno: sb_errno()) }
    }
}

/// Closes a descriptor (a free function, so methods named `close` do not shadow it).
func closeDescriptor(_ fd: Int32) {
    _ = Glibc.close(fd)
}
