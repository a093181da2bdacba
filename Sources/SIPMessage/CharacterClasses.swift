// Character classes of the RFC 3261 grammar (§25.1) as 128-bit masks: one shift and test per byte.

extension UInt8 {
    /// Characters of a hostname or IPv4 address: alphanumerics, "-" and ".".
    var isHostChar: Bool { isIn(low: 0x03FF_6000_0000_0000, high: 0x07FF_FFFE_07FF_FFFE) }

    /// Whether this ASCII byte is in the set whose bits are `low` (bytes 0-63) and `high` (64-127).
    @inline(__always)
    func isIn(low: UInt64, high: UInt64) -> Bool {
        if self < 64 { return (low >> UInt64(self)) & 1 != 0 }
        if self < 128 { return (high >> UInt64(self & 63)) & 1 != 0 }
        return false
    }

    /// `token` characters: alphanum / "-" / "." / "!" / "%" / "*" / "_" / "+" / "`" / "'" / "~".
    var isTokenChar: Bool { isIn(low: 0x03FF6CA200000000, high: 0x47FFFFFF87FFFFFE) }

    /// `unreserved`: alphanum / mark ("-" / "_" / "." / "!" / "~" / "*" / "'" / "(" / ")").
    var isUnreserved: Bool { isIn(low: 0x03FF678200000000, high: 0x47FFFFFE87FFFFFE) }

    /// `reserved`: ";" / "/" / "?" / ":" / "@" / "&" / "=" / "+" / "$" / ",".
    var isReserved: Bool { isIn(low: 0xAC00985000000000, high: 0x0000000000000001) }

    /// Characters allowed unescaped in the user part of a SIP URI (unreserved / user-unreserved).
    var isUserChar: Bool { isIn(low: 0xABFFFFD200000000, high: 0x47FFFFFE87FFFFFE) }

    /// Characters allowed unescaped in the password part of a SIP URI.
    var isPasswordChar: Bool { isIn(low: 0x23FF7FD200000000, high: 0x47FFFFFE87FFFFFE) }

    /// `paramchar` without escapes: param-unreserved / unreserved.
    var isURIParamChar: Bool { isIn(low: 0x07FFEFD200000000, high: 0x47FFFFFEAFFFFFFE) }

    /// `hname`/`hvalue` characters without escapes: hnv-unreserved / unreserved.
    var isURIHeaderChar: Bool { isIn(low: 0x87FFEF9200000000, high: 0x47FFFFFEAFFFFFFE) }

    /// `word` characters (Call-ID): token characters plus "(" ")" "<" ">" ":" "\\" DQUOTE "/" "[" "]" "?" "{" "}".
    var isWordChar: Bool { isIn(low: 0xD7FFEFA600000000, high: 0x6FFFFFFFBFFFFFFE) }

    /// `gen-value` characters other than quoted strings: token characters, and ":" "[" "]" for hosts.
    var isGenericValueChar: Bool { isIn(low: 0x07FF6CA200000000, high: 0x47FFFFFFAFFFFFFE) }
}
