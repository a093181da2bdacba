import CSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A bound, non-blocking UDP socket for media (RTP/RTCP), watched by an `EventLoop`.
///
/// Unlike the SIP listeners it does not set `SO_REUSEADDR`: on Linux that would let two calls bind the same
/// RTP port. Owned by one loop: `receive`, `send` and `close` run on it.
public final class DatagramSocket {
    /// The bound local address (the port the kernel or the caller chose).
    public let localAddress: SocketAddress
    private var descriptor: Int32
    private weak var loop: EventLoop?

    /// Binds a socket to `address` (port 0: the kernel picks one).
    /// - Throws: `TransportError.system` naming `bind` and the address (the port is taken, say).
    public init(binding address: SocketAddress) throws(TransportError) {
        let fd = try Socket.make(address.family, Int32(SOCK_DGRAM.rawValue))
        Socket.setOption(fd, SOL_SOCKET, SO_RCVBUF, 1 << 18)
        do {
            try Socket.bind(fd, address)
        } catch {
            closeDescriptor(fd)
            throw error
        }
        descriptor = fd
        localAddress = Socket.localAddress(fd) ?? address
    }

    /// Binds the first free pair of ports (`p` even, `p + 1`) in `range` on `host`, as RTP and RTCP
    /// without rtcp-mux expect (RFC 3550 §11). The search starts at `start` (wrapped into the range), so
    /// callers can spread calls over the range.
    /// - Returns: the RTP socket and the RTCP socket.
    /// - Throws: `TransportError.system` when no pair in the range is free.
    public static func bindPair(host: String, ports range: ClosedRange<UInt16>, start: Int) throws(TransportError)
        -> (rtp: DatagramSocket, rtcp: DatagramSocket)
    {
        let first = Int(range.lowerBound + (range.lowerBound & 1))
        let pairs = max(0, (Int(range.upperBound) - first + 1) / 2)
        guard pairs > 0 else { throw .system("bind: empty RTP port range \(range)", errno: EINVAL) }
        for attempt in 0..<pairs {
            let port = first + 2 * ((start + attempt) % pairs)
            guard let rtpAddress = SocketAddress(ip: host, port: UInt16(port)),
                let rtcpAddress = SocketAddress(ip: host, port: UInt16(port + 1))
            else { throw .system("bind: bad media address \(host)", errno: EINVAL) }
            guard let rtp = try? DatagramSocket(binding: rtpAddress) else { continue }
            guard let rtcp = try? DatagramSocket(binding: rtcpAddress) else {
                rtp.close()
                continue
            }
            return (rtp, rtcp)
        }
        throw .system("bind: no free RTP port pair in \(range) on \(host)", errno: EADDRINUSE)
    }

    deinit {
        if descriptor >= 0 { closeDescriptor(descriptor) }
    }

    /// Starts delivering readability to `handler` on `loop` (call on the loop). A socket already watched by
    /// `loop` (one being reused) just gets the new handler.
    public func watch(on loop: EventLoop, _ handler: @escaping () -> Void) throws(TransportError) {
        guard descriptor >= 0 else { throw .system("watch", errno: EBADF) }
        if self.loop === loop, loop.replaceHandler(fd: descriptor, handler: { _ in handler() }) { return }
        self.loop = loop
        try loop.register(fd: descriptor, events: sb_EPOLLIN) { _ in handler() }
    }

    /// Reads and drops every datagram waiting (at most `limit`), using `buffer` as scratch space.
    public func discardPending(into buffer: inout [UInt8], limit: Int = 64) {
        for _ in 0..<limit {
            guard receive(into: &buffer) != nil else { return }
        }
    }

    /// Reads one datagram into `buffer` (its capacity is the limit; longer datagrams are truncated).
    /// - Returns: the byte count and the sender, or `nil` when nothing is waiting.
    public func receive(into buffer: inout [UInt8]) -> (count: Int, from: SocketAddress)? {
        guard descriptor >= 0 else { return nil }
        return Socket.receiveDatagram(descriptor, into: &buffer)
    }

    /// Reads one datagram into `buffer` (e.g. a temporary allocation on the stack, so that an idle socket
    /// holds no buffer of its own); longer datagrams are truncated.
    /// - Returns: the byte count and the sender, or `nil` when nothing is waiting.
    public func receive(into buffer: UnsafeMutableRawBufferPointer) -> (count: Int, from: SocketAddress)? {
        guard descriptor >= 0 else { return nil }
        return Socket.receiveDatagram(descriptor, into: buffer)
    }

    /// Sends one datagram; a full socket buffer or an unreachable peer drops it (media tolerates loss).
    /// - Returns: `false` when the kernel refused it.
    @discardableResult
    public func send(_ bytes: [UInt8], to address: SocketAddress) -> Bool {
        guard descriptor >= 0 else { return false }
        return (try? Socket.sendDatagram(descriptor, bytes, to: address)) != nil
    }

    /// Stops watching and closes the socket; later calls do nothing.
    public func close() {
        guard descriptor >= 0 else { return }
        loop?.deregister(fd: descriptor)
        closeDescriptor(descriptor)
        descriptor = -1
    }
}
