/// `name-addr / addr-spec` with header parameters: the value of From, To, Route, Record-Route, Refer-To,
/// Referred-By, P-Asserted-Identity and, inside `Contact`, each contact (RFC 3261 §20.10, §25.1).
///
/// A parsed address is a view of the bytes it arrived in (one reference, no strings until a part is read);
/// setting a part rebuilds it in the canonical `"Display" <uri>;params` form.
public struct NameAddress: Sendable, CustomStringConvertible, SIPHeaderEncodable {
    /// How the display name was written.
    enum DisplayName: Sendable {
        case none
        /// A quoted-string, quotes included.
        case quoted(ByteRange)
        /// `*(token LWS)`: read by collapsing white space.
        case tokens(ByteRange)
    }

    /// The URI: a SIP URI's layout in the same source, or another URI kept as a value.
    @usableFromInline
    enum Address: Sendable {
        case sip(SIPURILayout)
        case other(URI)
    }

    // In this order the value takes 125 bytes instead of 129: at most 128, it is copied with a few moves
    // rather than a memcpy call (it is returned through several layers on every From, To and Contact).
    @usableFromInline var source: [UInt8]
    var whole: ByteRange
    var parametersRange: ByteRange
    @usableFromInline var address: Address
    var display: DisplayName
    /// Where `tag` is, when the parser recorded it.
    @usableFromInline var tagParameter: KnownParameter = .unknown

    public init(displayName: String? = nil, uri: URI, parameters: Parameters = []) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(NameAddress.estimatedSize(displayName, uri, parameters))
        var display = DisplayName.none
        if let displayName, !displayName.isEmpty {
            let start = bytes.count
            appendQuoted(displayName, to: &bytes)
            display = .quoted(ByteRange(start: start, end: bytes.count))
            bytes.append(ASCII.space)
        }
        bytes.append(ASCII.lessThan)
        let address: Address
        switch uri {
        case .sip(let sip):
            let delta = bytes.count - Int(sip.layout.whole.start)
            bytes.append(contentsOf: sip.source[sip.layout.whole.range])
            address = .sip(sip.layout.shifted(by: delta))
        default:
            uri.serialize(into: &bytes)
            address = .other(uri)
        }
        bytes.append(ASCII.greaterThan)
        let parametersStart = bytes.count
        Parameters.writeHeaderParameters(parameters.elements, into: &bytes)
        self.source = bytes
        self.whole = ByteRange(start: 0, end: bytes.count)
        self.display = display
        self.address = address
        self.parametersRange = ByteRange(start: parametersStart, end: bytes.count)
    }

    public init(displayName: String? = nil, uri: SIPURI, parameters: Parameters = []) {
        self.init(displayName: displayName, uri: .sip(uri), parameters: parameters)
    }

    /// The bytes `init(displayName:uri:parameters:)` writes when nothing needs escaping or quoting: enough
    /// that the usual value is written without the buffer growing.
    static func estimatedSize(_ displayName: String?, _ uri: URI, _ parameters: Parameters) -> Int {
        var n = (displayName?.utf8.count ?? 0) + 5 + parameters.writtenSizeEstimate
        if case .sip(let sip) = uri { n += sip.layout.whole.count } else { n += 48 }
        return n
    }

    /// Parses one name-addr or addr-spec with its parameters.
    public init(_ text: String) throws(MessageError) {
        self = try NameAddress.parseWhole(text, field: nil)
    }

    init(source: [UInt8], whole: ByteRange, display: DisplayName, address: Address, parameters: ByteRange) {
        self.source = source
        self.whole = whole
        self.display = display
        self.address = address
        self.parametersRange = parameters
    }

    /// The display name, decoded (no quotes, no quoted-pair escapes).
    public var displayName: String? {
        get {
            switch display {
            case .none: return nil
            case .quoted(let r): return unquote(source, r.range)
            case .tokens(let r):
                return source[r.range].withContiguousStorageIfAvailable(collapseWhiteSpace) ?? source.string(r)
            }
        }
        set { self = NameAddress(displayName: newValue, uri: uri, parameters: parameters) }
    }

    public var uri: URI {
        @inlinable get {
            switch address {
            case .sip(let layout): return .sip(SIPURI(source: source, layout: layout))
            case .other(let uri): return uri
            }
        }
        set { self = NameAddress(displayName: displayName, uri: newValue, parameters: parameters) }
    }

    /// Header parameters (`;tag=`, `;expires=`, ...), values as written.
    public var parameters: Parameters {
        get { Parameters(wire: source, range: parametersRange.range, isURI: false) }
        set { self = NameAddress(displayName: displayName, uri: uri, parameters: newValue) }
    }

    /// The `tag` parameter (RFC 3261 §19.3).
    public var tag: String? {
        @inlinable get {
            switch tagParameter {
            case .value(let range): return source.string(range)
            case .absent, .flag: return nil
            case .unknown: return parameters["tag"]
            }
        }
        set {
            if let newValue, appendTagInPlace(newValue) { return }
            var p = parameters
            p["tag"] = newValue
            parameters = p
        }
    }

    /// The bytes of `tag`, read in place from the message: no string is made.
    public var tagBytes: SIPBytes? {
        @inlinable @inline(__always) get {
            switch tagParameter {
            case .value(let range): return source.view(range)
            case .absent, .flag: return nil
            case .unknown: return lookedUpTagBytes()
            }
        }
    }

    /// `tagBytes` of an address built through the API, which has no recorded tag.
    @usableFromInline
    func lookedUpTagBytes() -> SIPBytes? { parameters["tag"].map { SIPBytes($0.utf8) } }

    public var description: String { wireForm }

    /// Writes the address as received, or in the `"Display" <uri>;params` form it was built in.
    public func serialize(into buffer: inout [UInt8]) {
        buffer.append(contentsOf: source[whole.range])
    }
}

extension NameAddress: Hashable {
    public static func == (a: NameAddress, b: NameAddress) -> Bool {
        a.displayName == b.displayName && a.uri == b.uri && a.parameters == b.parameters
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(displayName)
        hasher.combine(uri)
        hasher.combine(parameters)
    }
}

extension NameAddress: ScannerParsable {
    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> NameAddress {
        if let address = parseFast(&scanner) { return address }
        return try parseGeneral(&scanner, field: field)
    }

    /// Reads any name-addr or addr-spec with its parameters (`parse` tries `parseFast` first).
    static func parseGeneral(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> NameAddress {
        let start = scanner.index
        let (display, address) = try parseAddress(&scanner, field: field)
        let bytes = scanner.bytes
        var tag = KnownParameter.absent
        let parameters = try scanner.validateHeaderParameters(field: field) { name, value in
            if packedLowercaseToken(bytes, name) == ParameterName.tag { tag.record(value) }
            return nil
        }
        var result = NameAddress(
            source: scanner.owner, whole: ByteRange(start: start, end: scanner.index), display: display,
            address: address, parameters: ByteRange(parameters))
        result.tagParameter = tag
        return result
    }

    /// Parses `[display-name] <URI>` or a bare addr-spec, leaving the scanner before any parameters.
    @inline(__always)
    static func parseAddress(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError)
        -> (DisplayName, Address)
    {
        scanner.skipLWS()
        var display = DisplayName.none
        if scanner.peek() == ASCII.quote {
            guard let quoted = scanner.readQuotedString() else {
                throw .malformed(field, "unterminated quoted display name")
            }
            display = .quoted(ByteRange(quoted))
            scanner.skipLWS()
            guard scanner.peek() == ASCII.lessThan else { throw .malformed(field, "expected '<' after display name") }
        } else if scanner.peek() != ASCII.lessThan {
            // A token display name (`Bob Jones <sip:...>`), or an addr-spec.
            let start = scanner.index
            var lastTokenEnd = start
            while scanner.readToken() != nil {
                lastTokenEnd = scanner.index
                scanner.skipLWS()
            }
            if scanner.peek() == ASCII.lessThan, lastTokenEnd > start {
                display = .tokens(ByteRange(start: start, end: lastTokenEnd))
            } else {
                scanner.index = start
            }
        }

        if scanner.consume(ASCII.lessThan) {
            let uriStart = scanner.index
            guard scanner.advance(to: ASCII.greaterThan) else { throw .malformed(field, "missing '>'") }
            let uriRange = uriStart..<scanner.index
            scanner.advance()
            return (display, try parseURI(scanner, uriRange, field: field))
        }

        // addr-spec: the URI ends at the first ';', ',' or white space; it may hold neither '?' nor ';'.
        let uriStart = scanner.index
        while let b = scanner.peek(), b != ASCII.semicolon, b != ASCII.comma, !b.isSIPWhitespace, b != ASCII.cr,
            b != ASCII.lf
        {
            scanner.advance()
        }
        let uriRange = uriStart..<scanner.index
        guard !uriRange.isEmpty else { throw .malformed(field, "missing URI") }
        if uriRange.contains(where: { scanner.bytes[$0] == ASCII.question }) {
            throw .malformed(field, "URI with headers must be enclosed in '<' '>'")
        }
        return (display, try parseURI(scanner, uriRange, field: field))
    }

    private static func parseURI(_ scanner: ByteScanner, _ range: Range<Int>, field: KnownHeader?)
        throws(MessageError) -> Address
    {
        var uriScanner = scanner.subscanner(range)
        do {
            if let layout = try URI.parseSIPLayout(&uriScanner) { return .sip(layout) }
            return .other(try URI.parse(&uriScanner))
        } catch {
            throw .malformed(field, "bad URI (\(error.uriProblem))")
        }
    }
}

/// One value of the Contact header field: an address with its parameters, or `*` (RFC 3261 §20.10).
public enum Contact: Sendable, Hashable, CustomStringConvertible, SIPHeaderEncodable {
    /// `Contact: *`, used to remove all bindings with `Expires: 0`.
    case wildcard
    case address(NameAddress)

    public init(_ text: String) throws(MessageError) {
        self = try Contact.parseWhole(text, field: .contact)
    }

    /// The address, unless this is the wildcard.
    public var nameAddress: NameAddress? {
        if case .address(let a) = self { return a }
        return nil
    }

    public var uri: URI? { nameAddress?.uri }

    /// The `expires` parameter in seconds.
    public var expires: UInt32? {
        nameAddress?.parameters["expires"].flatMap { UInt32($0) }
    }

    /// The `q` parameter (0...1).
    public var q: Double? {
        nameAddress?.parameters["q"].flatMap { Double($0) }
    }

    /// The `+sip.instance` parameter without its quotes and angle brackets (RFC 5626 §4.1).
    public var instanceID: String? {
        guard var value = nameAddress?.parameters.unquotedValue("+sip.instance") else { return nil }
        if value.hasPrefix("<"), value.hasSuffix(">") {
            value.removeFirst()
            value.removeLast()
        }
        return value
    }

    /// The `reg-id` parameter (RFC 5626 §4.2).
    public var regID: Int? { nameAddress?.parameters["reg-id"].flatMap { Int($0) } }

    public var description: String { wireForm }

    public func serialize(into buffer: inout [UInt8]) {
        switch self {
        case .wildcard: buffer.append(ASCII.star)
        case .address(let address): address.serialize(into: &buffer)
        }
    }
}

extension Contact: ScannerParsable {
    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> Contact {
        if scanner.peek() == ASCII.star {
            let saved = scanner.index
            scanner.advance()
            scanner.skipLWS()
            if scanner.isAtEnd { return .wildcard }
            scanner.index = saved
        }
        return .address(try NameAddress.parse(&scanner, field: field))
    }
}
