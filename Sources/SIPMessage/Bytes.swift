// Character classes of the RFC 3261 grammar (§25.1), over bytes.

enum ASCII {
    static let tab: UInt8 = 0x09
    static let lf: UInt8 = 0x0A
    static let cr: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22
    static let percent: UInt8 = 0x25
    static let comma: UInt8 = 0x2C
    static let slash: UInt8 = 0x2F
    static let colon: UInt8 = 0x3A
    static let semicolon: UInt8 = 0x3B
    static let lessThan: UInt8 = 0x3C
    static let equals: UInt8 = 0x3D
    static let greaterThan: UInt8 = 0x3E
    static let question: UInt8 = 0x3F
    static let at: UInt8 = 0x40
    static let leftBracket: UInt8 = 0x5B
    static let backslash: UInt8 = 0x5C
    static let rightBracket: UInt8 = 0x5D
    static let ampersand: UInt8 = 0x26
    static let dot: UInt8 = 0x2E
    static let plus: UInt8 = 0x2B
    static let minus: UInt8 = 0x2D
    static let star: UInt8 = 0x2A
    static let crlf: [UInt8] = [0x0D, 0x0A]
}

extension UInt8 {
    var isSIPWhitespace: Bool { self == 0x20 || self == 0x09 }

    var isDigit: Bool { self &- 0x30 < 10 }

    var isAlpha: Bool { (self | 0x20) &- 0x61 < 26 }

    var isAlphanumeric: Bool { isDigit || isAlpha }

    var isHexDigit: Bool { isDigit || (self | 0x20) &- 0x61 < 6 }

    /// ASCII lower case; other bytes unchanged.
    var lowercasedASCII: UInt8 { self &- 0x41 < 26 ? self | 0x20 : self }

    var hexValue: UInt8? {
        if isDigit { return self &- 0x30 }
        let lower = self | 0x20
        if lower &- 0x61 < 6 { return lower &- 0x61 &+ 10 }
        return nil
    }
}

/// A token of at most 8 bytes packed little-endian with bit 0x20 set in each byte, to compare a parameter name
/// case-insensitively with one word (`ParameterName`); 0 for longer or empty names. Setting the bit lower-cases
/// letters and changes no other token character into a letter.
@inline(__always)
func packedLowercaseToken(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt64 {
    guard !range.isEmpty, range.count <= 8, range.lowerBound >= 0, range.upperBound <= bytes.count else { return 0 }
    if range.lowerBound + 8 <= bytes.count, let base = bytes.baseAddress {
        // One unaligned load of the 8 bytes from the name's start, the bytes past its end masked off.
        let loaded = UInt64(
            littleEndian: UnsafeRawPointer(base + range.lowerBound).loadUnaligned(as: UInt64.self))
        let keep = range.count == 8 ? UInt64.max : (1 &<< UInt64(8 &* range.count)) &- 1
        return (loaded | 0x2020_2020_2020_2020) & keep
    }
    var word: UInt64 = 0
    var shift: UInt64 = 0
    for i in range {
        word |= UInt64(bytes[i] | 0x20) &<< shift
        shift &+= 8
    }
    return word
}

/// Parameter names the parsers look for, as `packedLowercaseToken` returns them.
enum ParameterName {
    static let branch: UInt64 = 0x6863_6E61_7262
    static let rport: UInt64 = 0x74_726F_7072
    static let ttl: UInt64 = 0x6C_7474
    static let tag: UInt64 = 0x67_6174
}

/// Exact comparison of `bytes[range]` with a literal; allocates nothing.
@inline(__always)
func bytesEqual<C: RandomAccessCollection<UInt8>>(_ bytes: C, _ range: Range<Int>, _ literal: StaticString) -> Bool
where C.Index == Int {
    guard literal.hasPointerRepresentation else {
        return literal.withUTF8Buffer { expected in range.elementsEqual(expected.indices) { bytes[$0] == expected[$1] }
        }
    }
    // A string literal's UTF-8 is a constant the compiler can see through: no closure, often unrolled.
    let count = literal.utf8CodeUnitCount
    guard range.count == count else { return false }
    let expected = literal.utf8Start
    for k in 0..<count where bytes[range.lowerBound + k] != expected[k] { return false }
    return true
}

/// Case-insensitive ASCII comparison of `bytes[range]` with a lower-case literal; allocates nothing.
@inline(__always)
func bytesEqualCaseInsensitive<C: RandomAccessCollection<UInt8>>(
    _ bytes: C, _ range: Range<Int>, literal: StaticString
) -> Bool where C.Index == Int {
    guard literal.hasPointerRepresentation else {
        return literal.withUTF8Buffer { lower in
            range.elementsEqual(lower.indices) { bytes[$0].lowercasedASCII == lower[$1] }
        }
    }
    let count = literal.utf8CodeUnitCount
    guard range.count == count else { return false }
    let lower = literal.utf8Start
    for k in 0..<count where bytes[range.lowerBound + k].lowercasedASCII != lower[k] { return false }
    return true
}

/// Case-insensitive ASCII comparison of `bytes[range]` with an already lower-case literal.
func bytesEqualCaseInsensitive(_ bytes: [UInt8], _ range: Range<Int>, _ lowercased: [UInt8]) -> Bool {
    guard range.count == lowercased.count else { return false }
    var j = 0
    for i in range {
        if bytes[i].lowercasedASCII != lowercased[j] { return false }
        j += 1
    }
    return true
}

extension String {
    /// A string from bytes, repairing invalid UTF-8.
    @inlinable
    init(bytes: [UInt8], range: Range<Int>) {
        self = bytes.withUnsafeBufferPointer { String(bytes: $0, range: range) }
    }

    /// A string from buffer bytes, repairing invalid UTF-8. ASCII values of up to 15 bytes (tags, hosts, users)
    /// are made as small strings directly (`smallASCII`), without a validation pass or a closure; longer or
    /// non-ASCII values go through the standard library.
    @usableFromInline
    init(bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>) {
        let lower = Swift.max(0, Swift.min(range.lowerBound, bytes.count))
        let part = UnsafeBufferPointer(
            rebasing: bytes[lower..<Swift.max(lower, Swift.min(range.upperBound, bytes.count))])
        if let small = String.smallASCII(part) {
            self = small
            return
        }
        self = String(decoding: part, as: UTF8.self)
    }

    /// `part` as a small (inline, immortal) string when it is at most 15 ASCII bytes; `nil` otherwise.
    ///
    /// On 64-bit little-endian targets a small string is two words: the code units in order from the first
    /// word's low byte, and the second word's top byte holding the discriminator (0xE0 for an ASCII small
    /// string) plus the count. The standard library's inlinable code builds small strings this way inside
    /// every client binary, so the layout is part of the ABI and cannot change under us; the tests compare
    /// the result with `String(decoding:as:)` for every length. Elsewhere this returns `nil` and the standard
    /// library builds the string.
    @inline(__always)
    static func smallASCII(_ part: UnsafeBufferPointer<UInt8>) -> String? {
        #if (arch(x86_64) || arch(arm64)) && _endian(little)
            let count = part.count
            guard count <= 15 else { return nil }
            guard count > 0, let base = part.baseAddress else { return count == 0 ? "" : nil }
            let raw = UnsafeRawPointer(base)
            var low: UInt64 = 0
            var high: UInt64 = 0
            // Loads that stay inside the `count` bytes: two overlapping ones where the count allows.
            if count >= 8 {
                low = raw.loadUnaligned(as: UInt64.self)
                if count > 8 {
                    // The last 8 bytes, shifted so that byte 8 lands in the low byte.
                    let tail = raw.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
                    high = tail &>> UInt64(8 &* (16 &- count))
                }
            } else if count >= 4 {
                let head = UInt64(raw.loadUnaligned(as: UInt32.self))
                let tail = UInt64(raw.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self))
                low = head | tail &<< UInt64(8 &* (count &- 4))
            } else {
                for k in 0..<count { low |= UInt64(base[k]) &<< UInt64(8 &* k) }
            }
            guard (low | high) & 0x8080_8080_8080_8080 == 0 else { return nil }
            high |= UInt64(0xE0 | count) &<< 56
            // Written over an empty string (immortal, nothing to release) rather than bit-cast from the two
            // words, which would retain the result as if it could be a heap object.
            var result = ""
            withUnsafeMutableBytes(of: &result) { words in
                words.storeBytes(of: low, toByteOffset: 0, as: UInt64.self)
                words.storeBytes(of: high, toByteOffset: 8, as: UInt64.self)
            }
            return result
        #else
            return nil
        #endif
    }

    var lowercasedASCII: String {
        var utf8 = Array(self.utf8)
        var changed = false
        for i in utf8.indices where utf8[i] &- 0x41 < 26 {
            utf8[i] |= 0x20
            changed = true
        }
        return changed ? String(decoding: utf8, as: UTF8.self) : self
    }

    /// Case-insensitive ASCII equality.
    func equalsCaseInsensitive(_ other: String) -> Bool {
        if self == other { return true }
        let a = self.utf8
        let b = other.utf8
        guard a.count == b.count else { return false }
        var i = a.startIndex
        var j = b.startIndex
        while i != a.endIndex {
            if a[i].lowercasedASCII != b[j].lowercasedASCII { return false }
            a.formIndex(after: &i)
            b.formIndex(after: &j)
        }
        return true
    }
}

/// The run of digits at `bytes[start..<end]` read and valued in one pass, for the fast readers: where it ends and
/// its value; `nil` when there is no digit, more than `maxDigits` of them, or the value exceeds `limit` (as
/// `skip(while: isDigit)` then `parseDecimal` with the same limit and a count check decide, each digit looked at
/// once). `limit` is below `UInt64.max / 10`, and the value never exceeds it before a multiplication: no overflow.
@inline(__always)
func readDecimal(
    _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, maxDigits: Int, limit: UInt64
) -> (end: Int, value: UInt64)? {
    guard start >= 0, end <= bytes.count else { return nil }
    var i = start
    var value: UInt64 = 0
    while i < end {
        let digit = bytes[i] &- 0x30
        guard digit < 10 else { break }
        value = value &* 10 &+ UInt64(digit)
        guard value <= limit, i &- start < maxDigits else { return nil }
        i &+= 1
    }
    guard i > start else { return nil }
    return (i, value)
}

/// Parses an unsigned decimal number, rejecting overflow past `limit`.
@inline(__always)
func parseDecimal<C: RandomAccessCollection<UInt8>>(_ bytes: C, _ range: Range<Int>, limit: UInt64) -> UInt64?
where C.Index == Int {
    guard !range.isEmpty else { return nil }
    var i = range.lowerBound
    if range.count > 19 {
        // Leading zeros are allowed (RFC 4475 wsinv: "0068"); after them, 19 digits cannot overflow 64 bits.
        // Shorter numbers cannot overflow at all (and their leading zeros add nothing): no skipping needed.
        while i < range.upperBound - 1, bytes[i] == 0x30 { i += 1 }
        guard range.upperBound - i <= 19 else { return nil }
    }
    var value: UInt64 = 0
    while i < range.upperBound {
        let digit = bytes[i] &- 0x30
        guard digit < 10 else { return nil }
        value = value &* 10 &+ UInt64(digit)
        i += 1
    }
    return value <= limit ? value : nil
}
