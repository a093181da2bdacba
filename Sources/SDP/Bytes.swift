// Byte constants and character classes of the RFC 8866 grammar (§9), and the decimal helpers the parser and
// serializer share. Nothing here traps on any input.

enum ASCII {
    static let nul: UInt8 = 0x00
    static let tab: UInt8 = 0x09
    static let lf: UInt8 = 0x0A
    static let cr: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let minus: UInt8 = 0x2D
    static let dot: UInt8 = 0x2E
    static let slash: UInt8 = 0x2F
    static let colon: UInt8 = 0x3A
    static let equals: UInt8 = 0x3D
    static let zero: UInt8 = 0x30
}

extension UInt8 {
    /// SP or HTAB: the separators the parser accepts between fields (RFC 8866 uses a single SP).
    var isSDPWhitespace: Bool { self == ASCII.space || self == ASCII.tab }

    var isDigit: Bool { self &- 0x30 < 10 }

    var isAlpha: Bool { (self | 0x20) &- 0x61 < 26 }

    var isLowercaseLetter: Bool { self &- 0x61 < 26 }

    var hexValue: UInt8? {
        if isDigit { return self &- 0x30 }
        let lower = self | 0x20
        if lower &- 0x61 < 6 { return lower &- 0x61 &+ 10 }
        return nil
    }

    /// `token-char` of RFC 8866 §9: `%x21 / %x23-27 / %x2A-2B / %x2D-2E / %x30-39 / %x41-5A / %x5E-7E`.
    var isTokenChar: Bool {
        // One bit per byte below 0x80, set for the token characters above.
        let mask: UInt64 = self < 0x40 ? 0x03FF_6CFA_0000_0000 : 0x7FFF_FFFF_C7FF_FFFE
        return self < 0x80 && (mask >> UInt64(self & 0x3F)) & 1 != 0
    }

    /// Any visible byte: what a non-space field (address, username, format) may contain. Bytes above 0x7F
    /// are allowed so that UTF-8 in free-form fields survives.
    var isFieldChar: Bool { self > 0x20 && self != 0x7F }

    /// The number in decimal, as `String(self)` writes it, made from its digits without the generic formatting.
    var decimalText: String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 3) { digits in
            var count = 0
            if self >= 100 {
                digits.initializeElement(at: count, to: ASCII.zero &+ self / 100)
                count += 1
            }
            if self >= 10 {
                digits.initializeElement(at: count, to: ASCII.zero &+ (self / 10) % 10)
                count += 1
            }
            digits.initializeElement(at: count, to: ASCII.zero &+ self % 10)
            return String(decoding: UnsafeBufferPointer(rebasing: digits[...count]), as: UTF8.self)
        }
    }

    /// ASCII lower case; other bytes unchanged.
    var lowercasedASCII: UInt8 { self &- 0x41 < 26 ? self | 0x20 : self }
}

extension String {
    init(bytes: [UInt8], range: Range<Int>) {
        self = String(decoding: bytes[range], as: UTF8.self)
    }

    /// Compares two strings ignoring ASCII case (encoding names, attribute names, suites).
    func equalsIgnoringASCIICase(_ other: String) -> Bool {
        let a = utf8
        let b = other.utf8
        guard a.count == b.count else { return false }
        // Over the contiguous bytes (native and small strings have them): no iterator per byte.
        let compared = a.withContiguousStorageIfAvailable { x in
            b.withContiguousStorageIfAvailable { y in
                for i in 0..<x.count where x[i].lowercasedASCII != y[i].lowercasedASCII { return false }
                return true
            }
        }
        if let compared, let result = compared { return result }
        return zip(a, b).allSatisfy { $0.lowercasedASCII == $1.lowercasedASCII }
    }

    /// True when every byte is a token character and there is at least one.
    var isSDPToken: Bool { !isEmpty && utf8.allSatisfy(\.isTokenChar) }

    /// True when the string is one or more visible bytes (no white space or controls).
    var isSDPField: Bool { !isEmpty && utf8.allSatisfy(\.isFieldChar) }
}

/// Parses `1*DIGIT` in `bytes[range]` as a value no larger than `limit`; `nil` when empty, not all digits,
/// longer than 20 digits or above the limit.
func parseDecimal(_ bytes: some Collection<UInt8>, limit: UInt64 = UInt64.max) -> UInt64? {
    guard !bytes.isEmpty, bytes.count <= 20 else { return nil }
    var value: UInt64 = 0
    for b in bytes {
        guard b.isDigit else { return nil }
        let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
        let (sum, overflow2) = times10.addingReportingOverflow(UInt64(b &- ASCII.zero))
        guard !overflow1, !overflow2 else { return nil }
        value = sum
    }
    return value <= limit ? value : nil
}

/// Parses a decimal string with `parseDecimal`.
func parseDecimal(_ string: String, limit: UInt64 = UInt64.max) -> UInt64? {
    parseDecimal(string.utf8, limit: limit)
}

extension Array where Element == UInt8 {
    mutating func append(_ string: String) {
        append(contentsOf: string.utf8)
    }

    /// Appends `text` with the bytes a line may not hold (NUL, CR, LF) left out, so that no value can break
    /// the line structure of the output (RFC 8866 §5: text fields hold no NUL, CR or LF).
    mutating func appendText(_ text: String) {
        if appendWhole(text, where: { $0 != ASCII.nul && $0 != ASCII.cr && $0 != ASCII.lf }) { return }
        for b in text.utf8 where b != ASCII.nul && b != ASCII.cr && b != ASCII.lf {
            append(b)
        }
    }

    /// Appends `text` in one copy when it is not empty and every byte passes `isAllowed` (what the byte-by-byte
    /// writers would keep anyway); `false`, with nothing appended, otherwise.
    mutating func appendWhole(_ text: String, where isAllowed: (UInt8) -> Bool) -> Bool {
        let utf8 = text.utf8
        let whole = utf8.withContiguousStorageIfAvailable { bytes in
            !bytes.isEmpty && bytes.allSatisfy(isAllowed)
        }
        guard whole == true else { return false }
        append(contentsOf: utf8)
        return true
    }

    mutating func appendDecimal<T: BinaryInteger>(_ value: T) {
        guard var rest = UInt64(exactly: value) else {
            append(contentsOf: String(value).utf8)
            return
        }
        // The digits straight into the buffer, most significant first (no String made).
        var divisor: UInt64 = 1
        while rest / divisor >= 10 { divisor &*= 10 }
        while true {
            append(ASCII.zero &+ UInt8(truncatingIfNeeded: rest / divisor))
            rest %= divisor
            if divisor == 1 { break }
            divisor /= 10
        }
    }

    /// Ends a line with CRLF (RFC 8866 §5).
    mutating func appendLineEnd() {
        append(ASCII.cr)
        append(ASCII.lf)
    }
}
