import Testing

@testable import SIPMessage

/// `String(bytes:range:)` builds ASCII values of up to 15 bytes as small strings itself; they must be the very
/// strings the standard library makes, and everything else (longer, non-ASCII, invalid UTF-8) must take the
/// standard library's path.
@Suite("Small string construction")
struct SmallStringTests {
    static func expectSame(_ bytes: [UInt8], _ range: Range<Int>) {
        let made = String(bytes: bytes, range: range)
        let expected = String(decoding: bytes[range], as: UTF8.self)
        #expect(made == expected)
        #expect(Array(made.utf8) == Array(expected.utf8))
        #expect(made.utf8.count == expected.utf8.count)
        #expect(made.count == expected.count)
        #expect(made.hashValue == expected.hashValue)
        #expect(made + "x" == expected + "x")
        #expect(made.hasPrefix(expected) && expected.hasPrefix(made))
    }

    @Test(arguments: 0...20)
    func asciiOfEveryLength(length: Int) {
        // At the start, in the middle and at the very end of a buffer (no load may go past the range).
        let text = Array("z9hG4bK776asdhds-1a2b3c;tag=a6c85cf-99887766".utf8)
        for offset in [0, 3, text.count - length] where offset >= 0 && offset + length <= text.count {
            Self.expectSame(Array(text[offset..<(offset + length)]), 0..<length)
            Self.expectSame(text, offset..<(offset + length))
        }
    }

    @Test(arguments: 1...16)
    func nonASCIIFallsBack(length: Int) {
        // One byte with the top bit set at each position: a valid two-byte sequence, or a lone byte to repair.
        for position in 0..<length {
            var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            bytes[position] = 0xC3
            Self.expectSame(bytes, 0..<length)
            if position + 1 < length {
                bytes[position + 1] = 0xA9
                Self.expectSame(bytes, 0..<length)
            }
            bytes[position] = 0xFF
            Self.expectSame(bytes, 0..<length)
        }
    }

    @Test func everyASCIIByte() {
        let all = (0...127).map { UInt8($0) }
        for start in stride(from: 0, to: all.count, by: 7) {
            Self.expectSame(all, start..<min(start + 15, all.count))
        }
    }

    @Test func rangesOutsideTheBufferAreClamped() {
        let bytes = Array("alice".utf8)
        #expect(String(bytes: bytes, range: 2..<40) == "ice")
        #expect(String(bytes: bytes, range: 9..<12) == "")
        #expect(String(bytes: [], range: 0..<3) == "")
    }

    @Test func parsedValuesAreEqualToBuiltOnes() throws {
        let message = try Message(
            parsing:
                "SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bK-a\r\nFrom: <sip:al%41ce@example.com>;tag=1\r\n"
                + "To: <sip:bob@example.org>;tag=a6c85cf-99887766\r\nCall-ID: x@y\r\nCSeq: 1 INVITE\r\nContent-Length: 0\r\n\r\n"
        )
        let fields = message.headerFields
        #expect(try fields.topVia?.branch == "z9hG4bK-a")
        #expect(try fields.from?.tag == "1")
        #expect(try fields.from?.uri.sipURI?.escapedUser == "al%41ce")
        #expect(try fields.to?.tag == "a6c85cf-99887766")
        #expect(try fields.callID == "x@y")
        #expect(message.response?.reasonPhrase == "OK")
    }
}
