import SIPTransport
import STUN

// One place for the two forms of a transport address: the sockets' and STUN's (and so ICE's).

extension STUNTransportAddress {
    /// The socket address as STUN writes it.
    init?(_ socket: SocketAddress) {
        guard let ip = STUNIPAddress(bytes: socket.addressBytes) else { return nil }
        self.init(address: ip, port: socket.port)
    }
}

extension SocketAddress {
    /// The STUN address as a socket address.
    init?(_ address: STUNTransportAddress) {
        self.init(ip: address.address.description, port: address.port)
    }
}

extension STUNIPAddress {
    /// 0.0.0.0 or ::, the address of "no address" (RFC 3264 §8.4 hold, RFC 8840 trickle).
    var isUnspecified: Bool {
        switch self {
        case .v4(let value): value == 0
        case .v6(let high, let low): high == 0 && low == 0
        }
    }
}
