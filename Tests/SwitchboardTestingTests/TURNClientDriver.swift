import SIPTransport
import STUN
import SwitchboardTesting
import Synchronization

/// Runs the project's sans-I/O `TURNClient` over a virtual UDP socket or TCP connection, in virtual time: its
/// sends go to the server, its timer is a loop timer, its events are kept.
final class TURNClientDriver: @unchecked Sendable {
    // @unchecked Sendable: the client, the socket and the channel are touched only while holding the world's
    // loop.

    let world: VirtualWorld
    let server: SocketAddress
    private var client: TURNClient<SeededRandomNumberGenerator>
    private var socket: DatagramSocket?
    private var stream: (any StreamChannel)?
    private var pendingWrites: [UInt8] = []
    private var timer: TimerHandle?
    private let recorded = Mutex<[TURNClientEvent]>([])
    /// Whether the client's timer is obeyed (false: the client goes silent, as a crashed one would).
    var runsTimers = true

    /// A client on `host` for `server`, over UDP or (`overTCP`) a TCP connection.
    init(
        world: VirtualWorld, host: String, port: UInt16 = 0, server: SocketAddress, username: String,
        password: String, overTCP: Bool = false, seed: UInt64 = 9
    ) throws {
        self.world = world
        self.server = server
        let configuration = TURNClientConfiguration(
            credentials: TURNCredentials(username: username, password: password), isReliable: overTCP)
        client = TURNClient(configuration: configuration, random: SeededRandomNumberGenerator(seed: seed))
        if overTCP {
            try openStream(host: host)
        } else {
            try openSocket(host: host, port: port)
        }
    }

    private func openSocket(host: String, port: UInt16) throws {
        let socket = try world.network.makeDatagramSocket(binding: socketAddress(host, port))
        self.socket = socket
        try world.loop.withLoop { () throws(TransportError) in
            try socket.watch(on: world.loop) { [weak self, unowned socket] in
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while let (count, _) = socket.receive(into: &buffer) {
                    guard let self else { return }
                    self.apply(self.client.receive(Array(buffer[0..<count]), at: self.now))
                }
            }
        }
    }

    private func openStream(host: String) throws {
        let channel = try world.network.host(host).connectStream(to: server)
        stream = channel
        try world.loop.withLoop { () throws(TransportError) in
            try channel.watch(on: world.loop, writes: true) { [weak self, unowned channel] readiness in
                guard let self else { return }
                if readiness.contains(.writable) { self.flush() }
                var buffer = [UInt8](repeating: 0, count: 16_384)
                while case .bytes(let count) = buffer.withUnsafeMutableBytes({ channel.read(into: $0) }) {
                    self.apply(self.client.receive(streamBytes: Array(buffer[0..<count]), at: self.now))
                }
            }
        }
    }

    private func flush() {
        guard let stream, !pendingWrites.isEmpty, stream.connectError() == nil else { return }
        let written = pendingWrites.withUnsafeBytes { (try? stream.write($0)) ?? 0 }
        pendingWrites.removeFirst(written)
        stream.setWriteInterest(!pendingWrites.isEmpty)
    }

    private var now: STUNInstant {
        let elapsed = world.loop.elapsedTime.components
        return STUNInstant(nanoseconds: elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
    }

    /// The client's local address (UDP) or the connection's.
    var localAddress: SocketAddress? {
        world.loop.withLoop { socket?.localAddress ?? stream?.localAddress }
    }

    private func apply(_ actions: [TURNClientAction]) {
        for action in actions {
            switch action {
            case .send(let bytes):
                if let socket {
                    _ = socket.send(bytes, to: server)
                } else {
                    pendingWrites += bytes
                    flush()
                }
            case .armTimer(let at):
                if let timer { world.loop.cancelTimer(timer) }
                let delay = Duration.nanoseconds(max(0, at.nanoseconds - now.nanoseconds))
                timer = world.loop.scheduleTimer(after: delay) { [weak self] in
                    guard let self, self.runsTimers else { return }
                    self.timer = nil
                    self.apply(self.client.timerFired(at: self.now))
                }
            case .event(let event):
                recorded.withLock { $0.append(event) }
            }
        }
    }

    /// Runs `body` on the client on the world's loop and carries out what it asks.
    func drive(_ body: (inout TURNClient<SeededRandomNumberGenerator>, STUNInstant) -> [TURNClientAction]) {
        world.loop.withLoop { apply(body(&client, now)) }
    }

    func start() { drive { $0.start(at: $1) } }

    var events: [TURNClientEvent] { recorded.withLock { $0 } }
    var state: TURNClient<SeededRandomNumberGenerator>.State { world.loop.withLoop { client.state } }
    var relayedAddress: STUNTransportAddress? { world.loop.withLoop { client.relayedAddress } }
    var mappedAddress: STUNTransportAddress? { world.loop.withLoop { client.mappedAddress } }

    /// The payloads received from peers, with the peers.
    var data: [(peer: STUNTransportAddress, payload: String)] {
        events.compactMap { event in
            guard case .data(let peer, let payload) = event else { return nil }
            return (peer, String(decoding: payload, as: UTF8.self))
        }
    }

    /// Runs the world until the client is allocated (or `limit` passes).
    @discardableResult
    func allocate(within limit: Duration = .seconds(5)) -> Bool {
        start()
        return world.run(until: { self.state == .allocated }, within: limit)
    }

    func close() { world.loop.withLoop { stream?.close() } }
}

extension STUNTransportAddress {
    /// The address as the virtual network takes it.
    var socket: SocketAddress { socketAddress(self.address.description, port) }
}

extension SocketAddress {
    /// The address as STUN carries it.
    var stun: STUNTransportAddress? {
        STUNIPAddress(bytes: addressBytes).map { STUNTransportAddress(address: $0, port: port) }
    }
}
