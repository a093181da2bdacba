/// One `;name[=value]` parameter of a URI or header field. Values are kept as written: a quoted value
/// keeps its quotes, a URI parameter keeps its %-escapes.
public struct Parameter: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    /// `nil` for a parameter without a value (`;lr`).
    public var value: String?

    public init(_ name: String, _ value: String? = nil) {
        self.name = name
        self.value = value
    }

    public var description: String {
        if let value { return "\(name)=\(value)" }
        return name
    }
}

/// An ordered list of parameters with case-insensitive lookup by name (RFC 3261 §7.3.1, §19.1.1).
public struct Parameters: Sendable, Hashable, RandomAccessCollection, MutableCollection, ExpressibleByArrayLiteral {
    public var elements: [Parameter]

    public init() { elements = [] }
    public init(_ elements: [Parameter]) { self.elements = elements }
    public init(arrayLiteral elements: Parameter...) { self.elements = elements }

    public var startIndex: Int { elements.startIndex }
    public var endIndex: Int { elements.endIndex }
    public subscript(position: Int) -> Parameter {
        get { elements[position] }
        set { elements[position] = newValue }
    }

    /// The index of the first parameter with this name (case-insensitive; escapes decoded).
    public func firstIndex(named name: String) -> Int? {
        elements.firstIndex { Parameters.namesMatch($0.name, name) }
    }

    /// Whether a parameter with this name is present, with or without a value.
    public func contains(_ name: String) -> Bool { firstIndex(named: name) != nil }

    /// The value of the named parameter as written (quotes kept); `nil` if absent or valueless.
    /// Setting a value replaces the first parameter of that name or appends one; setting `nil` removes it.
    public subscript(_ name: String) -> String? {
        get {
            guard let i = firstIndex(named: name) else { return nil }
            return elements[i].value
        }
        set {
            if let newValue {
                set(name, to: newValue)
            } else {
                remove(name)
            }
        }
    }

    /// The value with quotes and quoted-pairs removed.
    public func unquotedValue(_ name: String) -> String? {
        self[name].map(unquoteIfQuoted)
    }

    /// The value with its %-escapes decoded once (for URI parameters).
    public func decodedValue(_ name: String) -> String? {
        self[name].map(percentDecodedString)
    }

    /// Sets `name` to `value` (`nil` for a flag such as `lr` or `rport`), replacing an existing one.
    public mutating func set(_ name: String, to value: String?) {
        if let i = firstIndex(named: name) {
            elements[i].value = value
        } else {
            elements.append(Parameter(name, value))
        }
    }

    /// Removes every parameter with this name.
    public mutating func remove(_ name: String) {
        elements.removeAll { Parameters.namesMatch($0.name, name) }
    }

    static func namesMatch(_ a: String, _ b: String) -> Bool {
        if a.equalsCaseInsensitive(b) { return true }
        // Escapes can only make a name longer than the name it stands for.
        guard a.utf8.count != b.utf8.count, a.utf8.contains(ASCII.percent) || b.utf8.contains(ASCII.percent) else {
            return false
        }
        return percentDecoded(a).map(\.lowercasedASCII) == percentDecoded(b).map(\.lowercasedASCII)
    }

    /// Writes `;name=value` for each parameter.
    func serialize(into buffer: inout [UInt8]) {
        for p in elements {
            buffer.append(ASCII.semicolon)
            buffer.append(p.name)
            if let value = p.value {
                buffer.append(ASCII.equals)
                buffer.append(value)
            }
        }
    }
}

extension Parameters: CustomStringConvertible {
    public var description: String {
        var out: [UInt8] = []
        serialize(into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

extension ByteScanner {
    /// Parses `*( SEMI generic-param )` of a header field: `token [ EQUAL ( token / host / quoted-string ) ]`.
    mutating func parseHeaderParameters(field: KnownHeader?) throws(MessageError) -> Parameters {
        var params = Parameters()
        while consumeSeparator(ASCII.semicolon) {
            guard let name = readToken() else { throw .malformed(field, "empty parameter") }
            var value: String?
            if consumeSeparator(ASCII.equals) {
                if let quoted = readQuotedString() {
                    value = string(quoted)
                } else if let v = read(while: {
                    $0.isTokenChar || $0 == ASCII.colon || $0 == ASCII.leftBracket || $0 == ASCII.rightBracket
                }) {
                    value = string(v)
                } else {
                    throw .malformed(field, "parameter \(string(name)) has no value")
                }
            }
            params.elements.append(Parameter(string(name), value))
        }
        return params
    }
}
