import Glibc
import STUN

/// The wall clock as the sans-I/O cores want it: nanoseconds on the monotonic clock.
func now() -> STUNInstant {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return STUNInstant(nanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
}

/// The socket's local port.
func localPort(_ fd: Int32) -> UInt16 {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    _ = withUnsafeMutablePointer(to: &storage) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    // sin_port and sin6_port sit at the same offset, right after the family.
    let port = withUnsafeBytes(of: &storage) { $0.load(fromByteOffset: 2, as: UInt16.self) }
    return UInt16(bigEndian: port)
}

/// A socket of `type` (SOCK_DGRAM or SOCK_STREAM) connected to HOST:PORT; nil if the address does not parse
/// or the socket or the connect fails.
func connectedSocket(host: String, port: UInt16, type: Int32 = Int32(SOCK_DGRAM.rawValue)) -> Int32? {
    var v4 = sockaddr_in()
    var v6 = sockaddr_in6()
    if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
        v4.sin_family = sa_family_t(AF_INET)
        v4.sin_port = port.bigEndian
        let fd = socket(AF_INET, type, 0)
        guard fd >= 0 else { return nil }
        let ok = withUnsafePointer(to: &v4) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if ok != 0 { close(fd) }
        return ok == 0 ? fd : nil
    }
    if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
        v6.sin6_family = sa_family_t(AF_INET6)
        v6.sin6_port = port.bigEndian
        let fd = socket(AF_INET6, type, 0)
        guard fd >= 0 else { return nil }
        let ok = withUnsafePointer(to: &v6) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
            }
        }
        if ok != 0 { close(fd) }
        return ok == 0 ? fd : nil
    }
    return nil
}
