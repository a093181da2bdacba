/// `name-addr / addr-spec` with header parameters: the value of From, To, Route, Record-Route, Refer-To,
/// Referred-By, P-Asserted-Identity and, inside `Contact`, each contact (RFC 3261 §20.10, §25.1).
public struct NameAddress: Sendable, Hashable, CustomStringConvertible, SIPHeaderEncodable {
    /// The display name, decoded (no quotes, no quoted-pair escapes).
    public var displayName: String?
    public var uri: URI
    /// Header parameters (`;tag=`, `;expires=`, ...), values as written.
    public var parameters: Parameters

    public init(displayName: String? = nil, uri: URI, parameters: Parameters = []) {
        self.displayName = displayName
        self.uri = uri
        self.parameters = parameters
    }

    public init(displayName: String? = nil, uri: SIPURI, parameters: Parameters = []) {
        self.init(displayName: displayName, uri: .sip(uri), parameters: parameters)
    }

    /// Parses one name-addr or addr-spec with its parameters.
    public init(_ text: String) throws(MessageError) {
        self = try NameAddress.parseWhole(text, field: nil)
    }

    /// The `tag` parameter (RFC 3261 §19.3).
    public var tag: String? {
        get { parameters["tag"] }
        set { parameters["tag"] = newValue }
    }

    public var description: String { wireForm }

    /// Always writes the name-addr form (`<...>`), which is never ambiguous.
    public func serialize(into buffer: inout [UInt8]) {
        if let displayName, !displayName.isEmpty {
            appendQuoted(displayName, to: &buffer)
            buffer.append(ASCII.space)
        }
        buffer.append(ASCII.lessThan)
        uri.serialize(into: &buffer)
        buffer.append(ASCII.greaterThan)
        parameters.serialize(into: &buffer)
    }
}

extension NameAddress: ScannerParsable {
    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> NameAddress {
        let (displayName, uri) = try parseAddress(&scanner, field: field)
        let parameters = try scanner.parseHeaderParameters(field: field)
        return NameAddress(displayName: displayName, uri: uri, parameters: parameters)
    }

    /// Parses `[display-name] <URI>` or a bare addr-spec, leaving the scanner before any parameters.
    static func parseAddress(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> (String?, URI) {
        scanner.skipLWS()
        var displayName: String?
        if scanner.peek() == ASCII.quote {
            guard let quoted = scanner.readQuotedString() else {
                throw .malformed(field, "unterminated quoted display name")
            }
            displayName = unquote(scanner.bytes, quoted)
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
                displayName = scanner.normalizedString(start..<lastTokenEnd)
            } else {
                scanner.index = start
            }
        }

        if scanner.consume(ASCII.lessThan) {
            let uriStart = scanner.index
            while let b = scanner.peek(), b != ASCII.greaterThan { scanner.advance() }
            guard scanner.peek() == ASCII.greaterThan else { throw .malformed(field, "missing '>'") }
            let uriRange = uriStart..<scanner.index
            scanner.advance()
            do {
                return (displayName, try URI.parse(scanner.bytes, uriRange))
            } catch {
                throw .malformed(field, "bad URI (\(error.uriProblem))")
            }
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
        if scanner.bytes[uriRange].contains(ASCII.question) {
            throw .malformed(field, "URI with headers must be enclosed in '<' '>'")
        }
        do {
            return (nil, try URI.parse(scanner.bytes, uriRange))
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
