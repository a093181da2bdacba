public import SIPTransport
import Synchronization

/// A raw UDP endpoint on a virtual world's network, for scripting a SIP peer by hand: it sends the text
/// it is given and keeps what arrives, so a test can play a proxy, a PBX or a misbehaving client.
public final class ScriptedPeer: @unchecked Sendable {
    // @unchecked Sendable: the socket is touched only while holding the world's loop; arrivals are
    // behind a Mutex.

    /// The address the peer is bound to.
    public let address: SocketAddress
    private let world: VirtualWorld
    private let socket: DatagramSocket
    private let arrived = Arrivals()

    /// A peer bound on `host` (port 0 picks one).
    /// - Throws: `TransportError` when the address is taken or not an IP address.
    public init(world: VirtualWorld, host: String, port: UInt16 = 0) throws(TransportError) {
        guard let bind = SocketAddress(ip: host, port: port) else {
            throw TransportError(.invalidAddress, "not an IP address: \(host)")
        }
        self.world = world
        let socket = try world.network.makeDatagramSocket(binding: bind)
        self.socket = socket
        self.address = socket.localAddress
        let arrived = self.arrived
        try world.loop.withLoop { () throws(TransportError) in
            try socket.watch(on: world.loop) { [unowned socket] in
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while let (count, source) = socket.receive(into: &buffer) {
                    if let datagrams = arrived.datagrams.withLock({ $0 }) {
                        datagrams(Array(buffer[0..<count]), source)
                        continue
                    }
                    let text = String(decoding: buffer[0..<count], as: UTF8.self)
                    if let handler = arrived.handler.withLock({ $0 }) {
                        handler(text)
                    } else {
                        arrived.texts.withLock { $0.append(text) }
                    }
                }
            }
        }
    }

    /// Sends `text` as one datagram to `destination`.
    public func send(_ text: String, to destination: SocketAddress) {
        world.loop.withLoop { _ = socket.send(Array(text.utf8), to: destination) }
    }

    /// The next datagram that arrived, running the world's clock up to `limit` for one; nil if none came.
    public func receive(within limit: Duration) -> String? {
        world.run(until: { !arrived.texts.withLock { $0.isEmpty } }, within: limit)
        return arrived.texts.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }

    /// Hands every datagram that arrives from now on to `handler`, on the world's loop as it arrives
    /// (nil: keep them for `receive` again). A peer that must answer while something else drives the
    /// clock (a provider winding down in `invalidate`) answers from here.
    public func onReceive(_ handler: (@Sendable (String) -> Void)?) {
        arrived.handler.withLock { $0 = handler }
    }

    /// Hands every datagram that arrives from now on to `handler` as bytes with its source, on the
    /// world's loop (before any `onReceive` handler; nil: back to text).
    public func onDatagram(_ handler: (@Sendable ([UInt8], SocketAddress) -> Void)?) {
        arrived.datagrams.withLock { $0 = handler }
    }

    /// Sends `bytes` as one datagram to `destination`.
    public func send(bytes: [UInt8], to destination: SocketAddress) {
        world.loop.withLoop { _ = socket.send(bytes, to: destination) }
    }

    /// Stops listening.
    public func close() {
        world.loop.withLoop { socket.close() }
    }
}

/// What arrived at a scripted peer, shared with its socket's handler.
private final class Arrivals: Sendable {
    let texts = Mutex<[String]>([])
    let handler = Mutex<(@Sendable (String) -> Void)?>(nil)
    let datagrams = Mutex<(@Sendable ([UInt8], SocketAddress) -> Void)?>(nil)
}
