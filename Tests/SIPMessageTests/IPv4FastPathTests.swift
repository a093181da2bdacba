import Testing

@testable import SIPMessage

/// `SIPHost.ipv4End` (the unrolled reader of `ByteScanner.readHost`) must end every input where `scanIPv4` (the
/// one general dotted-quad reader) ends it, and reject what it rejects.
@Suite("IPv4 fast path")
struct IPv4FastPathTests {
    static func same(_ text: [UInt8], from start: Int = 0, to end: Int? = nil) -> Bool {
        text.withUnsafeBufferPointer { buffer in
            let stop = end ?? buffer.count
            return SIPHost.ipv4End(buffer, from: start, to: stop)
                == SIPHost.scanIPv4(buffer, from: start, to: stop)?.end
        }
    }

    @Test(
        arguments: [
            "192.0.2.10", "0.0.0.0", "255.255.255.255", "256.1.1.1", "1.2.3.256", "01.002.000.9", "0001.2.3.4",
            "1.2.3.4.", "1.2.3.4.5", "1.2.3", "1.2.3.", "1..2.3", ".1.2.3.4", "1.2.3.4:5060", "1.2.3.4;lr",
            "1.2.3.4a", "1.2.3.4-", "1.2.3.1000", "999.1.1.1", "1.2.3.4>", "", "1", "12", "123", "1234",
            "198.51.100.20:5060;transport=udp", "10.0.0.1.example.com",
        ])
    func examples(text: String) {
        #expect(Self.same(Array(text.utf8)))
    }

    /// Every string of up to six bytes over digits, dots and one other byte, and every prefix length of each (the
    /// `end` bound cutting an address short).
    @Test func exhaustiveShortInputs() {
        let alphabet: [UInt8] = Array("0129.5x".utf8)
        var mismatches = 0
        forEachString(over: alphabet, upTo: 6) { text in
            for end in 0...text.count where !Self.same(text, to: end) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    /// Pseudo-random (fixed seed) runs of octets of up to four digits and dots, read from every start.
    @Test func generatedAddresses() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33) % bound
        }
        let pieces: [String] = ["0", "1", "25", "255", "256", "009", "1000", "99", ".", "."]
        var mismatches = 0
        for _ in 0..<5_000 {
            var text = ""
            for _ in 0...next(9) { text += pieces[next(pieces.count)] }
            let bytes = Array(text.utf8)
            for start in 0...bytes.count where !Self.same(bytes, from: start) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }
}
