public import SIPTransport
import Synchronization

/// A raw TCP connection on a virtual world's network, for scripting a SIP peer by hand over a stream:
/// it writes the text it is given and splits what arrives into SIP messages by Content-Length.
public final class ScriptedConnection: @unchecked Sendable {
    // @unchecked Sendable: the channel is touched only while holding the world's loop; the bytes that
    // arrived are behind a Mutex.

    private let world: VirtualWorld
    private let channel: any StreamChannel
    private let inbox = StreamInbox()

    /// The local address of the connection.
    public var localAddress: SocketAddress? { world.loop.withLoop { channel.localAddress } }
    /// The address of the other end: the peer's source address for an accepted connection, the destination
    /// for one this side opened.
    public let remoteAddress: SocketAddress?

    init(world: VirtualWorld, channel: any StreamChannel, connecting: Bool, remote: SocketAddress? = nil)
        throws(TransportError)
    {
        self.world = world
        self.channel = channel
        self.remoteAddress = remote
        let inbox = self.inbox
        try world.loop.withLoop { () throws(TransportError) in
            try channel.watch(on: world.loop, writes: connecting) { [unowned channel] _ in
                var buffer = [UInt8](repeating: 0, count: 16_384)
                reading: while true {
                    switch buffer.withUnsafeMutableBytes({ channel.read(into: $0) }) {
                    case .bytes(let count): inbox.bytes.withLock { $0.append(contentsOf: buffer[0..<count]) }
                    case .end, .failed: inbox.isClosed.store(true, ordering: .releasing); break reading
                    case .wouldBlock: break reading
                    }
                }
                channel.setWriteInterest(false)
            }
        }
    }

    /// Connects to `destination` from `host`.
    /// - Throws: `TransportError` when the host cannot open a connection.
    public convenience init(world: VirtualWorld, from host: String, to destination: SocketAddress)
        throws(TransportError)
    {
        let channel = try world.network.host(host).connectStream(to: destination)
        try self.init(world: world, channel: channel, connecting: true, remote: destination)
    }

    /// Writes `text` (once the connection is up; queued until then).
    public func send(_ text: String) { send(bytes: Array(text.utf8)) }

    /// Writes `bytes` as they are (once the connection is up; queued until then).
    public func send(bytes: [UInt8]) {
        world.loop.withLoop {
            pending.append(contentsOf: bytes)
            flushPending()
        }
        // A connection still being set up takes the bytes when it is.
        if world.loop.withLoop({ !pending.isEmpty }) { world.run(until: { flushPendingOnLoop() }, within: .seconds(5)) }
    }

    private var pending: [UInt8] = []

    private func flushPendingOnLoop() -> Bool { world.loop.withLoop { flushPending() } }

    @discardableResult
    private func flushPending() -> Bool {
        guard !pending.isEmpty else { return true }
        guard channel.connectError() == nil else { return true }
        let written = pending.withUnsafeBytes { (try? channel.write($0)) ?? 0 }
        pending.removeFirst(written)
        return pending.isEmpty
    }

    /// The next whole SIP message that arrived, running the world's clock up to `limit` for one.
    public func message(within limit: Duration) -> String? {
        var found: String?
        world.run(
            until: {
                found = inbox.bytes.withLock { Self.takeMessage(from: &$0) }
                return found != nil || inbox.isClosed.load(ordering: .acquiring)
            }, within: limit)
        return found
    }

    /// Closes the connection (the peer sees the end of the stream).
    public func close() { world.loop.withLoop { channel.close() } }

    /// Whether the other end closed the connection (the end of the stream arrived).
    public var isClosed: Bool { inbox.isClosed.load(ordering: .acquiring) }

    /// The bytes that arrived and were not taken yet, taken (raw: no SIP framing).
    public func takeBytes() -> [UInt8] {
        inbox.bytes.withLock { bytes in
            let taken = bytes
            bytes = []
            return taken
        }
    }

    /// Takes one message (head and Content-Length body) off the front of `bytes`.
    static func takeMessage(from bytes: inout [UInt8]) -> String? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else { return nil }
        let head = String(decoding: bytes[..<(end + 4)], as: UTF8.self)
        let length =
            head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingSpacesAndTabs) } ?? 0
        let total = end + 4 + length
        guard bytes.count >= total else { return nil }
        let message = String(decoding: bytes[..<total], as: UTF8.self)
        bytes.removeFirst(total)
        return message
    }
}

/// A listening TCP socket on a virtual world's network that hands out scripted connections.
public final class ScriptedListener: @unchecked Sendable {
    // @unchecked Sendable: the channel is touched only while holding the world's loop.

    /// The bound address.
    public let address: SocketAddress
    private let world: VirtualWorld
    private let channel: any StreamListenerChannel

    /// Listens on `host` (port 0 picks one).
    /// - Throws: `TransportError` when the address is taken or not an IP address.
    public init(world: VirtualWorld, host: String, port: UInt16 = 0) throws(TransportError) {
        guard let bind = SocketAddress(ip: host, port: port) else {
            throw TransportError(.invalidAddress, "not an IP address: \(host)")
        }
        self.world = world
        let channel = try world.network.host(host).listenStream(bind)
        self.channel = channel
        self.address = channel.localAddress
        try world.loop.withLoop { () throws(TransportError) in try channel.watch(on: world.loop) {} }
    }

    /// The next connection made to the listener, running the world's clock up to `limit` for one.
    public func accept(within limit: Duration) -> ScriptedConnection? {
        var accepted: (channel: any StreamChannel, remote: SocketAddress)?
        world.run(
            until: {
                accepted = world.loop.withLoop { channel.accept() }; return accepted != nil
            }, within: limit)
        guard let accepted else { return nil }
        return try? ScriptedConnection(
            world: world, channel: accepted.channel, connecting: false, remote: accepted.remote)
    }

    /// Stops listening.
    public func close() { world.loop.withLoop { channel.close() } }
}

/// Bytes that arrived on a scripted connection, shared with its channel's handler.
private final class StreamInbox: Sendable {
    let bytes = Mutex<[UInt8]>([])
    let isClosed = Atomic<Bool>(false)
}

extension Substring {
    fileprivate var trimmingSpacesAndTabs: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
