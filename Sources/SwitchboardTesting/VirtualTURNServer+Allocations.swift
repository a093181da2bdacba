import SIPTransport
import STUN

/// Allocate, Refresh, CreatePermission and ChannelBind (RFC 8656 §7, §8, §10, §12), and expiry.
extension VirtualTURNServer {
    /// How long a permission lasts (RFC 8656 §9).
    static var permissionLifetime: Duration { .seconds(300) }
    /// How long a channel binding lasts (RFC 8656 §12).
    static var channelLifetime: Duration { .seconds(600) }

    // MARK: Allocate

    func allocate(_ context: RequestContext) -> [UInt8] {
        if let existing = allocations[context.client] {
            // §7.2: a retransmission of the Allocate that made it gets the same answer; anything else 437.
            guard existing.allocateTransactionID == context.id else {
                return context.error(.allocationMismatch, "Allocation Mismatch")
            }
            return allocated(existing, context)
        }
        guard let transport = context.request.requestedTransport else {
            return context.error(.badRequest, "Missing REQUESTED-TRANSPORT")
        }
        guard transport == .udp else {
            return context.error(.unsupportedTransportProtocol, "Unsupported Transport Protocol")
        }
        let family: TURNAddressFamily = address.family == .ipv4 ? .ipv4 : .ipv6
        if let asked = context.request.requestedAddressFamily, asked != family {
            return context.error(.addressFamilyNotSupported, "Address Family not Supported")
        }
        guard allocations.count < settings.maximumAllocations else {
            return context.error(.allocationQuotaReached, "Allocation Quota Reached")
        }
        guard let relay = bindRelay(even: context.request[.evenPort] != nil),
            let relayed = relay.localAddress.stunAddress, let mapped = context.client.address.stunAddress
        else {
            return context.error(.insufficientCapacity, "Insufficient Capacity")
        }
        let lifetime = desiredLifetime(context.request.lifetimeSeconds)
        let allocation = TURNAllocation(
            client: context.client, username: context.username, key: context.key, relay: relay, relayed: relayed,
            mapped: mapped, allocateTransactionID: context.id, lifetime: lifetime,
            expiresAt: world.loop.elapsedTime + .seconds(lifetime))
        allocations[context.client] = allocation
        counters.allocationsMade += 1
        watchRelay(allocation)
        scheduleExpiry(allocation)
        return allocated(allocation, context)
    }

    private func allocated(_ allocation: TURNAllocation, _ context: RequestContext) -> [UInt8] {
        context.success([
            .xorRelayedAddress(allocation.relayed, transactionID: context.id),
            .lifetime(seconds: allocation.allocateLifetime),
            .xorMappedAddress(allocation.mapped, transactionID: context.id),
        ])
    }

    /// RFC 8656 §7.2, §8: the client's ask capped at the maximum, but never under the default.
    private func desiredLifetime(_ requested: UInt32?) -> UInt32 {
        let maximum = UInt32(clamping: settings.maximumLifetime.components.seconds)
        let standard = UInt32(clamping: settings.defaultLifetime.components.seconds)
        guard let requested else { return standard }
        return max(standard, min(requested, maximum))
    }

    /// A relay socket on a port drawn from ``relayPorts`` (even when asked, §7.2), or the next free one.
    private func bindRelay(even: Bool) -> DatagramSocket? {
        let range = settings.relayPorts
        let count = Int(range.upperBound) - Int(range.lowerBound) + 1
        let start = Int.random(in: 0..<count, using: &world.network.random)
        for step in 0..<count {
            let port = Int(range.lowerBound) + (start + step) % count
            if even, port % 2 != 0 { continue }
            guard let bind = SocketAddress(ip: address.host, port: UInt16(port)) else { return nil }
            if let socket = try? world.network.makeDatagramSocket(binding: bind) { return socket }
        }
        return nil
    }

    private func scheduleExpiry(_ allocation: TURNAllocation) {
        if let timer = allocation.expiryTimer { world.loop.cancelTimer(timer) }
        let delay = allocation.expiresAt - world.loop.elapsedTime
        allocation.expiryTimer = world.loop.scheduleTimer(after: delay) { [weak self, weak allocation] in
            guard let self, let allocation, self.allocations[allocation.client] === allocation else { return }
            self.deleteAllocation(of: allocation.client)
        }
    }

    /// Deletes the allocation of `client`, if any: its relayed address is freed at once.
    func deleteAllocation(of client: TURNClientKey) {
        guard let allocation = allocations.removeValue(forKey: client) else { return }
        if let timer = allocation.expiryTimer { world.loop.cancelTimer(timer) }
        allocation.relay.close()
    }

    // MARK: Refresh

    func refresh(_ allocation: TURNAllocation, _ context: RequestContext) -> [UInt8] {
        if context.request.lifetimeSeconds == 0 {
            deleteAllocation(of: allocation.client)
            return context.success([.lifetime(seconds: 0)])
        }
        let lifetime = desiredLifetime(context.request.lifetimeSeconds)
        allocation.expiresAt = world.loop.elapsedTime + .seconds(lifetime)
        scheduleExpiry(allocation)
        return context.success([.lifetime(seconds: lifetime)])
    }

    // MARK: Permissions and channels

    func createPermission(_ allocation: TURNAllocation, _ context: RequestContext) -> [UInt8] {
        let peers = context.request.xorPeerAddresses
        guard !peers.isEmpty else { return context.error(.badRequest, "Missing XOR-PEER-ADDRESS") }
        guard peers.allSatisfy({ sameFamily($0, allocation.relayed) }) else {
            return context.error(.peerAddressFamilyMismatch, "Peer Address Family Mismatch")
        }
        let now = world.loop.elapsedTime
        allocation.purge(at: now)
        let added = Set(peers.map(\.address)).subtracting(allocation.permissions.keys)
        guard allocation.permissions.count + added.count <= settings.maximumPermissions else {
            return context.error(.insufficientCapacity, "Insufficient Capacity")
        }
        for peer in peers { allocation.permissions[peer.address] = now + Self.permissionLifetime }
        return context.success([])
    }

    func channelBind(_ allocation: TURNAllocation, _ context: RequestContext) -> [UInt8] {
        guard let channel = context.request.channelNumber, let peer = context.request.xorPeerAddress else {
            return context.error(.badRequest, "Missing or invalid CHANNEL-NUMBER or XOR-PEER-ADDRESS")
        }
        guard sameFamily(peer, allocation.relayed) else {
            return context.error(.peerAddressFamilyMismatch, "Peer Address Family Mismatch")
        }
        let now = world.loop.elapsedTime
        allocation.purge(at: now)
        // §12.2: a channel is bound to one peer, and a peer to one channel.
        if let bound = allocation.channels[channel], bound.peer != peer {
            return context.error(.badRequest, "Channel bound to another peer")
        }
        if let other = allocation.channel(for: peer, at: now), other != channel {
            return context.error(.badRequest, "Peer bound to another channel")
        }
        let isNewPeer = allocation.permissions[peer.address] == nil
        guard !isNewPeer || allocation.permissions.count < settings.maximumPermissions else {
            return context.error(.insufficientCapacity, "Insufficient Capacity")
        }
        allocation.channels[channel] = (peer, now + Self.channelLifetime)
        allocation.permissions[peer.address] = now + Self.permissionLifetime
        return context.success([])
    }

    private func sameFamily(_ a: STUNTransportAddress, _ b: STUNTransportAddress) -> Bool {
        switch (a.address, b.address) {
        case (.v4, .v4), (.v6, .v6): true
        default: false
        }
    }
}
