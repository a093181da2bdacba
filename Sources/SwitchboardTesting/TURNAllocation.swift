import SIPTransport
import STUN

/// Where a TURN request came from: the client's transport address as the server sees it (after any NAT) and
/// the transport, which with the server's address make the 5-tuple that names an allocation (RFC 8656 §2).
struct TURNClientKey: Hashable {
    var kind: NetworkRecord.Kind
    var address: SocketAddress
}

/// One allocation of a ``VirtualTURNServer`` (RFC 8656 §2.2, §6): the relayed address with its socket, the
/// permissions and channels, and when it all expires. Times are the loop's elapsed virtual time.
final class TURNAllocation {
    let client: TURNClientKey
    let username: String
    let key: STUNKey
    let relay: DatagramSocket
    let relayed: STUNTransportAddress
    let mapped: STUNTransportAddress
    /// The Allocate that made it, and the answer, for a retransmission of that request (§7.2).
    let allocateTransactionID: STUNTransactionID
    var allocateLifetime: UInt32
    var expiresAt: Duration
    var expiryTimer: TimerHandle?
    /// Each permitted peer IP address and when its permission ends (§9).
    var permissions: [STUNIPAddress: Duration] = [:]
    /// Each bound channel, its peer and when the binding ends (§12).
    var channels: [TURNChannelNumber: (peer: STUNTransportAddress, expiresAt: Duration)] = [:]

    init(
        client: TURNClientKey, username: String, key: STUNKey, relay: DatagramSocket, relayed: STUNTransportAddress,
        mapped: STUNTransportAddress, allocateTransactionID: STUNTransactionID, lifetime: UInt32, expiresAt: Duration
    ) {
        self.client = client
        self.username = username
        self.key = key
        self.relay = relay
        self.relayed = relayed
        self.mapped = mapped
        self.allocateTransactionID = allocateTransactionID
        self.allocateLifetime = lifetime
        self.expiresAt = expiresAt
    }

    func hasPermission(for address: STUNIPAddress, at now: Duration) -> Bool {
        permissions[address].map { now < $0 } ?? false
    }

    /// The live channel bound to `peer`.
    func channel(for peer: STUNTransportAddress, at now: Duration) -> TURNChannelNumber? {
        channels.first { $0.value.peer == peer && now < $0.value.expiresAt }?.key
    }

    /// The peer of a live channel.
    func peer(of channel: TURNChannelNumber, at now: Duration) -> STUNTransportAddress? {
        guard let binding = channels[channel], now < binding.expiresAt else { return nil }
        return binding.peer
    }

    func livePermissions(at now: Duration) -> Int { permissions.values.filter { now < $0 }.count }
    func liveChannels(at now: Duration) -> Int { channels.values.filter { now < $0.expiresAt }.count }

    /// Forgets permissions and channels that have ended.
    func purge(at now: Duration) {
        permissions = permissions.filter { now < $0.value }
        channels = channels.filter { now < $0.value.expiresAt }
    }
}
