import SIPTransport
import STUN

extension SocketAddress {
    /// The address as STUN carries it.
    var stunAddress: STUNTransportAddress? {
        STUNIPAddress(bytes: addressBytes).map { STUNTransportAddress(address: $0, port: port) }
    }
}

extension STUNTransportAddress {
    /// The address as the network takes it.
    var socketAddress: SocketAddress? { SocketAddress(ip: address.description, port: port) }
}
