import CSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An IPv4 or IPv6 address and port, as a value.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    public enum Family: Sendable, Hashable {
        case ipv4
        case ipv6
    }

    public let family: Family
    /// 4 or 16 address bytes, network order, packed into two words.
    let high: UInt64
    let low: UInt64
    public let port: UInt16
    public let scopeID: UInt32

    /// An address from its numeric text (`127.0.0.1`, `::1`, `[::1]`) and a port; `nil` if it is not one.
    public init?(ip: String, port: UInt16) {
        // The usual case, read in place; anything else (brackets, IPv6, odd forms) goes to `inet_pton`.
        if let value = Self.dottedQuad(ip) {
            self.init(ipv4: in_addr(s_addr: value.bigEndian), port: port)
            return
        }
        var text = ip
        if text.hasPrefix("["), text.hasSuffix("]") {
            text.removeFirst()
            text.removeLast()
        }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.init(ipv4: v4, port: port)
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self.init(ipv6: v6, port: port, scopeID: 0)
            return
        }
        return nil
    }

    /// An IPv4 address written as four decimal octets without leading zeros (`127.0.0.1`), as its host-order
    /// value; `nil` for any other text, which `inet_pton` then judges (it takes every text this takes, with
    /// the same value). No C string is made: a received Via's sent-by is checked this way per request.
    static func dottedQuad(_ text: String) -> UInt32? {
        var text = text
        return text.withUTF8 { dottedQuad($0) }
    }

    private static func dottedQuad(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32? {
        var value: UInt32 = 0
        var octet: UInt32 = 0
        var digits = 0
        var dots = 0
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, dots < 3 else { return nil }
                value = value << 8 | octet
                octet = 0
                digits = 0
                dots += 1
            } else {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits == 0 || octet != 0 else {
                    return nil
                }
                octet = octet * 10 + UInt32(byte - UInt8(ascii: "0"))
                digits += 1
                guard octet <= 255 else { return nil }
            }
        }
        guard dots == 3, digits > 0 else { return nil }
        return value << 8 | octet
    }

    /// Parses `host:port`, `[v6]:port`, or a bare address with `defaultPort`.
    public init?(parsing text: String, defaultPort: UInt16) {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            var port = defaultPort
            if rest.hasPrefix(":") {
                guard let p = UInt16(rest.dropFirst()) else { return nil }
                port = p
            } else if !rest.isEmpty {
                return nil
            }
            self.init(ip: host, port: port)
            return
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 2 {
            guard let port = UInt16(parts[1]) else { return nil }
            self.init(ip: String(parts[0]), port: port)
        } else {
            self.init(ip: text, port: defaultPort)
        }
    }

    init(ipv4 address: in_addr, port: UInt16) {
        family = .ipv4
        high = 0
        low = UInt64(UInt32(bigEndian: address.s_addr))
        self.port = port
        scopeID = 0
    }

    init(ipv6 address: in6_addr, port: UInt16, scopeID: UInt32) {
        family = .ipv6
        var h: UInt64 = 0
        var l: UInt64 = 0
        withUnsafeBytes(of: address) { raw in
            for i in 0..<8 { h = h << 8 | UInt64(raw[i]) }
            for i in 8..<16 { l = l << 8 | UInt64(raw[i]) }
        }
        high = h
        low = l
        self.port = port
        self.scopeID = scopeID
    }

    /// Reads a `sockaddr_storage` filled by the kernel.
    init?(_ storage: sockaddr_storage) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let sin = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            self.init(ipv4: sin.sin_addr, port: UInt16(bigEndian: sin.sin_port))
        case AF_INET6:
            let sin6 = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            self.init(ipv6: sin6.sin6_addr, port: UInt16(bigEndian: sin6.sin6_port), scopeID: sin6.sin6_scope_id)
        default:
            return nil
        }
    }

    /// The address with another port.
    public func with(port: UInt16) -> SocketAddress {
        SocketAddress(family: family, high: high, low: low, port: port, scopeID: scopeID)
    }

    private init(family: Family, high: UInt64, low: UInt64, port: UInt16, scopeID: UInt32) {
        self.family = family
        self.high = high
        self.low = low
        self.port = port
        self.scopeID = scopeID
    }

    /// The IPv4 loopback address.
    public static func loopback(port: UInt16 = 0) -> SocketAddress {
        SocketAddress(family: .ipv4, high: 0, low: 0x7F00_0001, port: port, scopeID: 0)
    }

    /// The IPv6 loopback address.
    public static func loopbackIPv6(port: UInt16 = 0) -> SocketAddress {
        SocketAddress(family: .ipv6, high: 0, low: 1, port: port, scopeID: 0)
    }

    /// The address bytes (4 or 16), network order.
    public var addressBytes: [UInt8] {
        switch family {
        case .ipv4:
            return (0..<4).map { UInt8(truncatingIfNeeded: low >> (24 - 8 * UInt64($0))) }
        case .ipv6:
            return (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64($0))) }
                + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64($0))) }
        }
    }

    /// Whether this is an unspecified (0.0.0.0 or ::) address.
    public var isUnspecified: Bool { high == 0 && low == 0 }

    /// The numeric host text, without brackets (`127.0.0.1`, `::1`).
    public var host: String {
        if family == .ipv4 { return Self.dottedQuad(UInt32(truncatingIfNeeded: low)) }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        withSockAddr { address, _ in
            switch family {
            case .ipv4:
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    var a = sin.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count))
                }
            case .ipv6:
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                    var a = sin6.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &a, &buffer, socklen_t(buffer.count))
                }
            }
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `a.b.c.d` for an IPv4 address in host order, written digit by digit: every request and response
    /// names an address (Via, Contact, SDP), and the C library's formatter goes through printf.
    static func dottedQuad(_ address: UInt32) -> String {
        String(unsafeUninitializedCapacity: 15) { buffer in
            var count = 0
            for shift in stride(from: 24, through: 0, by: -8) {
                let octet = Int((address >> UInt32(shift)) & 0xFF)
                if octet >= 100 {
                    buffer[count] = UInt8(ascii: "0") + UInt8(octet / 100)
                    count += 1
                }
                if octet >= 10 {
                    buffer[count] = UInt8(ascii: "0") + UInt8(octet / 10 % 10)
                    count += 1
                }
                buffer[count] = UInt8(ascii: "0") + UInt8(octet % 10)
                count += 1
                if shift > 0 {
                    buffer[count] = UInt8(ascii: ".")
                    count += 1
                }
            }
            return count
        }
    }

    /// The host as it appears in a URI or Via (IPv6 in brackets).
    public var uriHost: String { family == .ipv6 ? "[\(host)]" : host }

    public var description: String { "\(uriHost):\(port)" }

    /// Calls `body` with this address as a `sockaddr` and its length.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> R) rethrows -> R {
        switch family {
        case .ipv4:
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = port.bigEndian
            sin.sin_addr = in_addr(s_addr: UInt32(truncatingIfNeeded: low).bigEndian)
            return try withUnsafePointer(to: &sin) { p in
                try p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    try body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .ipv6:
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = port.bigEndian
            sin6.sin6_scope_id = scopeID
            withUnsafeMutableBytes(of: &sin6.sin6_addr) { raw in
                for i in 0..<8 { raw[i] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(i))) }
                for i in 0..<8 { raw[8 + i] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(i))) }
            }
            return try withUnsafePointer(to: &sin6) { p in
                try p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    try body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }
}
