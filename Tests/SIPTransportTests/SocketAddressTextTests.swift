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

    /// The C library's reading of `text` as an IPv4 address, in host order.
    static func libcParse(_ text: String) -> UInt32? {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
        return UInt32(bigEndian: address.s_addr)
    }

    @Test func ipv4TextReadsAsTheCLibraryReadsIt() {
        var texts = [
            "127.0.0.1", "0.0.0.0", "255.255.255.255", "10.0.0.1", "192.168.100.9", "256.1.1.1", "1.2.3",
            "1.2.3.4.5", "01.2.3.4", "1.2.3.04", "1..2.3", ".1.2.3", "1.2.3.", "1.2.3.4 ", " 1.2.3.4", "1.2.3.-4",
            "1.2.3.4:5060", "", "a.b.c.d", "1.2.3.1000", "0.0.0.00", "::1", "::ffff:1.2.3.4",
        ]
        var state: UInt32 = 0x8765_4321
        for _ in 0..<500 {
            state = state &* 1_664_525 &+ 1_013_904_223
            texts.append(Self.libc(state))
        }
        for text in texts {
            let expected = Self.libcParse(text).map { SocketAddress(ipv4: in_addr(s_addr: $0.bigEndian), port: 7) }
            let parsed = SocketAddress(ip: text, port: 7)
            if let expected {
                #expect(parsed == expected, "\(text)")
            } else {
                #expect(parsed == nil || parsed?.family == .ipv6, "\(text)")
            }
            if let quad = SocketAddress.dottedQuad(text) { #expect(quad == Self.libcParse(text), "\(text)") }
        }
    }

    @Test func ipv6HostsStillComeFromTheCLibrary() {
        #expect(SocketAddress(ip: "::1", port: 5060)?.host == "::1")
        #expect(SocketAddress(ip: "2001:db8::7", port: 5060)?.uriHost == "[2001:db8::7]")
    }
}
