/// A cursor over a range of bytes, for parsing header values and URIs. Every access is bounds-checked
/// against `end`; nothing here can read outside the range it was given.
struct ByteScanner {
    let bytes: [UInt8]
    var index: Int
    let end: Int

    init(_ bytes: [UInt8], _ range: Range<Int>) {
        self.bytes = bytes
        self.index = range.lowerBound
        self.end = range.upperBound
    }

    init(_ string: String) {
        let bytes = Array(string.utf8)
        self.init(bytes, 0..<bytes.count)
    }

    var isAtEnd: Bool { index >= end }

    var remaining: Range<Int> { index..<end }

    func peek() -> UInt8? { index < end ? bytes[index] : nil }

    func peek(at offset: Int) -> UInt8? {
        let i = index + offset
        return i < end ? bytes[i] : nil
    }

    mutating func advance() { if index < end { index += 1 } }

    /// Consumes `byte` if it is next.
    mutating func consume(_ byte: UInt8) -> Bool {
        if index < end, bytes[index] == byte {
            index += 1
            return true
        }
        return false
    }

    /// Skips linear white space: SP, HT, and line folds (CRLF followed by SP or HT).
    mutating func skipLWS() {
        while index < end {
            let b = bytes[index]
            if b == ASCII.space || b == ASCII.tab {
                index += 1
            } else if b == ASCII.cr, index + 2 < end, bytes[index + 1] == ASCII.lf, bytes[index + 2].isSIPWhitespace {
                index += 3
            } else if b == ASCII.lf, index + 1 < end, bytes[index + 1].isSIPWhitespace {
                index += 2
            } else {
                return
            }
        }
    }

    /// Skips LWS, then consumes `separator` (and the LWS after it) if it is next: the `SEMI`, `COMMA`,
    /// `EQUAL`, `SLASH` and `COLON` productions of RFC 3261 §25.1.
    mutating func consumeSeparator(_ separator: UInt8) -> Bool {
        let saved = index
        skipLWS()
        if consume(separator) {
            skipLWS()
            return true
        }
        index = saved
        return false
    }

    /// Reads one or more bytes matching `predicate`.
    mutating func read(while predicate: (UInt8) -> Bool) -> Range<Int>? {
        let start = index
        while index < end, predicate(bytes[index]) { index += 1 }
        return start < index ? start..<index : nil
    }

    mutating func readToken() -> Range<Int>? { read(while: { $0.isTokenChar }) }

    /// Reads a `quoted-string`, returning the range including both quotes.
    mutating func readQuotedString() -> Range<Int>? {
        guard peek() == ASCII.quote else { return nil }
        let start = index
        index += 1
        while index < end {
            let b = bytes[index]
            if b == ASCII.quote {
                index += 1
                return start..<index
            }
            if b == ASCII.backslash {
                // quoted-pair: any byte but CR and LF
                guard index + 1 < end, bytes[index + 1] != ASCII.cr, bytes[index + 1] != ASCII.lf else {
                    index = start
                    return nil
                }
                index += 2
                continue
            }
            if b == ASCII.cr || b == ASCII.lf {
                // Only a fold (CRLF + WSP) may appear inside; it counts as LWS.
                if b == ASCII.cr, index + 2 < end, bytes[index + 1] == ASCII.lf, bytes[index + 2].isSIPWhitespace {
                    index += 3
                    continue
                }
                index = start
                return nil
            }
            index += 1
        }
        index = start
        return nil
    }

    /// Reads a hostname, IPv4 address or bracketed IPv6 reference.
    mutating func readHostRange() -> Range<Int>? {
        if peek() == ASCII.leftBracket {
            let start = index
            while index < end, bytes[index] != ASCII.rightBracket { index += 1 }
            guard index < end else {
                index = start
                return nil
            }
            index += 1
            return start..<index
        }
        return read(while: { $0.isAlphanumeric || $0 == ASCII.minus || $0 == ASCII.dot })
    }

    func string(_ range: Range<Int>) -> String { String(bytes: bytes, range: range) }

    func lowercasedString(_ range: Range<Int>) -> String {
        var needsLowering = false
        for i in range where bytes[i] &- 0x41 < 26 {
            needsLowering = true
            break
        }
        if !needsLowering { return string(range) }
        return String(decoding: bytes[range].lazy.map { $0.lowercasedASCII }, as: UTF8.self)
    }

    /// Collapses LWS runs inside `range` to single spaces and returns the result.
    func normalizedString(_ range: Range<Int>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var pendingSpace = false
        var i = range.lowerBound
        while i < range.upperBound {
            let b = bytes[i]
            if b == ASCII.space || b == ASCII.tab || b == ASCII.cr || b == ASCII.lf {
                pendingSpace = !out.isEmpty
            } else {
                if pendingSpace { out.append(ASCII.space) }
                pendingSpace = false
                out.append(b)
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Removes the quotes and quoted-pair escapes of a quoted-string (given with its quotes).
func unquote(_ bytes: [UInt8], _ range: Range<Int>) -> String {
    guard range.count >= 2 else { return "" }
    let inner = (range.lowerBound + 1)..<(range.upperBound - 1)
    if !bytes[inner].contains(where: { $0 == ASCII.backslash || $0 == ASCII.cr || $0 == ASCII.lf }) {
        return String(bytes: bytes, range: inner)
    }
    var out: [UInt8] = []
    out.reserveCapacity(range.count)
    var i = range.lowerBound + 1
    let end = range.upperBound - 1
    while i < end {
        var b = bytes[i]
        if b == ASCII.backslash, i + 1 < end {
            i += 1
            b = bytes[i]
        } else if b == ASCII.cr || b == ASCII.lf {
            i += 1
            continue
        }
        out.append(b)
        i += 1
    }
    return String(decoding: out, as: UTF8.self)
}

/// Writes `text` as a quoted-string, escaping `"` and `\`.
func appendQuoted(_ text: String, to buffer: inout [UInt8]) {
    buffer.append(ASCII.quote)
    for b in text.utf8 {
        if b == ASCII.cr || b == ASCII.lf { continue }
        if b == ASCII.quote || b == ASCII.backslash { buffer.append(ASCII.backslash) }
        buffer.append(b)
    }
    buffer.append(ASCII.quote)
}

/// Unquotes `value` if it is a quoted-string; returns it unchanged otherwise.
func unquoteIfQuoted(_ value: String) -> String {
    let utf8 = Array(value.utf8)
    if utf8.count >= 2, utf8.first == ASCII.quote, utf8.last == ASCII.quote {
        return unquote(utf8, 0..<utf8.count)
    }
    return value
}

extension Array where Element == UInt8 {
    mutating func append(_ string: String) {
        append(contentsOf: string.utf8)
    }

    mutating func appendDecimal<T: BinaryInteger>(_ value: T) {
        if value == 0 {
            append(0x30)
            return
        }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var v = UInt64(truncatingIfNeeded: value.magnitude)
        if value < 0 { append(ASCII.minus) }
        Swift.withUnsafeMutableBytes(of: &digits) { raw in
            while v > 0, count < 20 {
                raw[count] = UInt8(v % 10) &+ 0x30
                v /= 10
                count += 1
            }
            var i = count - 1
            while i >= 0 {
                append(raw[i])
                i -= 1
            }
        }
    }
}
