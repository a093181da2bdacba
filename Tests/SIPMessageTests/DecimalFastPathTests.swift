import Testing

@testable import SIPMessage

/// `readDecimal` (the one-pass digit reader of the CSeq, Via and SIP URI fast paths) must end and value every
/// input as `ByteScanner.skip(while: isDigit)` then `parseDecimal` with a count check do, and reject what they
/// reject.
@Suite("Decimal fast path")
struct DecimalFastPathTests {
    /// What the two-pass reading decides: the digits' end and value, or `nil`.
    static func twoPass(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, maxDigits: Int, limit: UInt64
    ) -> (end: Int, value: UInt64)? {
        let digitsEnd = ByteScanner.skip(bytes, from: start, to: end, while: { $0.isDigit })
        guard digitsEnd &- start <= maxDigits, let value = parseDecimal(bytes, start..<digitsEnd, limit: limit) else {
            return nil
        }
        return (digitsEnd, value)
    }

    static func same(_ text: [UInt8], to end: Int, maxDigits: Int, limit: UInt64) -> Bool {
        text.withUnsafeBufferPointer { buffer in
            let a = readDecimal(buffer, from: 0, to: end, maxDigits: maxDigits, limit: limit)
            let b = twoPass(buffer, from: 0, to: end, maxDigits: maxDigits, limit: limit)
            return a?.end == b?.end && a?.value == b?.value
        }
    }

    /// The limits and digit counts the fast readers use.
    static let shapes: [(maxDigits: Int, limit: UInt64)] = [
        (10, UInt64(CSeq.maximum)), (.max, 65535), (5, 65535), (3, 255), (.max, 9),
    ]

    @Test(
        arguments: [
            "0", "5060", "65535", "65536", "99999", "123456", "0065535", "00000000000000000000005060",
            "0000000000000000000065536", "2147483647", "2147483648", "4294967296", "12345678901", "0000000001",
            "1 INVITE", "5060;lr", "5060>", "", "x", ":5060", "18446744073709551616",
            "99999999999999999999999999",
        ])
    func examples(text: String) {
        let bytes = Array(text.utf8)
        for shape in Self.shapes {
            for end in 0...bytes.count {
                #expect(Self.same(bytes, to: end, maxDigits: shape.maxDigits, limit: shape.limit), "\(text) \(end)")
            }
        }
    }

    /// Every string of up to seven bytes over a few digits and one other byte, cut at every length.
    @Test func exhaustiveShortInputs() {
        let alphabet: [UInt8] = Array("0169 ".utf8)
        var mismatches = 0
        forEachString(over: alphabet, upTo: 7) { text in
            for shape in Self.shapes {
                for end in 0...text.count
                where !Self.same(text, to: end, maxDigits: shape.maxDigits, limit: shape.limit) {
                    mismatches += 1
                }
            }
        }
        #expect(mismatches == 0)
    }
}
