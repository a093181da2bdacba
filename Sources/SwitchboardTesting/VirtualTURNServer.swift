public import SIPTransport
import STUN

/// A STUN and TURN server on a virtual world's network (RFC 8489, RFC 8656), built on the `STUN` module's
/// codec: it answers Binding requests on every transport with the source it sees (after any NAT), and relays
/// UDP for clients with long-term credentials over UDP and TCP (STUN and ChannelData framed over the stream,
/// padded, RFC 8656 §12.5).
///
/// Allocations (one relayed UDP address each on the server's host, ports drawn from ``relayPorts`` with the
/// network's seeded generator), permissions (per peer IP, 300 s), channels (0x4000...0x4FFF, 600 s) and nonces
/// expire on the virtual clock. Keys are the RFC 5389 MD5 long-term keys (what coturn 4.6 uses); challenges offer
/// no PASSWORD-ALGORITHMS, so SHA-256 keys are not used. What is left out: RFC 6062 TCP relaying, IPv6 relayed
/// addresses (440), EVEN-PORT reservations and RESERVATION-TOKEN, the 5-minute quarantine of an expired channel.
///
/// Passwords never appear in its `description` or mirror, and it logs nothing.
public final class VirtualTURNServer: @unchecked Sendable, CustomStringConvertible, CustomReflectable {
    // @unchecked Sendable: every mutable property is touched only while holding the world's loop; the public
    // accessors take it.

    /// The transports a server listens on.
    public struct Transports: OptionSet, Sendable, Hashable {
        /// The bits of the set.
        public let rawValue: UInt8
        /// The set with these bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// STUN and ChannelData in UDP datagrams.
        public static let udp = Transports(rawValue: 1)
        /// STUN and ChannelData framed over TCP connections (RFC 8656 §12.5).
        public static let tcp = Transports(rawValue: 2)
    }

    /// The address the server listens on (UDP and TCP alike).
    public let address: SocketAddress
    /// The realm of the long-term credentials (RFC 8489 §9.2).
    public let realm: String
    let world: VirtualWorld
    let users: [String: String]
    var udpSocket: DatagramSocket?
    private var listener: (any StreamListenerChannel)?
    var connections: [SocketAddress: TURNServerConnection] = [:]
    var allocations: [TURNClientKey: TURNAllocation] = [:]
    var nonces: [String: Duration] = [:]
    var nonceOrder: [String] = []
    var counters = Counters()

    struct Counters {
        var allocationsMade = 0
        var bindingRequests = 0
        var relayedToPeers = 0
        var relayedToClients = 0
        var droppedWithoutPermission = 0
    }

    // MARK: Knobs (set them before the clients start)

    /// How long a nonce is good for; a request with an older one gets 438 Stale Nonce (RFC 8489 §9.2.4).
    public var nonceLifetime: Duration {
        get { world.loop.withLoop { settings.nonceLifetime } }
        set { world.loop.withLoop { settings.nonceLifetime = newValue } }
    }
    /// The relayed ports handed out (RFC 8656 §7.2 suggests 49152...65535).
    public var relayPorts: ClosedRange<UInt16> {
        get { world.loop.withLoop { settings.relayPorts } }
        set { world.loop.withLoop { settings.relayPorts = newValue } }
    }
    /// The lifetime of an allocation whose request asks for none or for less (RFC 8656 §7.2: 600 s).
    public var defaultLifetime: Duration {
        get { world.loop.withLoop { settings.defaultLifetime } }
        set { world.loop.withLoop { settings.defaultLifetime = newValue } }
    }
    /// The longest lifetime granted (RFC 8656 §7.2: 3600 s).
    public var maximumLifetime: Duration {
        get { world.loop.withLoop { settings.maximumLifetime } }
        set { world.loop.withLoop { settings.maximumLifetime = newValue } }
    }
    /// The most allocations at once; past it Allocate gets 486 Allocation Quota Reached.
    public var maximumAllocations: Int {
        get { world.loop.withLoop { settings.maximumAllocations } }
        set { world.loop.withLoop { settings.maximumAllocations = newValue } }
    }
    /// The most peer addresses with a permission per allocation; past it 508 Insufficient Capacity.
    public var maximumPermissions: Int {
        get { world.loop.withLoop { settings.maximumPermissions } }
        set { world.loop.withLoop { settings.maximumPermissions = newValue } }
    }

    struct Settings {
        var nonceLifetime: Duration = .seconds(600)
        var relayPorts: ClosedRange<UInt16> = 49152...65535
        var defaultLifetime: Duration = .seconds(600)
        var maximumLifetime: Duration = .seconds(3600)
        var maximumAllocations = 256
        var maximumPermissions = 64
    }
    var settings = Settings()
    /// The most nonces remembered; the oldest is forgotten first (its holder gets 438 and a new one).
    static let nonceLimit = 1_024

    /// A server on `host` listening on `port` over `transports`.
    /// - Parameters:
    ///   - world: the world whose network and clock it runs on.
    ///   - host: the server's IP address (not behind a NAT).
    ///   - port: the port for UDP and TCP; 3478 by default.
    ///   - realm: the REALM of its challenges.
    ///   - users: username to password.
    ///   - transports: UDP, TCP or both (the default).
    /// - Throws: `TransportError` when the address is not an IP address or the port is taken.
    public init(
        world: VirtualWorld, host: String, port: UInt16 = 3478, realm: String = "switchboard.test",
        users: [String: String], transports: Transports = [.udp, .tcp]
    ) throws(TransportError) {
        guard let address = SocketAddress(ip: host, port: port) else {
            throw TransportError(.invalidAddress, "not an IP address: \(host)")
        }
        self.world = world
        self.address = address
        self.realm = realm
        self.users = users
        try world.loop.withLoop { () throws(TransportError) in
            if transports.contains(.udp) { try listenUDP() }
            if transports.contains(.tcp) { try listenTCP() }
        }
    }

    private func listenUDP() throws(TransportError) {
        let socket = try world.network.makeDatagramSocket(binding: address)
        udpSocket = socket
        try socket.watch(on: world.loop) { [weak self, unowned socket] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while let (count, source) = socket.receive(into: &buffer) {
                self?.receive(Array(buffer[0..<count]), from: TURNClientKey(kind: .datagram, address: source))
            }
        }
    }

    private func listenTCP() throws(TransportError) {
        let listener = try world.network.host(address.host).listenStream(address)
        self.listener = listener
        try listener.watch(on: world.loop) { [weak self, unowned listener] in
            while let (channel, remote) = listener.accept() { self?.accept(channel, from: remote) }
        }
    }

    private func accept(_ channel: any StreamChannel, from remote: SocketAddress) {
        let connection = TURNServerConnection(channel: channel, remote: remote)
        connections[remote] = connection
        let client = TURNClientKey(kind: .stream, address: remote)
        connection.start(
            on: world.loop,
            onFrame: { [weak self] frame in
                switch frame {
                case .stun(let bytes): self?.receive(bytes, from: client)
                case .channelData(let message): self?.receive(message, from: client)
                }
            },
            onClose: { [weak self] in
                // RFC 8656 §3.1: an allocation over TCP ends with its connection.
                self?.connections[remote] = nil
                self?.deleteAllocation(of: client)
            })
    }

    /// Stops listening and deletes every allocation.
    public func close() {
        world.loop.withLoop {
            udpSocket?.close()
            udpSocket = nil
            listener?.close()
            listener = nil
            for connection in connections.values { connection.close() }
            connections.removeAll()
            for client in allocations.keys { deleteAllocation(of: client) }
        }
    }

    // MARK: What a test reads

    /// Live allocations.
    public var allocationCount: Int { world.loop.withLoop { allocations.count } }
    /// Allocations made so far, live or not.
    public var allocationsMade: Int { world.loop.withLoop { counters.allocationsMade } }
    /// Live permissions, over every allocation.
    public var permissionCount: Int {
        world.loop.withLoop {
            let now = world.loop.elapsedTime
            return allocations.values.reduce(0) { $0 + $1.livePermissions(at: now) }
        }
    }
    /// Live channel bindings, over every allocation.
    public var channelCount: Int {
        world.loop.withLoop {
            let now = world.loop.elapsedTime
            return allocations.values.reduce(0) { $0 + $1.liveChannels(at: now) }
        }
    }
    /// Binding requests answered.
    public var bindingRequests: Int { world.loop.withLoop { counters.bindingRequests } }
    /// Datagrams relayed from clients to peers (Send indications and ChannelData).
    public var relayedToPeers: Int { world.loop.withLoop { counters.relayedToPeers } }
    /// Datagrams relayed from peers to clients (Data indications and ChannelData).
    public var relayedToClients: Int { world.loop.withLoop { counters.relayedToClients } }
    /// Datagrams dropped either way for want of a permission (or of a bound channel for ChannelData).
    public var droppedWithoutPermission: Int { world.loop.withLoop { counters.droppedWithoutPermission } }
    /// The relayed addresses of the live allocations, in address order.
    public var relayedAddresses: [SocketAddress] {
        world.loop.withLoop { allocations.values.map(\.relay.localAddress).sorted(by: addressOrder) }
    }

    /// `VirtualTURNServer(203.0.113.9:3478, realm switchboard.test, users alice, 1 allocation)`; never a password.
    public var description: String {
        let names = users.keys.sorted().joined(separator: ", ")
        let count = allocationCount
        return
            "VirtualTURNServer(\(address), realm \(realm), users \(names), \(count) allocation\(count == 1 ? "" : "s"))"
    }

    /// The address, realm and usernames only: the passwords and keys stay out of `dump`.
    public var customMirror: Mirror {
        Mirror(self, children: ["address": address, "realm": realm, "users": users.keys.sorted()])
    }

    // MARK: Sending

    /// Sends `bytes` to a client over the transport its request came on.
    func send(_ bytes: [UInt8], to client: TURNClientKey) {
        switch client.kind {
        case .datagram: _ = udpSocket?.send(bytes, to: client.address)
        case .stream: connections[client.address]?.send(bytes)
        }
    }
}
