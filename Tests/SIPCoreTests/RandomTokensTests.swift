import Testing

@testable import SIPCore

/// Bytes 0, 1, 2, ... 255, 0, 1, ... so that every 256-byte run holds the eight values (248-255) that
/// rejection sampling skips, and a 512-byte buffer is refilled in the middle of a token now and then.
private final class CountingBytes: RandomByteSource, @unchecked Sendable {
    // @unchecked Sendable: used by one test on one thread.
    private var next: UInt8 = 0
    func fill(_ raw: UnsafeMutableRawBufferPointer) {
        for i in raw.indices {
            raw[i] = next
            next &+= 1
        }
    }
}

@Suite("Random tokens") struct RandomTokensTests {
    private static let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)

    /// The characters the sampling rule picks from `bytes`, for comparison: skip bytes of 248 and up, map the
    /// rest modulo 62.
    private static func expected(_ count: Int, from next: inout UInt8) -> String {
        var out: [UInt8] = []
        while out.count < count {
            let byte = next
            next &+= 1
            if byte < 248 { out.append(alphabet[Int(byte % 62)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    @Test func tokensFollowTheSamplingRuleAcrossRefills() {
        var tokens = RandomTokens(source: CountingBytes())
        var reference: UInt8 = 0
        // 150 rounds draw about 9,000 characters: many refills, some inside a token.
        for _ in 0..<150 {
            let branch = tokens.branch()
            #expect(branch == "z9hG4bK" + Self.expected(16, from: &reference))
            #expect(branch.utf8.count == 23)
            let tag = tokens.tag()
            #expect(tag == Self.expected(10, from: &reference))
            let callID = tokens.callID()
            #expect(callID == Self.expected(20, from: &reference))
            #expect(tokens.token(7) == Self.expected(7, from: &reference))
        }
    }
}
