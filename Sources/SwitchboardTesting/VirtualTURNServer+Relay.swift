import SIPTransport
import STUN

/// Data both ways (RFC 8656 §11, §12): Send indications and ChannelData from clients out of the relayed
/// address, and datagrams from permitted peers back as Data indications or ChannelData.
extension VirtualTURNServer {
    /// A Send indication (§11.2): relayed when the peer has a permission; anything else is dropped.
    func receiveIndication(_ message: STUNMessage, from client: TURNClientKey) {
        guard message.method == .send, let allocation = allocations[client], let peer = message.xorPeerAddress,
            let data = message.data
        else { return }
        relay(data, to: peer, from: allocation)
    }

    /// ChannelData from a client (§12.5): relayed to the channel's peer when bound and permitted.
    func receive(_ message: TURNChannelData, from client: TURNClientKey) {
        guard let allocation = allocations[client] else { return }
        guard let peer = allocation.peer(of: message.channel, at: world.loop.elapsedTime) else {
            counters.droppedWithoutPermission += 1
            return
        }
        relay(message.payload, to: peer, from: allocation)
    }

    private func relay(_ payload: [UInt8], to peer: STUNTransportAddress, from allocation: TURNAllocation) {
        guard allocation.hasPermission(for: peer.address, at: world.loop.elapsedTime),
            let destination = peer.socketAddress
        else {
            counters.droppedWithoutPermission += 1
            return
        }
        counters.relayedToPeers += 1
        _ = allocation.relay.send(payload, to: destination)
    }

    /// Reads what peers send to the allocation's relayed address.
    func watchRelay(_ allocation: TURNAllocation) {
        let socket = allocation.relay
        try? socket.watch(on: world.loop) { [weak self, weak allocation, unowned socket] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while let (count, source) = socket.receive(into: &buffer) {
                guard let self, let allocation else { return }
                self.deliver(Array(buffer[0..<count]), from: source, to: allocation)
            }
        }
    }

    /// A datagram from a peer (§11.3, §12.6): to the client as ChannelData when a channel is bound to the peer,
    /// else as a Data indication; dropped without a permission for the peer's address.
    private func deliver(_ payload: [UInt8], from source: SocketAddress, to allocation: TURNAllocation) {
        let now = world.loop.elapsedTime
        guard let peer = source.stunAddress, allocation.hasPermission(for: peer.address, at: now) else {
            counters.droppedWithoutPermission += 1
            return
        }
        counters.relayedToClients += 1
        let isStream = allocation.client.kind == .stream
        if let channel = allocation.channel(for: peer, at: now) {
            let message = TURNChannelData(channel: channel, payload: payload)
            return send(message.encoded(isStream: isStream), to: allocation.client)
        }
        let id = STUNTransactionID.random(using: &world.network.random)
        let indication = STUNMessage(
            .indication, .data, transactionID: id,
            attributes: [.xorPeerAddress(peer, transactionID: id), .data(payload)])
        send(indication.encoded(), to: allocation.client)
    }
}
