public import SIPTransport

/// A NAT router on a ``VirtualNetwork`` (RFC 4787): the hosts behind it reach the rest of the network from its
/// public address, through mappings made by their outbound traffic; what arrives at the public address reaches
/// a host behind it only through a live mapping whose filtering admits the sender. Made by
/// ``VirtualNetwork/addNAT(publicIP:inside:behavior:)``.
///
/// Datagrams between two hosts behind the same NAT go directly (a LAN). A datagram from a host behind the NAT to
/// the NAT's own public address (hairpinning, RFC 4787 §6) is dropped and counted in ``hairpinDropped``: Linux
/// `masquerade` alone does not loop it back either. Stream connections opened from inside are translated;
/// connections to the public address are refused (no port forwarding).
///
/// The counters and mappings are read on the network's loop; they can be read from any thread.
public final class VirtualNAT: @unchecked Sendable {
    // @unchecked Sendable: every mutable property is touched only while holding the network's loop.

    /// The router's outside address.
    public let publicIP: String
    /// The addresses of the hosts behind it.
    public let inside: [String]
    /// How it maps and filters.
    public let behavior: NATBehavior
    unowned let network: VirtualNetwork
    private let insideHosts: Set<String>
    private var datagramMappings: [DatagramKey: DatagramEntry] = [:]
    private var datagramPorts: [UInt16: DatagramKey] = [:]
    private var streamMappings: [UInt16: NATMapping] = [:]
    private var created = 0
    private var outCount = 0
    private var inCount = 0
    private var filteredCount = 0
    private var hairpinCount = 0
    private var unroutableCount = 0
    /// The most remotes one mapping remembers for filtering; the one idle longest goes first.
    static let remoteLimit = 1_024

    /// What identifies a datagram mapping: the inside address, and the destination as far as the mapping
    /// behaviour depends on it.
    private struct DatagramKey: Hashable {
        var inside: SocketAddress
        var remoteHost: String?
        var remotePort: UInt16?
    }

    private struct DatagramEntry {
        var port: UInt16
        var lastOutbound: Duration
        /// Each remote sent to, with when it was last sent to.
        var remotes: [SocketAddress: Duration]
    }

    init(network: VirtualNetwork, publicIP: String, inside: [String], behavior: NATBehavior) {
        self.network = network
        self.publicIP = publicIP
        self.inside = inside
        self.insideHosts = Set(inside)
        self.behavior = behavior
    }

    // MARK: Reading

    /// The live mappings, datagram ones first, each kind in order of public port.
    public var mappings: [NATMapping] {
        network.loop.withLoop {
            purgeExpired(at: network.loop.elapsedTime)
            let datagrams = datagramMappings.map { key, entry in mapping(key, entry) }
            let streams = streamMappings.values
            return datagrams.sorted { $0.outside.port < $1.outside.port }
                + streams.sorted { $0.outside.port < $1.outside.port }
        }
    }

    /// The live datagram mapping that `inside` would use to send to `remote`; `nil` when it would need a new one.
    public func mapping(from inside: SocketAddress, to remote: SocketAddress) -> NATMapping? {
        network.loop.withLoop {
            let key = key(inside, remote)
            guard let entry = datagramMappings[key], isLive(entry, at: network.loop.elapsedTime) else { return nil }
            return mapping(key, entry)
        }
    }

    /// How many mappings (datagram and stream) the NAT has made so far.
    public var mappingsCreated: Int { network.loop.withLoop { created } }
    /// Datagrams and stream segments whose source the NAT translated on the way out.
    public var translatedOut: Int { network.loop.withLoop { outCount } }
    /// Datagrams and stream segments the NAT forwarded to a host behind it.
    public var deliveredIn: Int { network.loop.withLoop { inCount } }
    /// Datagrams that arrived at the public address and were dropped: no live mapping at that port, or the
    /// filtering did not admit the sender.
    public var filteredIn: Int { network.loop.withLoop { filteredCount } }
    /// Datagrams and connections from a host behind the NAT to the NAT's own public address, dropped.
    public var hairpinDropped: Int { network.loop.withLoop { hairpinCount } }
    /// Datagrams and connections from outside addressed to a private address behind the NAT, dropped: no route
    /// leads there (a real network would not carry them to the router at all).
    public var unroutableDropped: Int { network.loop.withLoop { unroutableCount } }

    // MARK: Routing (on the loop)

    func isInside(_ host: String) -> Bool { insideHosts.contains(host) }

    func countHairpin() { hairpinCount += 1 }

    func countUnroutable() { unroutableCount += 1 }

    /// The public address a datagram from `source` to `destination` leaves with, making or refreshing the
    /// mapping; `nil` when no public port is free.
    func translateOut(_ source: SocketAddress, to destination: SocketAddress, at now: Duration) -> SocketAddress? {
        let key = key(source, destination)
        if let entry = datagramMappings[key], !isLive(entry, at: now) { removeDatagramMapping(key) }
        if datagramMappings[key] == nil {
            purgeExpired(at: now)
            guard let port = freePort(preferring: source.port, taken: { datagramPorts[$0] != nil }) else { return nil }
            datagramMappings[key] = DatagramEntry(port: port, lastOutbound: now, remotes: [:])
            datagramPorts[port] = key
            created += 1
        }
        guard var entry = datagramMappings[key] else { return nil }
        entry.lastOutbound = now
        entry.remotes[destination] = now
        if entry.remotes.count > Self.remoteLimit, let idlest = entry.remotes.min(by: { isIdler($0, than: $1) }) {
            entry.remotes[idlest.key] = nil
        }
        datagramMappings[key] = entry
        outCount += 1
        return SocketAddress(ip: publicIP, port: entry.port)
    }

    /// The inside address a datagram from `remote` to the public `destination` goes to; `nil` (and counted) when
    /// no live mapping admits it.
    func translateIn(_ destination: SocketAddress, from remote: SocketAddress, at now: Duration) -> SocketAddress? {
        guard let key = datagramPorts[destination.port], let entry = datagramMappings[key] else {
            filteredCount += 1
            return nil
        }
        guard isLive(entry, at: now) else {
            removeDatagramMapping(key)
            filteredCount += 1
            return nil
        }
        guard admits(remote, entry) else {
            filteredCount += 1
            return nil
        }
        inCount += 1
        return key.inside
    }

    /// Maps a new stream connection from `source` to `destination`; the public address it goes out as, or `nil`
    /// when no port is free.
    func openStream(from source: SocketAddress, to destination: SocketAddress) -> SocketAddress? {
        guard let port = freePort(preferring: source.port, taken: { streamMappings[$0] != nil }),
            let outside = SocketAddress(ip: publicIP, port: port)
        else { return nil }
        streamMappings[port] = NATMapping(
            kind: .stream, inside: source, outside: outside, remotes: [destination], expiresAt: nil)
        created += 1
        return outside
    }

    /// The connection mapped at `port` is gone.
    func closeStream(port: UInt16) { streamMappings[port] = nil }

    func countStreamOut() { outCount += 1 }
    func countStreamIn() { inCount += 1 }

    // MARK: Mapping table

    private func key(_ source: SocketAddress, _ destination: SocketAddress) -> DatagramKey {
        switch behavior.mapping {
        case .endpointIndependent: DatagramKey(inside: source)
        case .addressDependent: DatagramKey(inside: source, remoteHost: destination.host)
        case .addressAndPortDependent:
            DatagramKey(inside: source, remoteHost: destination.host, remotePort: destination.port)
        }
    }

    private func isLive(_ entry: DatagramEntry, at now: Duration) -> Bool {
        now < entry.lastOutbound + behavior.mappingLifetime
    }

    private func admits(_ remote: SocketAddress, _ entry: DatagramEntry) -> Bool {
        switch behavior.filtering {
        case .endpointIndependent: true
        case .addressDependent: entry.remotes.keys.contains { $0.host == remote.host }
        case .addressAndPortDependent: entry.remotes[remote] != nil
        }
    }

    private func isIdler(_ a: (key: SocketAddress, value: Duration), than b: (key: SocketAddress, value: Duration))
        -> Bool
    {
        a.value != b.value ? a.value < b.value : addressOrder(a.key, b.key)
    }

    private func mapping(_ key: DatagramKey, _ entry: DatagramEntry) -> NATMapping {
        NATMapping(
            kind: .datagram, inside: key.inside, outside: SocketAddress(ip: publicIP, port: entry.port) ?? key.inside,
            remotes: entry.remotes.keys.sorted(by: addressOrder),
            expiresAt: entry.lastOutbound + behavior.mappingLifetime)
    }

    private func removeDatagramMapping(_ key: DatagramKey) {
        guard let entry = datagramMappings.removeValue(forKey: key) else { return }
        datagramPorts[entry.port] = nil
    }

    private func purgeExpired(at now: Duration) {
        let expired = datagramMappings.filter { !isLive($0.value, at: now) }.keys
        for key in expired { removeDatagramMapping(key) }
    }

    /// The inside port when the behaviour keeps ports and it is free, else one drawn from the network's seeded
    /// generator (1024...65535, as `masquerade random` draws).
    private func freePort(preferring port: UInt16, taken: (UInt16) -> Bool) -> UInt16? {
        if behavior.preservesPorts, port != 0, !taken(port) { return port }
        let range: ClosedRange<UInt16> = 1024...65535
        let start = UInt16.random(in: range, using: &network.random)
        var candidate = start
        repeat {
            if !taken(candidate) { return candidate }
            candidate = candidate == range.upperBound ? range.lowerBound : candidate + 1
        } while candidate != start
        return nil
    }
}
