/// A cursor over a range of bytes, for parsing SDP fields and attribute values. Every access is
/// bounds-checked against `end`; nothing here can read outside the range it was given.
struct SDPScanner {
    let bytes: [UInt8]
    var index: Int
    let end: Int

    init(_ bytes: [UInt8], _ range: Range<Int>) {
        self.bytes = bytes
        let end = min(bytes.count, range.upperBound)
        self.end = end
        self.index = min(max(0, range.lowerBound), end)
    }

    init(_ string: String) {
        let bytes = Array(string.utf8)
        self.init(bytes, 0..<bytes.count)
    }

    var isAtEnd: Bool { index >= end }

    func peek() -> UInt8? { index < end ? bytes[index] : nil }

    /// Consumes `byte` if it is next.
    mutating func consume(_ byte: UInt8) -> Bool {
        if index < end, bytes[index] == byte {
            index += 1
            return true
        }
        return false
    }

    /// Skips SP and HTAB; returns whether there was any.
    @discardableResult
    mutating func skipWhitespace() -> Bool {
        let start = index
        while index < end, bytes[index].isSDPWhitespace { index += 1 }
        return index > start
    }

    /// Reads one or more bytes matching `predicate`.
    mutating func read(while predicate: (UInt8) -> Bool) -> Range<Int>? {
        let start = index
        while index < end, predicate(bytes[index]) { index += 1 }
        return start < index ? start..<index : nil
    }

    /// Reads an RFC 8866 `token`.
    mutating func readToken() -> String? {
        read(while: \.isTokenChar).map(string)
    }

    /// Reads bytes up to the next white space (one field of a space-separated line).
    mutating func readField() -> String? {
        read(while: \.isFieldChar).map(string)
    }

    /// Reads `1*DIGIT` no larger than `limit`; restores the position and returns `nil` otherwise.
    mutating func readNumber(limit: UInt64 = UInt64.max) -> UInt64? {
        let start = index
        guard let digits = read(while: \.isDigit), let value = parseDecimal(bytes[digits], limit: limit) else {
            index = start
            return nil
        }
        return value
    }

    /// Everything from here to the end.
    mutating func readRest() -> String {
        let rest = string(index..<end)
        index = end
        return rest
    }

    func string(_ range: Range<Int>) -> String { String(bytes: bytes, range: range) }
}
