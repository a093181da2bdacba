public import SIPTransport

/// One live mapping of a ``VirtualNAT``: an inside address and the public address it goes out as.
public struct NATMapping: Sendable, Hashable, CustomStringConvertible {
    /// A datagram mapping (UDP), or the mapping of one stream connection (TCP).
    public var kind: NetworkRecord.Kind
    /// The address of the host behind the NAT.
    public var inside: SocketAddress
    /// The NAT's public address and the mapped port: what remotes see and send to.
    public var outside: SocketAddress
    /// The remotes the inside host sent to through this mapping, in address order: what filtering admits
    /// (RFC 4787 §5). A stream mapping has its one remote.
    public var remotes: [SocketAddress]
    /// The virtual time at which the mapping expires unless outbound traffic refreshes it; `nil` for a stream
    /// mapping, which lives as long as its connection.
    public var expiresAt: Duration?

    /// `udp 192.168.1.2:5060 as 203.0.113.1:5060 (2 remotes)`.
    public var description: String {
        let name = kind == .datagram ? "udp" : "tcp"
        return "\(name) \(inside) as \(outside) (\(remotes.count) remote\(remotes.count == 1 ? "" : "s"))"
    }
}

/// Addresses in a fixed order (bytes, then port), so what lists them repeats from run to run.
func addressOrder(_ a: SocketAddress, _ b: SocketAddress) -> Bool {
    let (x, y) = (a.addressBytes, b.addressBytes)
    if x != y { return x.lexicographicallyPrecedes(y) }
    return a.port < b.port
}
