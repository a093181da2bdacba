package import SIPTransport

/// An in-memory IP network on a `VirtualEventLoop`: hosts with addresses, UDP datagrams and TCP-like
/// streams between them, with per-link latency, jitter, loss and duplication drawn from a seeded
/// generator. The stack's real transport code runs over it (framing, Via handling, connection reuse,
/// TLS through memory BIOs); only the sockets are virtual. No descriptor is opened, so it works where
/// loopback is down.
///
/// Knobs may be turned from any thread; they take effect at the loop's current instant.
public final class VirtualNetwork: @unchecked Sendable {
    // @unchecked Sendable: all mutable state is touched only while holding `loop` (withLoop), which
    // serialises every caller.

    /// The loop every endpoint of this network runs on.
    public let loop: VirtualEventLoop
    var random: SeededRandomNumberGenerator
    private var defaultConditions = LinkConditions.perfect
    private var links: [HostPair: LinkConditions] = [:]
    var datagramEndpoints: [SocketAddress: VirtualDatagramChannel] = [:]
    var listeners: [SocketAddress: VirtualListenerChannel] = [:]
    var streams: [ObjectIdentifier: VirtualStreamChannel] = [:]
    private var nextPort: [String: UInt16] = [:]
    private var recorded: [NetworkRecord] = []
    /// How many records were dropped from the front, so a record's sequence number finds it later.
    private var recordsTrimmed = 0
    var nats: [VirtualNAT] = []
    var natsByInsideHost: [String: VirtualNAT] = [:]
    var natsByPublicIP: [String: VirtualNAT] = [:]
    var udpBlocks: Set<UDPBlock> = []
    var blockedDatagramCount = 0
    /// The most records kept; older ones are dropped first.
    public var recordLimit = 100_000

    private struct HostPair: Hashable {
        var from: String
        var to: String
    }

    /// A network on `loop` whose impairments draw from `seed`.
    public init(loop: VirtualEventLoop, seed: UInt64 = 1) {
        self.loop = loop
        self.random = SeededRandomNumberGenerator(seed: seed)
    }

    // MARK: Hosts

    /// The network stack of the host at `ip`: what a transport layer or media engine binds and connects
    /// through. Wildcard binds take this address.
    package func host(_ ip: String) -> any NetworkStack {
        VirtualHost(network: self, ip: ip)
    }

    // MARK: Conditions

    /// Sets the conditions of every link without its own.
    public func setConditions(_ conditions: LinkConditions) {
        loop.withLoop { defaultConditions = conditions }
    }

    /// Sets the conditions from host `from` to host `to` (one direction).
    public func setConditions(_ conditions: LinkConditions, from: String, to: String) {
        loop.withLoop { links[HostPair(from: from, to: to)] = conditions }
    }

    /// Sets the conditions both ways between two hosts.
    public func setConditions(_ conditions: LinkConditions, between a: String, and b: String) {
        setConditions(conditions, from: a, to: b)
        setConditions(conditions, from: b, to: a)
    }

    func conditions(from: SocketAddress, to: SocketAddress) -> LinkConditions {
        links[HostPair(from: from.host, to: to.host)] ?? defaultConditions
    }

    /// Breaks every stream connection with an end on host `ip`, as a reset would: both ends see the
    /// connection fail. Returns how many connections it broke.
    @discardableResult
    public func resetConnections(of ip: String) -> Int {
        loop.withLoop {
            // In address order: a dictionary's order changes from run to run.
            let victims = streams.values.filter {
                $0.local.host == ip || $0.remote.host == ip || $0.insideRemoteAddress?.host == ip
            }
            .sorted { ($0.local.port, $0.remote.port) < ($1.local.port, $1.remote.port) }
            for stream in victims { stream.fail(TransportError(.connectionClosed, "connection reset")) }
            return victims.count
        }
    }

    // MARK: Stalls

    private var stalledUntil: [String: Duration] = [:]

    /// Makes the host at `ip` stop reading datagrams for `duration`, as a loop too busy to keep up with
    /// its input would: what arrives meanwhile waits in the sockets' queues, and is read (and stamped as
    /// having waited) when the stall ends.
    public func stall(_ ip: String, for duration: Duration) {
        loop.withLoop {
            let until = loop.elapsedTime + max(duration, .zero)
            stalledUntil[ip] = until
            loop.scheduleTimer(after: max(duration, .zero)) { [weak self] in
                guard let self, self.stalledUntil[ip] == until else { return }
                self.stalledUntil[ip] = nil
                // In port order: a dictionary's order changes from run to run.
                let stalled = self.datagramEndpoints.values.filter { $0.localAddress.host == ip }
                for endpoint in stalled.sorted(by: { $0.localAddress.port < $1.localAddress.port }) {
                    endpoint.notify()
                }
            }
        }
    }

    func isStalled(_ ip: String) -> Bool { stalledUntil[ip] != nil }

    // MARK: Records

    /// Everything sent so far, in sending order.
    public var records: [NetworkRecord] { loop.withLoop { recorded } }

    /// The SIP messages sent so far, one after another, with times and addresses: two runs of the same
    /// scenario give the same text.
    public var sipTrace: String {
        records.filter(\.isSIP).map(\.description).joined(separator: "\n")
    }

    /// Forgets the records kept so far.
    public func clearRecords() {
        loop.withLoop {
            recordsTrimmed += recorded.count
            recorded.removeAll()
        }
    }

    /// Records what was sent; returns its sequence number, for ``updateRecord(_:_:)`` when it arrives.
    @discardableResult
    func record(
        _ kind: NetworkRecord.Kind, from: SocketAddress, to: SocketAddress, bytes: [UInt8], dropped: Bool,
        insideSource: SocketAddress? = nil, insideDestination: SocketAddress? = nil
    ) -> Int {
        guard recordLimit > 0 else {
            // Nothing is kept: the sequence number still counts, and names no record.
            recordsTrimmed += recorded.count + 1
            recorded.removeAll()
            return recordsTrimmed - 1
        }
        if recorded.count >= recordLimit {
            let excess = recorded.count - recordLimit + 1
            recorded.removeFirst(excess)
            recordsTrimmed += excess
        }
        recorded.append(
            NetworkRecord(
                time: loop.elapsedTime, kind: kind, source: from, destination: to, bytes: bytes, isDropped: dropped,
                insideSource: insideSource, insideDestination: insideDestination))
        return recordsTrimmed + recorded.count - 1
    }

    /// Amends the record with sequence number `sequence`, if it is still kept (what happened on arrival).
    func updateRecord(_ sequence: Int, _ change: (inout NetworkRecord) -> Void) {
        let index = sequence - recordsTrimmed
        guard recorded.indices.contains(index) else { return }
        change(&recorded[index])
    }

    // MARK: Ports

    /// A free ephemeral port on `ip`, handed out in order so runs repeat.
    func ephemeralPort(on ip: String) -> UInt16 {
        var port = nextPort[ip, default: 40_000]
        for _ in 0..<20_000 {
            defer { port = port >= 60_999 ? 40_000 : port + 1 }
            guard let address = SocketAddress(ip: ip, port: port) else { break }
            if datagramEndpoints[address] == nil && listeners[address] == nil && !streamPortTaken(address) {
                nextPort[ip] = port >= 60_999 ? 40_000 : port + 1
                return port
            }
        }
        return 0
    }

    private func streamPortTaken(_ address: SocketAddress) -> Bool {
        streams.values.contains { $0.local == address }
    }

    /// The bound address for a bind to `address` on host `ip`: the host's address for a wildcard, a free
    /// port for port 0.
    func bindAddress(_ address: SocketAddress, on ip: String) throws(TransportError) -> SocketAddress {
        let host = address.isUnspecified ? ip : address.host
        guard host == ip else {
            throw TransportError.system("bind \(address)", errno: 99)  // EADDRNOTAVAIL
        }
        let port = address.port == 0 ? ephemeralPort(on: ip) : address.port
        guard port != 0, let bound = SocketAddress(ip: host, port: port) else {
            throw TransportError.system("bind \(address)", errno: 98)  // EADDRINUSE
        }
        return bound
    }
}

/// One host's view of the network.
private final class VirtualHost: NetworkStack, @unchecked Sendable {
    // @unchecked Sendable: holds only immutable references; the network serialises through its loop.
    let network: VirtualNetwork
    let ip: String

    init(network: VirtualNetwork, ip: String) {
        self.network = network
        self.ip = ip
    }

    func bindDatagram(_ address: SocketAddress, options: DatagramOptions) throws(TransportError)
        -> any DatagramChannel
    {
        try network.loop.withLoop { () throws(TransportError) -> any DatagramChannel in
            let bound = try network.bindAddress(address, on: ip)
            guard network.datagramEndpoints[bound] == nil else {
                throw TransportError.system("bind \(bound)", errno: 98)
            }
            let channel = VirtualDatagramChannel(network: network, local: bound)
            network.datagramEndpoints[bound] = channel
            return channel
        }
    }

    func listenStream(_ address: SocketAddress) throws(TransportError) -> any StreamListenerChannel {
        try network.loop.withLoop { () throws(TransportError) -> any StreamListenerChannel in
            let bound = try network.bindAddress(address, on: ip)
            guard network.listeners[bound] == nil else { throw TransportError.system("bind \(bound)", errno: 98) }
            let channel = VirtualListenerChannel(network: network, local: bound)
            network.listeners[bound] = channel
            return channel
        }
    }

    func connectStream(to address: SocketAddress) throws(TransportError) -> any StreamChannel {
        try network.loop.withLoop { () throws(TransportError) -> any StreamChannel in
            let port = network.ephemeralPort(on: ip)
            guard port != 0, let local = SocketAddress(ip: ip, port: port) else {
                throw TransportError.system("connect \(address)", errno: 99)
            }
            let channel = VirtualStreamChannel(network: network, local: local, remote: address)
            network.streams[ObjectIdentifier(channel)] = channel
            channel.startConnecting()
            return channel
        }
    }

    func routeSource(to remote: SocketAddress) -> SocketAddress? {
        SocketAddress(ip: ip, port: 0)
    }
}
