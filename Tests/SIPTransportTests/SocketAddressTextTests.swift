import Glibc
import Testing

@testable import SIPTransport

@Suite("Socket address text")
struct SocketAddressTextTests {
    /// The C library's text for an IPv4 address in host order.
    static func libc(_ value: UInt32) -> String {
        var address = in_addr(s_addr: value.bigEndian)
        var buffer = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        _ = inet_ntop(AF_INET, &address, &buffer, socklen_t(buffer.count))
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    @Test func ipv4HostsReadAsTheCLibraryWritesThem() {
        var values: [UInt32] = [0, 0xFFFF_FFFF, 0x7F00_0001, 0x0A00_0001, 0xC0A8_6409, 0x6464_6464, 0x0909_0909]
        var state: UInt32 = 0x1234_5678
        for _ in 0..<2000 {
            state = state &* 1_664_525 &+ 1_013_904_223
            values.append(state)
        }
        for value in values {
            let address = SocketAddress(ipv4: in_addr(s_addr: value.bigEndian), port: 5060)
            #expect(address.host == Self.libc(value))
        }
    }

    @Test func ipv6HostsStillComeFromTheCLibrary() {
        #expect(SocketAddress(ip: "::1", port: 5060)?.host == "::1")
        #expect(SocketAddress(ip: "2001:db8::7", port: 5060)?.uriHost == "[2001:db8::7]")
    }
}
