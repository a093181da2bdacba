public import SIPCore
public import SIPTransaction
public import SIPTransport

extension VirtualNetwork {
    /// A SIP transport layer for the host at `ip`, on this network's loop: the real transport code over
    /// virtual sockets.
    public func makeTransportLayer(host ip: String, configuration: TransportConfiguration = TransportConfiguration())
        -> SIPTransportLayer
    {
        SIPTransportLayer(loop: loop, network: host(ip), configuration: configuration)
    }

    /// A started signalling core for the host at `ip` listening on `listeners` (port 0 picks one), its
    /// branches, tags and Call-IDs drawn from `seed`.
    public func makeCore(
        host ip: String, listening listeners: [TransportProtocol] = [.udp], port: UInt16 = 5060,
        transport configuration: TransportConfiguration = TransportConfiguration(),
        transactions: TransactionConfiguration = TransactionConfiguration(), seed: UInt64 = 1
    ) throws(TransportError) -> SIPCore {
        let transport = makeTransportLayer(host: ip, configuration: configuration)
        let core = SIPCore(transport: transport, configuration: transactions, random: SeededRandomBytes(seed: seed))
        guard let address = SocketAddress(ip: ip, port: port) else {
            throw TransportError(.invalidAddress, "not an IP address: \(ip)")
        }
        try loop.withLoop { () throws(TransportError) in
            for kind in listeners { try transport.listen(kind, on: address) }
            core.start()
        }
        return core
    }

    /// A media socket bound on this network (port 0 picks one).
    public func makeDatagramSocket(binding address: SocketAddress) throws(TransportError) -> DatagramSocket {
        try DatagramSocket(binding: address, on: host(address.host))
    }
}
