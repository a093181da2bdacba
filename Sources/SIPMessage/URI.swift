/// A URI as SIP carries it: a SIP or SIPS URI, a tel URI, or any other absolute URI kept opaque.
public enum URI: Sendable, Hashable, CustomStringConvertible {
    case sip(SIPURI)
    case tel(TelURI)
    case other(AbsoluteURI)

    /// Parses a URI (RFC 3261 §19.1, RFC 3966, RFC 3986 absolute URIs).
    public init(_ string: String) throws(MessageError) {
        self = try ByteScanner.scan(string) { (scanner) throws(MessageError) -> URI in try URI.parse(&scanner) }
    }

    /// The scheme in lower case: `sip`, `sips`, `tel`, or another.
    public var scheme: String {
        switch self {
        case .sip(let uri): uri.isSecure ? "sips" : "sip"
        case .tel: "tel"
        case .other(let uri): uri.scheme.lowercasedASCII
        }
    }

    /// The SIP URI, when this is one.
    public var sipURI: SIPURI? {
        if case .sip(let uri) = self { return uri }
        return nil
    }

    public var description: String {
        var out: [UInt8] = []
        serialize(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// How many bytes `serialize(into:)` writes.
    var serializedCount: Int {
        if case .sip(let uri) = self { return uri.serializedCount }
        var bytes: [UInt8] = []
        serialize(into: &bytes)
        return bytes.count
    }

    func serialize(into buffer: inout [UInt8]) {
        switch self {
        case .sip(let uri): uri.serialize(into: &buffer)
        case .tel(let uri): uri.serialize(into: &buffer)
        case .other(let uri): uri.serialize(into: &buffer)
        }
    }

    /// URI equivalence: RFC 3261 §19.1.4 for SIP and SIPS, RFC 3966 §4 for tel, case-insensitive scheme and
    /// exact content for others.
    public func isEquivalent(to other: URI) -> Bool {
        switch (self, other) {
        case (.sip(let a), .sip(let b)): a.isEquivalent(to: b)
        case (.tel(let a), .tel(let b)): a.isEquivalent(to: b)
        case (.other(let a), .other(let b)):
            a.scheme.equalsCaseInsensitive(b.scheme) && percentNormalized(a.content) == percentNormalized(b.content)
        default: false
        }
    }
}

/// A `tel:` URI (RFC 3966).
public struct TelURI: Sendable, Hashable, CustomStringConvertible {
    /// The telephone number as written, visual separators included (`+1-201-555-0123`).
    public var number: String
    /// `;ext=`, `;isub=`, `;phone-context=` and other parameters, in order.
    public var parameters: Parameters

    public init(number: String, parameters: Parameters = []) {
        self.number = number
        self.parameters = parameters
    }

    /// A global number starts with `+`; a local one needs a `phone-context`.
    public var isGlobal: Bool { number.utf8.first == ASCII.plus }

    /// The number without visual separators (`-`, `.`, `(`, `)`).
    public var digits: String {
        String(decoding: number.utf8.filter { !Self.isVisualSeparator($0) }, as: UTF8.self)
    }

    public var phoneContext: String? { parameters["phone-context"] }

    static func isVisualSeparator(_ b: UInt8) -> Bool {
        b == ASCII.minus || b == ASCII.dot || b == 0x28 || b == 0x29
    }

    public var description: String {
        var out: [UInt8] = []
        serialize(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func serialize(into buffer: inout [UInt8]) {
        buffer.append("tel:")
        buffer.append(number)
        parameters.serialize(into: &buffer)
    }

    /// RFC 3966 §4: same kind of number, same digits without separators (case-insensitive), same
    /// parameters regardless of order.
    public func isEquivalent(to other: TelURI) -> Bool {
        guard isGlobal == other.isGlobal, digits.lowercasedASCII == other.digits.lowercasedASCII else { return false }
        func normalized(_ p: Parameters) -> [String: String] {
            var out: [String: String] = [:]
            for e in p.elements {
                out[percentDecodedString(e.name).lowercasedASCII] =
                    e.value.map {
                        percentDecodedString($0).lowercasedASCII
                    } ?? ""
            }
            return out
        }
        return normalized(parameters) == normalized(other.parameters)
    }
}

/// Any other absolute URI (`http:`, `urn:`, `isbn:` ...), kept opaque: SIP does not interpret it.
public struct AbsoluteURI: Sendable, Hashable, CustomStringConvertible {
    public var scheme: String
    /// Everything after `scheme:`.
    public var content: String

    public init(scheme: String, content: String) {
        self.scheme = scheme
        self.content = content
    }

    public var description: String { "\(scheme):\(content)" }

    func serialize(into buffer: inout [UInt8]) {
        buffer.append(scheme)
        buffer.append(ASCII.colon)
        buffer.append(content)
    }
}
