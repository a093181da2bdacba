import Foundation
import SIPTransport
import SwitchboardTesting

#if canImport(Glibc)
    import Glibc
#endif

/// A UDP socket on loopback that receives and never answers: a peer that times every request out.
final class SilentUDPPeer: Sendable {
    let fd: Int32
    let port: UInt16
    /// The same peer on a virtual world's network, when the test runs in one.
    let scripted: ScriptedPeer?

    /// A peer on 127.0.0.1 of `world`'s network, or on a loopback socket without one.
    convenience init(world: VirtualWorld?) throws {
        guard let world else {
            try self.init()
            return
        }
        let peer = try ScriptedPeer(world: world, host: "127.0.0.1")
        self.init(scripted: peer)
    }

    private init(scripted: ScriptedPeer) {
        self.fd = -1
        self.port = scripted.address.port
        self.scripted = scripted
    }

    init() throws {
        scripted = nil
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        self.port = UInt16(bigEndian: address.sin_port)
    }

    /// Sends one datagram to 127.0.0.1:`port`.
    func send(_ text: String, toPort port: UInt16) {
        if let scripted, let address = SocketAddress(ip: "127.0.0.1", port: port) {
            scripted.send(text, to: address)
            return
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        address.sin_port = port.bigEndian
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { raw in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// The next datagram received within `seconds`, as text (waiting off the cooperative pool).
    func receive(seconds: Double) async -> String? {
        if let scripted { return scripted.receive(within: .milliseconds(Int(seconds * 1000))) }
        return await offPool { self.receiveBlocking(seconds: seconds) }
    }

    private func receiveBlocking(seconds: Double) -> String? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(seconds * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = recv(fd, &buffer, buffer.count, 0)
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : nil
    }

    func close() {
        if let scripted {
            scripted.close()
        } else {
            _ = Glibc.close(fd)
        }
    }
}
