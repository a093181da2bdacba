import SIPTransport
import SwitchboardTesting
import Synchronization

/// What a scripted peer received, with sources, for the NAT and TURN tests.
final class DatagramInbox: Sendable {
    private let arrived = Mutex<[(bytes: [UInt8], source: SocketAddress)]>([])

    /// Starts collecting what `peer` receives.
    init(_ peer: ScriptedPeer) {
        peer.onDatagram { [self] bytes, source in self.arrived.withLock { $0.append((bytes, source)) } }
    }

    var all: [(bytes: [UInt8], source: SocketAddress)] { arrived.withLock { $0 } }
    var texts: [String] { all.map { String(decoding: $0.bytes, as: UTF8.self) } }
    var sources: [SocketAddress] { all.map(\.source) }
    var count: Int { arrived.withLock { $0.count } }

    /// Takes everything received so far.
    func take() -> [(bytes: [UInt8], source: SocketAddress)] {
        arrived.withLock { taken in
            defer { taken.removeAll() }
            return taken
        }
    }
}

func socketAddress(_ ip: String, _ port: UInt16) -> SocketAddress {
    guard let address = SocketAddress(ip: ip, port: port) else { fatalError("bad address \(ip)") }
    return address
}
