// Character classes of the RFC 3261 grammar (§25.1): one table lookup per byte.

/// One bit per character class; `characterClasses[b]` holds the classes of byte `b`.
struct CharacterClass: OptionSet {
    let rawValue: UInt16

    static let host = CharacterClass(rawValue: 1 << 0)
    static let token = CharacterClass(rawValue: 1 << 1)
    static let unreserved = CharacterClass(rawValue: 1 << 2)
    static let reserved = CharacterClass(rawValue: 1 << 3)
    static let user = CharacterClass(rawValue: 1 << 4)
    static let password = CharacterClass(rawValue: 1 << 5)
    static let uriParameter = CharacterClass(rawValue: 1 << 6)
    static let uriHeader = CharacterClass(rawValue: 1 << 7)
    static let word = CharacterClass(rawValue: 1 << 8)
    static let genericValue = CharacterClass(rawValue: 1 << 9)
    static let digit = CharacterClass(rawValue: 1 << 10)
    static let alpha = CharacterClass(rawValue: 1 << 11)
    /// SP and HT.
    static let whitespace = CharacterClass(rawValue: 1 << 12)
    /// The characters of a hostname label: alphanumerics and "-".
    static let label = CharacterClass(rawValue: 1 << 13)
    /// Bytes that go on a quoted-string's text as they are: all but DQUOTE, "\\", CR and LF.
    static let quotedText = CharacterClass(rawValue: 1 << 14)
}

/// The classes of each byte (bits of `CharacterClass`); a literal, so that it is laid out at compile time.
let characterClasses: [UInt16] = [
    0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x5000, 0x0000, 0x4000, 0x4000, 0x0000,
    0x4000, 0x4000,
    0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000,
    0x4000, 0x4000,
    0x5000, 0x43F6, 0x0100, 0x4000, 0x40F8, 0x4302, 0x4078, 0x43F6, 0x41F4, 0x41F4, 0x43F6, 0x43FA, 0x4038, 0x63F7,
    0x43F7, 0x41D8,
    0x67F7, 0x67F7, 0x67F7, 0x67F7, 0x67F7, 0x67F7, 0x67F7, 0x67F7, 0x67F7, 0x67F7, 0x43C8, 0x4018, 0x4100, 0x4038,
    0x4100, 0x4198,
    0x4008, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7,
    0x6BF7, 0x6BF7,
    0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x43C0, 0x0100, 0x43C0,
    0x4000, 0x43F6,
    0x4302, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7,
    0x6BF7, 0x6BF7,
    0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x6BF7, 0x4100, 0x4000, 0x4100,
    0x43F6, 0x4000,
    0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000,
    0x4000, 0x4000,
    0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000,
    0x4000, 0x4000,
    0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000,
    0x4000, 0x4000,
    0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000,
    0x4000, 0x4000,
    0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000,
    0x4000, 0x4000,
    0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000,
    0x4000, 0x4000,
    0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000,
    0x4000, 0x4000,
    0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000,
    0x4000, 0x4000,
]

extension UInt8 {
    /// Whether this byte belongs to any of `classes`.
    @inline(__always)
    func isIn(_ classes: CharacterClass) -> Bool {
        characterClasses[Int(self)] & classes.rawValue != 0
    }

    /// Characters of a hostname or IPv4 address: alphanumerics, "-" and ".".
    var isHostChar: Bool { isIn(.host) }

    /// `token` characters: alphanum / "-" / "." / "!" / "%" / "*" / "_" / "+" / "`" / "'" / "~".
    var isTokenChar: Bool { isIn(.token) }

    /// `unreserved`: alphanum / mark ("-" / "_" / "." / "!" / "~" / "*" / "'" / "(" / ")").
    var isUnreserved: Bool { isIn(.unreserved) }

    /// `reserved`: ";" / "/" / "?" / ":" / "@" / "&" / "=" / "+" / "$" / ",".
    var isReserved: Bool { isIn(.reserved) }

    /// Characters allowed unescaped in the user part of a SIP URI (unreserved / user-unreserved).
    var isUserChar: Bool { isIn(.user) }

    /// Characters allowed unescaped in the password part of a SIP URI.
    var isPasswordChar: Bool { isIn(.password) }

    /// `paramchar` without escapes: param-unreserved / unreserved.
    var isURIParamChar: Bool { isIn(.uriParameter) }

    /// `hname`/`hvalue` characters without escapes: hnv-unreserved / unreserved.
    var isURIHeaderChar: Bool { isIn(.uriHeader) }

    /// `word` characters (Call-ID): token characters plus "(" ")" "<" ">" ":" "\\" DQUOTE "/" "[" "]" "?" "{" "}".
    var isWordChar: Bool { isIn(.word) }

    /// `gen-value` characters other than quoted strings: token characters, and ":" "[" "]" for hosts.
    var isGenericValueChar: Bool { isIn(.genericValue) }
}
