import Testing

@testable import SIPMessage

/// `SIPHost.fastHost` (the inlined host reader of the Via and URI fast paths) must read every host it takes as
/// `ByteScanner.readHost` reads it: the same end and kind. What it leaves (`nil`), `readHost` decides.
@Suite("Host fast path")
struct HostFastPathTests {
    /// `fastHost` and `readHost` on `text[start..<end]`: `nil` when `fastHost` declines, else whether they agree.
    static func agrees(_ text: [UInt8], from start: Int = 0, to end: Int? = nil) -> Bool? {
        text.withUnsafeBufferPointer { buffer in
            let stop = end ?? buffer.count
            guard let fast = SIPHost.fastHost(buffer, from: start, to: stop) else { return nil }
            let general = withUnsafePointer(to: text) { owner -> (Int, SIPHost.Kind)? in
                var scanner = ByteScanner(buffer, owner: owner, start..<stop)
                guard let (span, kind) = scanner.readHost() else { return nil }
                return span.start == UInt32(start) ? (scanner.index, kind) : nil
            }
            guard let general else { return false }
            return general.0 == fast.end && general.1 == fast.kind
        }
    }

    /// The hosts of the usual messages are read by the fast path, as `readHost` reads them.
    @Test(
        arguments: [
            "example.com", "example.org>", "192.0.2.10", "192.0.2.10:5060", "198.51.100.20;transport=udp",
            "atlanta.example.com;branch=z9hG4bK", "a", "a1-b.c2", "x--y.example", "pc33.atlanta.com>",
            "host.example.com,", "h.1a.example",
        ])
    func usualHostsTakeTheFastPath(text: String) {
        #expect(Self.agrees(Array(text.utf8)) == true)
    }

    /// Hosts that are not of the usual shape are left to `readHost`.
    @Test(
        arguments: [
            "", "[2001:db8::1]", "-a.com", "a-.com", "a..b", "example.com.", "example.com.:5060", "1.2.3.4a",
            "1.2.3.4.example", "1.2.3", "1abc.com", "a.1", "a.-b", ".a", "256.1.1.1",
        ])
    func unusualHostsAreLeftToTheGeneralReader(text: String) {
        #expect(Self.agrees(Array(text.utf8)) == nil)
    }

    /// Every string of up to six bytes over letters, digits, "-", ".", ":" and ">", read from every start to every
    /// end: wherever the fast path reads a host, `readHost` reads the same one.
    @Test func exhaustiveShortInputs() {
        let alphabet: [UInt8] = Array("a0-.:>".utf8)
        var mismatches = 0
        var taken = 0
        forEachString(over: alphabet, upTo: 6) { text in
            for start in 0..<max(text.count, 1) {
                for end in start...text.count {
                    switch Self.agrees(text, from: start, to: end) {
                    case nil: break
                    case true?: taken += 1
                    case false?: mismatches += 1
                    }
                }
            }
        }
        #expect(mismatches == 0)
        #expect(taken > 0)
    }

    /// `readUsualHost` (the Via reader's) gives what `readHost` gives, and leaves the scanner where it does, on
    /// usual hosts and on those it leaves to `readHost`.
    @Test(
        arguments: [
            "192.0.2.10:5060", "example.com;branch=z9hG4bK", "[2001:db8::1]:5060", "example.com.", "-a.com", "1.2.3.4a",
            "", "256.1.1.1", "a..b",
        ])
    func readUsualHostIsReadHost(text: String) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBufferPointer { buffer in
            withUnsafePointer(to: bytes) { owner in
                var usual = ByteScanner(buffer, owner: owner, 0..<buffer.count)
                var general = usual
                let a = usual.readUsualHost()
                let b = general.readHost()
                #expect(a?.span == b?.span)
                #expect(a?.kind == b?.kind)
                #expect(usual.index == general.index)
            }
        }
    }

    /// A hostname of more than 255 bytes is left to `readHost`, which rejects it.
    @Test func overlongHostname() {
        let long =
            Array((String(repeating: "a", count: 63) + ".").utf8) + Array(repeating: UInt8(ascii: "b"), count: 200)
        #expect(Self.agrees(long) == nil)
        #expect(Self.agrees(Array(long.prefix(255))) == true)
    }
}
