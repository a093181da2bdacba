import CSystem
import STUN

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One IPv4 UDP socket for the SDP mode's media (RTP, RTCP, STUN and DTLS share it, RFC 7983), read with
/// `poll` by a single-threaded loop. IPv4 only: the suite runs on 127.0.0.1.
final class UDPPort {
    /// The largest datagram read; longer ones are dropped.
    static let capacity = 2048

    let fd: Int32
    /// The bound address (the port the kernel chose when asked for 0).
    let local: STUNTransportAddress

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Binds `address:port` (port 0: any).
    init(address: String, port: UInt16) throws(Failure) {
        var binary = in_addr()
        guard inet_pton(AF_INET, address, &binary) == 1 else {
            throw Failure(description: "not an IPv4 address: \(address)")
        }
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = port.bigEndian
        sin.sin_addr = binary
        let bound = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw Failure(description: "bind \(address):\(port): errno \(code)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let octets = withUnsafeBytes(of: sin.sin_addr) { Array($0) }
        guard let ip = STUNIPAddress(bytes: octets) else {
            close(fd)
            throw Failure(description: "no local address")
        }
        self.fd = fd
        local = STUNTransportAddress(address: ip, port: UInt16(bigEndian: sin.sin_port))
    }

    deinit { close(fd) }

    /// Sends one datagram; IPv6 destinations are ignored (the socket is IPv4).
    func send(_ bytes: [UInt8], to destination: STUNTransportAddress) {
        let octets = destination.address.bytes
        guard octets.count == 4 else { return }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = destination.port.bigEndian
        withUnsafeMutableBytes(of: &sin.sin_addr) { $0.copyBytes(from: octets) }
        _ = bytes.withUnsafeBytes { payload in
            withUnsafePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, payload.baseAddress, payload.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// Waits up to `milliseconds` for a datagram; `nil` when none came (or on an error other than a signal).
    func receive(waiting milliseconds: Int32) -> (bytes: [UInt8], source: STUNTransportAddress)? {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, max(milliseconds, 0)) > 0 else { return nil }
        var sin = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        var buffer = [UInt8](repeating: 0, count: Self.capacity)
        let count = buffer.withUnsafeMutableBytes { raw in
            withUnsafeMutablePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    recvfrom(fd, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT | MSG_TRUNC), $0, &length)
                }
            }
        }
        guard count > 0, count <= Self.capacity else { return nil }
        let octets = withUnsafeBytes(of: sin.sin_addr) { Array($0) }
        guard let ip = STUNIPAddress(bytes: octets) else { return nil }
        return (Array(buffer[0..<count]), STUNTransportAddress(address: ip, port: UInt16(bigEndian: sin.sin_port)))
    }
}
