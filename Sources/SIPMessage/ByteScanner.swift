/// A cursor over a range of bytes, for parsing header values and URIs.
///
/// It reads through a buffer pointer (no reference counting on the hot path) that is valid only inside
/// `ByteScanner.scan`; every read checks the index against `end`, and `end` never exceeds the buffer, so
/// nothing here reads outside the range it was given. `owner` is the array the buffer belongs to, for
/// values that keep a view of the bytes (wire-backed `Parameters`, `Via`, `NameAddress`, `SIPURI`).
struct ByteScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    /// Points at the array `bytes` belongs to. Like `bytes`, valid only inside `scan` (or the caller's own
    /// `withUnsafePointer`): a scanner never outlives the closure it was made in, so creating and copying one
    /// costs no reference counting; `owner` makes a counted copy only for a value that keeps the bytes.
    let ownerPointer: UnsafePointer<[UInt8]>
    var index: Int
    let end: Int

    /// Only valid while `bytes` and `owner` are (inside `withUnsafeBufferPointer` and `withUnsafePointer` of the
    /// same array); prefer `scan`.
    init(_ bytes: UnsafeBufferPointer<UInt8>, owner: UnsafePointer<[UInt8]>, _ range: Range<Int>) {
        self.bytes = bytes
        self.ownerPointer = owner
        self.index = max(0, min(range.lowerBound, bytes.count))
        self.end = max(self.index, min(range.upperBound, bytes.count))
    }

    /// The array the bytes belong to.
    var owner: [UInt8] { ownerPointer.pointee }

    /// Runs `body` with a scanner over `owner[range]` (clamped to the array).
    @inline(__always)
    static func scan<R>(
        _ owner: [UInt8], _ range: Range<Int>, _ body: (inout ByteScanner) throws(MessageError) -> R
    ) throws(MessageError) -> R {
        try withUnsafePointer(to: owner) { (ownerPointer) throws(MessageError) -> R in
            try owner.withUnsafeBufferPointer { (buffer) throws(MessageError) -> R in
                var scanner = ByteScanner(buffer, owner: ownerPointer, range)
                return try body(&scanner)
            }
        }
    }

    /// Runs `body` with a scanner over the UTF-8 of `text`.
    @inline(__always)
    static func scan<R>(_ text: String, _ body: (inout ByteScanner) throws(MessageError) -> R) throws(MessageError)
        -> R
    {
        let bytes = Array(text.utf8)
        return try scan(bytes, 0..<bytes.count, body)
    }

    /// A scanner over another range of the same buffer.
    @inline(__always)
    func subscanner(_ range: Range<Int>) -> ByteScanner {
        ByteScanner(bytes, owner: ownerPointer, range)
    }

    var isAtEnd: Bool { index >= end }

    var remaining: Range<Int> { index..<end }

    @inline(__always)
    func peek() -> UInt8? { index < end ? bytes[index] : nil }

    func peek(at offset: Int) -> UInt8? {
        let i = index + offset
        return i < end ? bytes[i] : nil
    }

    @inline(__always)
    mutating func advance() { if index < end { index += 1 } }
    /// Consumes `byte` if it is next.
    @inline(__always)
    mutating func consume(_ byte: UInt8) -> Bool {
        if index < end, bytes[index] == byte {
            index += 1
            return true
        }
        return false
    }

    /// Skips linear white space: SP, HT, and line folds (CRLF followed by SP or HT).
    @inline(__always)
    mutating func skipLWS() {
        guard index < end else { return }
        let b = bytes[index]
        guard b == ASCII.space || b == ASCII.tab || b == ASCII.cr || b == ASCII.lf else { return }
        // The usual single space between two parts, without the call.
        if b == ASCII.space, index &+ 1 < end, bytes[index &+ 1] > ASCII.space {
            index &+= 1
            return
        }
        skipLWSRun()
    }

    private mutating func skipLWSRun() {
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
    @inline(__always)
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
    @inline(__always)
    mutating func read(while predicate: (UInt8) -> Bool) -> Range<Int>? {
        // A local index stays in a register; `index` itself would be stored on every byte.
        let start = index
        let i = ByteScanner.skip(bytes, from: start, to: end, while: predicate)
        index = i
        return start < i ? start..<i : nil
    }

    /// The first index in `from..<to` whose byte fails `predicate`, or `to`: four bytes per bound test while
    /// four remain (values run to tens of bytes, and the test per byte cost as much as the lookup).
    @inline(__always)
    static func skip(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, while predicate: (UInt8) -> Bool
    ) -> Int {
        var i = start
        while i &+ 4 <= end {
            guard predicate(bytes[i]) else { return i }
            guard predicate(bytes[i &+ 1]) else { return i &+ 1 }
            guard predicate(bytes[i &+ 2]) else { return i &+ 2 }
            guard predicate(bytes[i &+ 3]) else { return i &+ 3 }
            i &+= 4
        }
        while i < end, predicate(bytes[i]) { i &+= 1 }
        return i
    }

    @inline(__always)
    mutating func readToken() -> Range<Int>? { read(while: { $0.isTokenChar }) }

    /// Moves to the next `byte` (or the end) and returns whether it was found (memchr: URIs run to tens of
    /// bytes).
    @inline(__always)
    mutating func advance(to byte: UInt8) -> Bool {
        guard let hit = MessageParser.find(byte, in: bytes, from: index, to: end) else {
            index = end
            return false
        }
        index = hit
        return true
    }

    /// Reads a `quoted-string`, returning the range including both quotes.
    @inline(__always)
    mutating func readQuotedString() -> Range<Int>? {
        guard peek() == ASCII.quote else { return nil }
        // A local index: `index` moves only when the whole quoted-string is there.
        let start = index
        var i = start + 1
        while i < end {
            let b = bytes[i]
            if b == ASCII.quote {
                index = i + 1
                return start..<index
            }
            if b == ASCII.backslash {
                // quoted-pair: any byte but CR and LF
                guard i + 1 < end, bytes[i + 1] != ASCII.cr, bytes[i + 1] != ASCII.lf else { return nil }
                i += 2
                continue
            }
            if b == ASCII.cr || b == ASCII.lf {
                // Only a fold (CRLF + WSP) may appear inside; it counts as LWS.
                if b == ASCII.cr, i + 2 < end, bytes[i + 1] == ASCII.lf, bytes[i + 2].isSIPWhitespace {
                    i += 3
                    continue
                }
                return nil
            }
            i += 1
        }
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
        return read(while: { $0.isHostChar })
    }

    func string(_ range: Range<Int>) -> String { String(bytes: bytes, range: range) }

    /// A token as a string, without creating one for the common protocol tokens (methods, transports,
    /// `SIP`, `2.0`): those come back as literals.
    func internedToken(_ range: Range<Int>) -> String { ByteScanner.internedToken(bytes, range) }

    /// A token of `bytes` as a string; the common protocol tokens come back as literals.
    static func internedToken(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        guard !range.isEmpty else { return "" }
        // One candidate per length and first byte (TCP/TLS share both), compared without a closure per literal.
        let found: String?
        switch (range.count, bytes[range.lowerBound]) {
        case (2, UInt8(ascii: "W")): found = bytesEqual(bytes, range, "WS") ? "WS" : nil
        case (3, UInt8(ascii: "S")): found = bytesEqual(bytes, range, "SIP") ? "SIP" : nil
        case (3, UInt8(ascii: "2")): found = bytesEqual(bytes, range, "2.0") ? "2.0" : nil
        case (3, UInt8(ascii: "U")): found = bytesEqual(bytes, range, "UDP") ? "UDP" : nil
        case (3, UInt8(ascii: "T")):
            found = bytesEqual(bytes, range, "TCP") ? "TCP" : bytesEqual(bytes, range, "TLS") ? "TLS" : nil
        case (3, UInt8(ascii: "A")): found = bytesEqual(bytes, range, "ACK") ? "ACK" : nil
        case (3, UInt8(ascii: "B")): found = bytesEqual(bytes, range, "BYE") ? "BYE" : nil
        case (3, UInt8(ascii: "W")): found = bytesEqual(bytes, range, "WSS") ? "WSS" : nil
        case (4, UInt8(ascii: "I")): found = bytesEqual(bytes, range, "INFO") ? "INFO" : nil
        case (4, UInt8(ascii: "S")): found = bytesEqual(bytes, range, "SCTP") ? "SCTP" : nil
        case (5, UInt8(ascii: "P")): found = bytesEqual(bytes, range, "PRACK") ? "PRACK" : nil
        case (6, UInt8(ascii: "I")): found = bytesEqual(bytes, range, "INVITE") ? "INVITE" : nil
        case (6, UInt8(ascii: "C")): found = bytesEqual(bytes, range, "CANCEL") ? "CANCEL" : nil
        case (6, UInt8(ascii: "U")): found = bytesEqual(bytes, range, "UPDATE") ? "UPDATE" : nil
        case (6, UInt8(ascii: "N")): found = bytesEqual(bytes, range, "NOTIFY") ? "NOTIFY" : nil
        case (7, UInt8(ascii: "O")): found = bytesEqual(bytes, range, "OPTIONS") ? "OPTIONS" : nil
        case (7, UInt8(ascii: "M")): found = bytesEqual(bytes, range, "MESSAGE") ? "MESSAGE" : nil
        case (7, UInt8(ascii: "P")): found = bytesEqual(bytes, range, "PUBLISH") ? "PUBLISH" : nil
        case (8, UInt8(ascii: "R")): found = bytesEqual(bytes, range, "REGISTER") ? "REGISTER" : nil
        case (9, UInt8(ascii: "S")): found = bytesEqual(bytes, range, "SUBSCRIBE") ? "SUBSCRIBE" : nil
        default: found = nil
        }
        return found ?? String(bytes: bytes, range: range)
    }
}

/// Collapses runs of LWS to single spaces (token display names).
func collapseWhiteSpace(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var pendingSpace = false
    for b in bytes {
        if b == ASCII.space || b == ASCII.tab || b == ASCII.cr || b == ASCII.lf {
            pendingSpace = !out.isEmpty
        } else {
            if pendingSpace { out.append(ASCII.space) }
            pendingSpace = false
            out.append(b)
        }
    }
    return String(decoding: out, as: UTF8.self)
}

/// Removes the quotes and quoted-pair escapes of a quoted-string (given with its quotes).
func unquote<C: RandomAccessCollection<UInt8>>(_ bytes: C, _ range: Range<Int>) -> String where C.Index == Int {
    guard range.count >= 2 else { return "" }
    let inner = (range.lowerBound + 1)..<(range.upperBound - 1)
    if !inner.contains(where: { bytes[$0] == ASCII.backslash || bytes[$0] == ASCII.cr || bytes[$0] == ASCII.lf }) {
        return String(decoding: bytes[inner], as: UTF8.self)
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
    // The usual text needs no escape: copied in one piece.
    let copied = text.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
        guard utf8.allSatisfy({ $0.isIn(.quotedText) }) else { return false }
        buffer.append(ASCII.quote)
        buffer.append(contentsOf: utf8)
        buffer.append(ASCII.quote)
        return true
    }
    if copied == true { return }
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
