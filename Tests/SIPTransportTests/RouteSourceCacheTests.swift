import Glibc
import Testing

@testable import SIPTransport

@Suite("Route source cache")
struct RouteSourceCacheTests {
    let remote = SocketAddress(ipv4: in_addr(s_addr: UInt32(0xC000_0207).bigEndian), port: 5060)
    let source = SocketAddress(ipv4: in_addr(s_addr: UInt32(0x0A00_0002).bigEndian), port: 0)

    /// 198.51.A.B, port 5060.
    static func host(_ a: UInt32, _ b: UInt32) -> SocketAddress {
        SocketAddress(ipv4: in_addr(s_addr: (0xC633_0000 | a << 8 | b).bigEndian), port: 5060)
    }

    @Test func aRouteIsAskedOnceASecondPerRemoteAddress() {
        var cache = RouteSourceCache()
        var asked: [SocketAddress] = []
        let start = ContinuousClock.Instant.now
        let lookup: (SocketAddress) -> SocketAddress? = {
            asked.append($0); return source
        }
        #expect(cache.source(to: remote, now: start, lookup: lookup) == source)
        // Another port of the same host takes the same route.
        #expect(cache.source(to: remote.with(port: 5080), now: start + .milliseconds(999), lookup: lookup) == source)
        #expect(asked.count == 1)
        #expect(cache.source(to: remote, now: start + .seconds(1), lookup: lookup) == source)
        #expect(asked.count == 2)
        let other = Self.host(0, 8)
        _ = cache.source(to: other, now: start + .seconds(1), lookup: lookup)
        #expect(asked == [remote, remote, other])
    }

    @Test func noRouteIsRememberedToo() {
        var cache = RouteSourceCache()
        var count = 0
        let start = ContinuousClock.Instant.now
        let lookup: (SocketAddress) -> SocketAddress? = { _ in
            count += 1
            return nil
        }
        #expect(cache.source(to: remote, now: start, lookup: lookup) == nil)
        #expect(cache.source(to: remote, now: start, lookup: lookup) == nil)
        #expect(count == 1)
    }

    @Test func theTableStaysBounded() {
        var cache = RouteSourceCache()
        var count = 0
        let start = ContinuousClock.Instant.now
        for i in 0..<300 {
            let ip = i < 250 ? "198.51.100.\(i)" : "203.0.113.\(i - 250)"
            _ = cache.source(to: SocketAddress(ip: ip, port: 5060)!, now: start) { _ in
                count += 1; return source
            }
        }
        #expect(count == 300)
        #expect(cache.count <= RouteSourceCache.capacity)
    }
}
