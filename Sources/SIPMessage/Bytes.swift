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

    /// `token` characters: alphanum / "-" / "." / "!" / "%" / "*" / "_" / "+" / "`" / "'" / "~".
    var isTokenChar: Bool {
        if isAlphanumeric { return true }
        switch self {
        case 0x2D, 0x2E, 0x21, 0x25, 0x2A, 0x5F, 0x2B, 0x60, 0x27, 0x7E: return true
        default: return false
        }
    }

    /// `mark` characters of `unreserved`: "-" / "_" / "." / "!" / "~" / "*" / "'" / "(" / ")".
    var isMark: Bool {
        switch self {
        case 0x2D, 0x5F, 0x2E, 0x21, 0x7E, 0x2A, 0x27, 0x28, 0x29: return true
        default: return false
        }
    }

    var isUnreserved: Bool { isAlphanumeric || isMark }

    /// `reserved`: ";" / "/" / "?" / ":" / "@" / "&" / "=" / "+" / "$" / ",".
    var isReserved: Bool {
        switch self {
        case 0x3B, 0x2F, 0x3F, 0x3A, 0x40, 0x26, 0x3D, 0x2B, 0x24, 0x2C: return true
        default: return false
        }
    }

    /// Characters allowed unescaped in the user part of a SIP URI (unreserved / user-unreserved).
    var isUserChar: Bool {
        if isUnreserved { return true }
        switch self {
        case 0x26, 0x3D, 0x2B, 0x24, 0x2C, 0x3B, 0x3F, 0x2F: return true
        default: return false
        }
    }

    /// Characters allowed unescaped in the password part of a SIP URI.
    var isPasswordChar: Bool {
        if isUnreserved { return true }
        switch self {
        case 0x26, 0x3D, 0x2B, 0x24, 0x2C: return true
        default: return false
        }
    }

    /// `paramchar` without escapes: param-unreserved / unreserved.
    var isURIParamChar: Bool {
        if isUnreserved { return true }
        switch self {
        case 0x5B, 0x5D, 0x2F, 0x3A, 0x26, 0x2B, 0x24: return true
        default: return false
        }
    }

    /// `hname`/`hvalue` characters without escapes: hnv-unreserved / unreserved.
    var isURIHeaderChar: Bool {
        if isUnreserved { return true }
        switch self {
        case 0x5B, 0x5D, 0x2F, 0x3F, 0x3A, 0x2B, 0x24: return true
        default: return false
        }
    }

    /// `word` characters (Call-ID): token characters plus "(" ")" "<" ">" ":" "\" DQUOTE "/" "[" "]" "?" "{" "}".
    var isWordChar: Bool {
        if isTokenChar { return true }
        switch self {
        case 0x28, 0x29, 0x3C, 0x3E, 0x3A, 0x5C, 0x22, 0x2F, 0x5B, 0x5D, 0x3F, 0x7B, 0x7D: return true
        default: return false
        }
    }

    var hexValue: UInt8? {
        if isDigit { return self &- 0x30 }
        let lower = self | 0x20
        if lower &- 0x61 < 6 { return lower &- 0x61 &+ 10 }
        return nil
    }
}

/// Case-insensitive ASCII comparison of `bytes[range]` with a lower-case literal; allocates nothing.
func bytesEqualCaseInsensitive(_ bytes: [UInt8], _ range: Range<Int>, literal: StaticString) -> Bool {
    literal.withUTF8Buffer { lower in
        guard range.count == lower.count else { return false }
        var j = 0
        for i in range {
            if bytes[i].lowercasedASCII != lower[j] { return false }
            j += 1
        }
        return true
    }
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
    init(bytes: [UInt8], range: Range<Int>) {
        self = String(decoding: bytes[range], as: UTF8.self)
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

/// Parses an unsigned decimal number, rejecting overflow past `limit`.
func parseDecimal(_ bytes: [UInt8], _ range: Range<Int>, limit: UInt64) -> UInt64? {
    guard !range.isEmpty else { return nil }
    var value: UInt64 = 0
    for i in range {
        let digit = bytes[i] &- 0x30
        guard digit < 10 else { return nil }
        let (times10, o1) = value.multipliedReportingOverflow(by: 10)
        let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
        guard !o1, !o2, sum <= limit else { return nil }
        value = sum
    }
    return value
}
