#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A bound, non-blocking UDP socket for media (RTP/RTCP), watched by an event loop: the kernel's, or the
/// testing product's in-memory network.
///
/// Unlike the SIP listeners it does not set `SO_REUSEADDR`: on Linux that would let two calls bind the same
/// RTP port. Owned by one loop: `receive`, `send` and `close` run on it.
public final class DatagramSocket {
    /// The bound local address (the port the kernel or the caller chose).
    public let localAddress: SocketAddress
    private let channel: any DatagramChannel

    /// Binds a socket to `address` (port 0: the kernel picks one).
    /// - Throws: `TransportError.system` naming `bind` and the address (the port is taken, say).
    public convenience init(binding address: SocketAddress) throws(TransportError) {
        try self.init(binding: address, on: SystemNetwork.shared)
    }

    /// Binds a socket to `address` on `network`.
    package init(binding address: SocketAddress, on network: any NetworkStack) throws(TransportError) {
        channel = try network.bindDatagram(address, options: DatagramOptions(receiveBufferBytes: 1 << 18))
        localAddress = channel.localAddress
    }

    /// Binds the first free pair of ports (`p` even, `p + 1`) in `range` on `host`, as RTP and RTCP
    /// without rtcp-mux expect (RFC 3550 §11). The search starts at `start` (wrapped into the range), so
    /// callers can spread calls over the range.
    /// - Returns: the RTP socket and the RTCP socket.
    /// - Throws: `TransportError.system` when no pair in the range is free, or at once when the process
    ///   has no descriptor left (EMFILE and the like: no other port would do better).
    public static func bindPair(host: String, ports range: ClosedRange<UInt16>, start: Int) throws(TransportError)
        -> (rtp: DatagramSocket, rtcp: DatagramSocket)
    {
        try bindPair(host: host, ports: range, start: start, on: SystemNetwork.shared)
    }

    /// The RTP/RTCP pairs `bindPair` can take in `range`: an even RTP port with the next one for RTCP.
    package static func portPairs(in range: ClosedRange<UInt16>) -> Int {
        let first = Int(range.lowerBound) + Int(range.lowerBound & 1)
        return max(0, (Int(range.upperBound) - first + 1) / 2)
    }

    /// `bindPair(host:ports:start:)` on `network`.
    package static func bindPair(
        host: String, ports range: ClosedRange<UInt16>, start: Int, on network: any NetworkStack
    ) throws(TransportError) -> (rtp: DatagramSocket, rtcp: DatagramSocket) {
        let first = Int(range.lowerBound) + Int(range.lowerBound & 1)
        let pairs = portPairs(in: range)
        guard pairs > 0 else { throw .system("bind: empty RTP port range \(range)", errno: EINVAL) }
        for attempt in 0..<pairs {
            let port = first + 2 * ((start + attempt) % pairs)
            guard let rtpAddress = SocketAddress(ip: host, port: UInt16(port)),
                let rtcpAddress = SocketAddress(ip: host, port: UInt16(port + 1))
            else { throw .system("bind: bad media address \(host)", errno: EINVAL) }
            let rtp: DatagramSocket
            do throws(TransportError) {
                rtp = try DatagramSocket(binding: rtpAddress, on: network)
            } catch {
                if error.isResourceExhaustion { throw error }
                continue
            }
            do throws(TransportError) {
                return (rtp, try DatagramSocket(binding: rtcpAddress, on: network))
            } catch {
                rtp.close()
                if error.isResourceExhaustion { throw error }
            }
        }
        throw .system("bind: no free RTP port pair in \(range) on \(host)", errno: EADDRINUSE)
    }

    deinit { channel.close() }

    /// Calls `handler` on `loop` whenever datagrams are waiting (loop thread only). Watching again on the same
    /// loop replaces the handler.
    public func watch(on loop: any EventLoopProtocol, _ handler: @escaping () -> Void) throws(TransportError) {
        try channel.watch(on: loop, handler)
    }

    /// Reads and drops up to `limit` datagrams that are waiting (what arrived before anyone listened).
    public func discardPending(into buffer: inout [UInt8], limit: Int = 64) {
        buffer.withUnsafeMutableBytes { discardPending(into: $0, limit: limit) }
    }

    /// `discardPending(into:limit:)` reading into memory the caller lends.
    public func discardPending(into buffer: UnsafeMutableRawBufferPointer, limit: Int = 64) {
        for _ in 0..<limit {
            guard receive(into: buffer) != nil else { return }
        }
    }

    /// Reads one datagram into `buffer` (truncated to its size). Returns nil when none is waiting.
    public func receive(into buffer: inout [UInt8]) -> (count: Int, from: SocketAddress)? {
        buffer.withUnsafeMutableBytes { receive(into: $0) }
    }

    /// Reads one datagram into `buffer` (truncated to its size). Returns nil when none is waiting.
    public func receive(into buffer: UnsafeMutableRawBufferPointer) -> (count: Int, from: SocketAddress)? {
        channel.receive(into: buffer).map { ($0.count, $0.source) }
    }

    /// Sends `bytes` to `address`; false when the kernel refused it (it is dropped, as UDP would).
    @discardableResult
    public func send(_ bytes: [UInt8], to address: SocketAddress) -> Bool {
        bytes.withUnsafeBytes { (try? channel.send($0, to: address)) != nil }
    }

    /// Stops watching and closes the socket; later calls do nothing.
    public func close() { channel.close() }
}
