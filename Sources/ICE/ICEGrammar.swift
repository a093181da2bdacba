import STUN

/// The character classes and small productions of RFC 8839 §5 and RFC 8866 §9.
enum ICEGrammar {
    /// ice-char = ALPHA / DIGIT / "+" / "/".
    static func isIceChar(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
    }

    static func isAlpha(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// token-char of RFC 8866: visible ASCII except the separators `"(),/:;<=>?@[\]{}` and space.
    static func isTokenChar(_ byte: UInt8) -> Bool {
        guard (0x21...0x7E).contains(byte) else { return false }
        return !Array(#""(),/:;<=>?@[\]{}"#.utf8).contains(byte)
    }

    static func isIceChars(_ text: Substring, count range: ClosedRange<Int>) -> Bool {
        range.contains(text.utf8.count) && text.utf8.allSatisfy(isIceChar)
    }

    static func isToken(_ text: Substring) -> Bool { !text.isEmpty && text.utf8.allSatisfy(isTokenChar) }

    /// byte-string of RFC 8866 restricted to what a space-separated line can hold: no NUL, CR, LF or space.
    static func isByteString(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 != 0 && $0 != 0x0A && $0 != 0x0D && $0 != 0x20 }
    }

    /// A decimal number of at most `digits` digits, no sign.
    static func decimal(_ text: Substring, digits: Int) -> UInt64? {
        guard (1...digits).contains(text.utf8.count), text.utf8.allSatisfy(isDigit) else { return nil }
        return text.utf8.reduce(UInt64(0)) { $0 * 10 + UInt64($1 - 0x30) }
    }

    static func port(_ text: Substring) -> UInt16? {
        guard let value = decimal(text, digits: 5), value <= 65_535 else { return nil }
        return UInt16(value)
    }

    /// An IPv4 dotted quad or an IPv6 address (RFC 4291 §2.2, with `::` and a trailing dotted quad).
    static func ipAddress(_ text: Substring) -> STUNIPAddress? {
        if let v4 = ipv4(text) { return .v4(v4) }
        return ipv6(text)
    }

    static func ipv4(_ text: Substring) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard let octet = decimal(part, digits: 3), octet <= 255 else { return nil }
            value = value << 8 | UInt32(octet)
        }
        return value
    }

    static func ipv6(_ text: Substring) -> STUNIPAddress? {
        guard text.utf8.count <= 45, text.contains(":") else { return nil }
        var head: [UInt16] = []
        var tail: [UInt16] = []
        let halves = text.split(separator: "::", maxSplits: 2, omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return nil }
        guard let first = groups(halves[0], allowsDottedQuad: halves.count == 1) else { return nil }
        head = first
        if halves.count == 2 {
            guard let second = groups(halves[1], allowsDottedQuad: true) else { return nil }
            tail = second
            guard head.count + tail.count <= 7 else { return nil }
        } else {
            guard head.count == 8 else { return nil }
        }
        let all = head + [UInt16](repeating: 0, count: 8 - head.count - tail.count) + tail
        var bytes: [UInt8] = []
        for group in all { bytes += [UInt8(group >> 8), UInt8(group & 0xFF)] }
        return STUNIPAddress(bytes: bytes)
    }

    /// Colon-separated hex groups; the last may be a dotted quad (two groups).
    private static func groups(_ text: Substring, allowsDottedQuad: Bool) -> [UInt16]? {
        if text.isEmpty { return [] }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        var out: [UInt16] = []
        for (index, part) in parts.enumerated() {
            if index == parts.count - 1, allowsDottedQuad, part.contains("."), let v4 = ipv4(part) {
                out += [UInt16(v4 >> 16), UInt16(v4 & 0xFFFF)]
                continue
            }
            guard (1...4).contains(part.utf8.count), let group = UInt16(part, radix: 16) else { return nil }
            out.append(group)
        }
        return out
    }

    /// An address as SDP writes it: IPv6 without brackets.
    static func text(_ address: STUNIPAddress) -> String { address.description }
}
