/// The sockets under the transport layer and the media streams, as a seam: the system's (file descriptors
/// watched by an `EventLoop`) or the testing product's in-memory network. Everything above it (framing,
/// Via handling, connection reuse, TLS over memory BIOs, keep-alives) is the same code over either.
///
/// Calls are made on the loop the channel is watched by; handlers run there.
package protocol NetworkStack: AnyObject, Sendable {
    /// A bound datagram socket; port 0 picks a free port.
    func bindDatagram(_ address: SocketAddress, options: DatagramOptions) throws(TransportError)
        -> any DatagramChannel

    /// A listening stream socket; port 0 picks a free port.
    func listenStream(_ address: SocketAddress) throws(TransportError) -> any StreamListenerChannel

    /// A stream socket connecting to `address`; it reports `.writable` (or `.failed`) once connected.
    func connectStream(to address: SocketAddress) throws(TransportError) -> any StreamChannel

    /// The local address the route to `remote` leaves from (never a guessed interface).
    func routeSource(to remote: SocketAddress) -> SocketAddress?

    /// How many descriptors the process may hold open at once (RLIMIT_NOFILE's soft limit); `Int.max`
    /// when the stack has no such limit.
    var descriptorLimit: Int { get }
}

extension NetworkStack {
    package var descriptorLimit: Int { Int.max }
}

/// How a datagram socket is set up.
package struct DatagramOptions: Sendable {
    /// The kernel's receive queue (SO_RCVBUF).
    package var receiveBufferBytes: Int32
    /// Lets a listener rebind a port still in TIME_WAIT (SO_REUSEADDR); media sockets leave it off, so
    /// that a port in use fails to bind and the pair search moves on.
    package var reusesAddress: Bool
    /// Asks the kernel to stamp arrivals, so a reader can tell how long a datagram queued.
    package var stampsArrivals: Bool

    package init(receiveBufferBytes: Int32, reusesAddress: Bool = false, stampsArrivals: Bool = false) {
        self.receiveBufferBytes = receiveBufferBytes
        self.reusesAddress = reusesAddress
        self.stampsArrivals = stampsArrivals
    }
}

/// A datagram taken from a channel.
package struct ReceivedDatagram {
    package var count: Int
    package var source: SocketAddress
    /// How long it waited in the socket's queue, when the arrival was stamped; 0 otherwise.
    package var queuedNanoseconds: Int64

    package init(count: Int, source: SocketAddress, queuedNanoseconds: Int64 = 0) {
        self.count = count
        self.source = source
        self.queuedNanoseconds = queuedNanoseconds
    }
}

/// A bound datagram socket.
package protocol DatagramChannel: AnyObject {
    var localAddress: SocketAddress { get }
    /// Calls `handler` on `loop` whenever datagrams are waiting; watching again replaces the handler.
    func watch(on loop: any EventLoopProtocol, _ handler: @escaping () -> Void) throws(TransportError)
    /// The next waiting datagram, truncated to `buffer`; nil when none waits.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> ReceivedDatagram?
    func send(_ bytes: UnsafeRawBufferPointer, to address: SocketAddress) throws(TransportError)
    /// Stops watching and closes; later calls do nothing.
    func close()
}

/// What a stream channel is ready for.
package struct StreamReadiness: OptionSet, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    package static let readable = StreamReadiness(rawValue: 1)
    package static let writable = StreamReadiness(rawValue: 2)
    /// The peer closed or the connection failed: a read says which.
    package static let hangUp = StreamReadiness(rawValue: 4)
}

/// The outcome of one read from a stream.
package enum StreamRead {
    case bytes(Int)
    case end
    case wouldBlock
    case failed(TransportError)
}

/// A connected (or connecting) stream socket.
package protocol StreamChannel: AnyObject {
    var localAddress: SocketAddress? { get }
    /// Calls `handler` on `loop` with what the channel is ready for; `.writable` only while asked for.
    func watch(on loop: any EventLoopProtocol, writes: Bool, _ handler: @escaping (StreamReadiness) -> Void)
        throws(TransportError)
    func setWriteInterest(_ wantsWrites: Bool)
    /// After a connect: nil when connected, or why it failed.
    func connectError() -> TransportError?
    func read(into buffer: UnsafeMutableRawBufferPointer) -> StreamRead
    /// Bytes written (possibly fewer than given; 0 when the channel cannot take more now).
    func write(_ bytes: UnsafeRawBufferPointer) throws(TransportError) -> Int
    func close()
}

/// A listening stream socket.
package protocol StreamListenerChannel: AnyObject {
    var localAddress: SocketAddress { get }
    func watch(on loop: any EventLoopProtocol, _ handler: @escaping () -> Void) throws(TransportError)
    /// The next connection waiting to be accepted.
    func accept() -> (channel: any StreamChannel, remote: SocketAddress)?
    func close()
}
