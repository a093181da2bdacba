import SIPTransport

/// NATs and drop rules: what stands between hosts besides the links (RFC 4787; nftables `masquerade` and
/// `drop`).
extension VirtualNetwork {
    /// Puts the hosts in `inside` behind a NAT router whose outside address is `publicIP`.
    ///
    /// Traffic between two hosts of `inside` goes directly. Traffic from one of them to any other address leaves
    /// from `publicIP` with a mapped port; traffic to `publicIP` reaches a host behind it only through a live
    /// mapping whose filtering admits the sender, and is otherwise dropped and counted. A NAT's public address may
    /// itself sit behind another NAT. Hairpinning is not done: see ``VirtualNAT``.
    /// - Parameters:
    ///   - publicIP: the router's outside address; no host should use it.
    ///   - inside: the hosts behind the router; each may be behind one NAT only.
    ///   - behavior: how it maps and filters, e.g. ``NATBehavior/portPreserving`` or ``NATBehavior/symmetric``.
    /// - Returns: the NAT, for its counters and mappings.
    @discardableResult
    public func addNAT(publicIP: String, inside: [String], behavior: NATBehavior) -> VirtualNAT {
        loop.withLoop {
            precondition(natsByPublicIP[publicIP] == nil, "\(publicIP) is already a NAT's public address")
            let nat = VirtualNAT(network: self, publicIP: publicIP, inside: inside, behavior: behavior)
            for host in inside {
                precondition(natsByInsideHost[host] == nil, "\(host) is already behind a NAT")
                natsByInsideHost[host] = nat
            }
            natsByPublicIP[publicIP] = nat
            nats.append(nat)
            return nat
        }
    }

    /// Drops UDP from host `from` to host `to` (to one destination port when `port` is given), as an nftables
    /// `drop` rule would; each datagram dropped counts in ``blockedDatagrams``. `from` matches the sender's own
    /// address or the address a NAT translated it to; `to` matches the address sent to or the host a NAT
    /// forwards it to. Streams are not affected.
    public func blockUDP(from: String, to: String, port: UInt16? = nil) {
        loop.withLoop { _ = udpBlocks.insert(UDPBlock(from: from, to: to, port: port)) }
    }

    /// Removes a rule that ``blockUDP(from:to:port:)`` added with the same arguments.
    public func unblockUDP(from: String, to: String, port: UInt16? = nil) {
        loop.withLoop { _ = udpBlocks.remove(UDPBlock(from: from, to: to, port: port)) }
    }

    /// Datagrams dropped by ``blockUDP(from:to:port:)`` rules so far.
    public var blockedDatagrams: Int { loop.withLoop { blockedDatagramCount } }

    // MARK: Routing (on the loop)

    /// How many NATs a datagram may cross on one side (a NAT behind a NAT behind a NAT...).
    private static var natDepthLimit: Int { 4 }

    /// The source a datagram from `sender` to `destination` leaves with after the NATs in its way, or `nil` when
    /// one of them drops it (hairpinning, no free port) or a drop rule does.
    func routeDatagramOut(from sender: SocketAddress, to destination: SocketAddress) -> SocketAddress? {
        if isBlocked(from: sender, to: destination) { return nil }
        var source = sender
        for _ in 0..<Self.natDepthLimit {
            guard let nat = natsByInsideHost[source.host], !nat.isInside(destination.host) else { break }
            if destination.host == nat.publicIP {
                nat.countHairpin()
                return nil
            }
            guard let translated = nat.translateOut(source, to: destination, at: loop.elapsedTime) else { return nil }
            source = translated
        }
        if source != sender, isBlocked(from: source, to: destination) { return nil }
        return source
    }

    /// The host a datagram from `source` to `destination` reaches through the NATs at the far end, or `nil` when
    /// a NAT filters it or a drop rule does.
    func routeDatagramIn(from source: SocketAddress, to destination: SocketAddress) -> SocketAddress? {
        // A private address is reachable only from its own LAN: nothing routes to it from outside.
        if let nat = natsByInsideHost[destination.host], !nat.isInside(source.host) {
            nat.countUnroutable()
            return nil
        }
        var target = destination
        for _ in 0..<Self.natDepthLimit {
            guard let nat = natsByPublicIP[target.host] else { break }
            guard let inside = nat.translateIn(target, from: source, at: loop.elapsedTime) else { return nil }
            target = inside
        }
        if target != destination, isBlocked(from: source, to: target) { return nil }
        return target
    }

    /// Whether a rule drops UDP from `source` to `destination`; counted when one does.
    private func isBlocked(from source: SocketAddress, to destination: SocketAddress) -> Bool {
        guard !udpBlocks.isEmpty else { return false }
        let blocked =
            udpBlocks.contains(UDPBlock(from: source.host, to: destination.host, port: nil))
            || udpBlocks.contains(UDPBlock(from: source.host, to: destination.host, port: destination.port))
        if blocked { blockedDatagramCount += 1 }
        return blocked
    }

    /// The NATs a stream connection from `local` to `remote` crosses: the address the far end sees and the
    /// mappings made on the way; `nil` when the connection must be refused (to a NAT's public address, or no
    /// free port).
    func routeStreamOut(from local: SocketAddress, to remote: SocketAddress) -> StreamRoute? {
        var route = StreamRoute(outside: local, hops: [])
        for _ in 0..<Self.natDepthLimit {
            guard let nat = natsByInsideHost[route.outside.host], !nat.isInside(remote.host) else { break }
            if remote.host == nat.publicIP {
                nat.countHairpin()
                route.release()
                return nil
            }
            guard let outside = nat.openStream(from: route.outside, to: remote) else {
                route.release()
                return nil
            }
            route.hops.append((nat, outside.port))
            route.outside = outside
        }
        // To a NAT's public address (no port forwarding), or to a private address from outside its LAN.
        let unroutable = natsByInsideHost[remote.host].map { !$0.isInside(local.host) } ?? false
        if natsByPublicIP[remote.host] != nil || unroutable {
            if unroutable { natsByInsideHost[remote.host]?.countUnroutable() }
            route.release()
            return nil
        }
        return route
    }
}

/// A drop rule of ``VirtualNetwork/blockUDP(from:to:port:)``.
struct UDPBlock: Hashable {
    var from: String
    var to: String
    var port: UInt16?
}

/// The NATs a stream connection crosses on its way out.
struct StreamRoute {
    /// The address the far end sees.
    var outside: SocketAddress
    /// Each NAT crossed, with the public port of the connection's mapping there.
    var hops: [(nat: VirtualNAT, port: UInt16)]

    var isTranslated: Bool { !hops.isEmpty }

    /// Gives the mappings back.
    func release() {
        for hop in hops { hop.nat.closeStream(port: hop.port) }
    }
}
