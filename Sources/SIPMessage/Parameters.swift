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
///
/// Parsed parameters stay as the bytes they arrived in and are read from there when asked for, so a Via
/// or a From costs no array and no strings until its `branch` or `tag` is wanted; the first edit turns
/// them into a list.
public struct Parameters: Sendable, Sequence, ExpressibleByArrayLiteral {
    enum Storage: Sendable {
        case list([Parameter])
        /// Validated `*( ";" name [ "=" value ] )` bytes: header parameters (LWS and quoted values
        /// allowed) or URI parameters (%-escapes, no LWS).
        case wire(bytes: [UInt8], range: Range<Int>, isURI: Bool)
    }

    var storage: Storage

    public init() { storage = .list([]) }
    public init(_ elements: [Parameter]) { storage = .list(elements) }
    public init(arrayLiteral elements: Parameter...) { storage = .list(elements) }

    init(wire bytes: [UInt8], range: Range<Int>, isURI: Bool) {
        storage = range.isEmpty ? .list([]) : .wire(bytes: bytes, range: range, isURI: isURI)
    }

    /// The parameters in order, as a list.
    public var elements: [Parameter] {
        get {
            switch storage {
            case .list(let list):
                return list
            case .wire(let bytes, let range, let isURI):
                var list: [Parameter] = []
                Parameters.scan(bytes, range, isURI: isURI) { name, value in
                    list.append(
                        Parameter(String(bytes: bytes, range: name), value.map { String(bytes: bytes, range: $0) }))
                    return true
                }
                return list
            }
        }
        set { storage = .list(newValue) }
    }

    public func makeIterator() -> IndexingIterator<[Parameter]> { elements.makeIterator() }

    public var isEmpty: Bool {
        switch storage {
        case .list(let list): list.isEmpty
        case .wire: false
        }
    }

    public var count: Int {
        switch storage {
        case .list(let list):
            return list.count
        case .wire(let bytes, let range, let isURI):
            var n = 0
            Parameters.scan(bytes, range, isURI: isURI) { _, _ in
                n += 1
                return true
            }
            return n
        }
    }

    /// The first parameter with this name (case-insensitive; for URI parameters, escapes decoded).
    public func first(named name: String) -> Parameter? {
        switch storage {
        case .list(let list):
            return list.first { Parameters.namesMatch($0.name, name) }
        case .wire(let bytes, let range, let isURI):
            func find(_ wanted: UnsafeBufferPointer<UInt8>) -> Parameter? {
                var found: Parameter?
                Parameters.scan(bytes, range, isURI: isURI) { n, v in
                    guard Parameters.nameMatches(bytes, n, wanted, decoding: isURI) else { return true }
                    found = Parameter(String(bytes: bytes, range: n), v.map { String(bytes: bytes, range: $0) })
                    return false
                }
                return found
            }
            if let found = name.utf8.withContiguousStorageIfAvailable(find) { return found }
            return Array(name.utf8).withUnsafeBufferPointer(find)
        }
    }

    /// Whether a parameter with this name is present, with or without a value.
    public func contains(_ name: String) -> Bool { first(named: name) != nil }

    /// The value of the named parameter as written (quotes kept); `nil` if absent or valueless.
    /// Setting a value replaces the first parameter of that name or appends one; setting `nil` removes it.
    public subscript(_ name: String) -> String? {
        get {
            guard case .wire(let bytes, let range, let isURI) = storage else { return first(named: name)?.value }
            func find(_ wanted: UnsafeBufferPointer<UInt8>) -> String? {
                var found: String?
                Parameters.scan(bytes, range, isURI: isURI) { n, v in
                    guard Parameters.nameMatches(bytes, n, wanted, decoding: isURI) else { return true }
                    found = v.map { String(bytes: bytes, range: $0) }
                    return false
                }
                return found
            }
            if let found = name.utf8.withContiguousStorageIfAvailable(find) { return found }
            return Array(name.utf8).withUnsafeBufferPointer(find)
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
        var list = elements
        if let i = list.firstIndex(where: { Parameters.namesMatch($0.name, name) }) {
            list[i].value = value
        } else {
            list.append(Parameter(name, value))
        }
        storage = .list(list)
    }

    /// Removes every parameter with this name.
    public mutating func remove(_ name: String) {
        storage = .list(elements.filter { !Parameters.namesMatch($0.name, name) })
    }

    /// Appends a parameter.
    public mutating func append(_ parameter: Parameter) {
        var list = elements
        list.append(parameter)
        storage = .list(list)
    }

    static func namesMatch(_ a: String, _ b: String) -> Bool {
        if a.equalsCaseInsensitive(b) { return true }
        guard a.utf8.count != b.utf8.count, a.utf8.contains(ASCII.percent) || b.utf8.contains(ASCII.percent) else {
            return false
        }
        return percentDecoded(a).map(\.lowercasedASCII) == percentDecoded(b).map(\.lowercasedASCII)
    }

    static func nameMatches(
        _ bytes: [UInt8], _ name: Range<Int>, _ wanted: UnsafeBufferPointer<UInt8>, decoding: Bool
    ) -> Bool {
        if name.count == wanted.count {
            var j = 0
            var equal = true
            for i in name {
                if bytes[i].lowercasedASCII != wanted[j].lowercasedASCII {
                    equal = false
                    break
                }
                j += 1
            }
            if equal { return true }
        }
        guard decoding, name.count > wanted.count, bytes[name].contains(ASCII.percent) else { return false }
        return namesMatch(String(bytes: bytes, range: name), String(decoding: wanted, as: UTF8.self))
    }

    /// Walks validated parameter bytes, calling `body(name, value)` until it returns false.
    @inline(__always)
    static func scan(
        _ bytes: [UInt8], _ range: Range<Int>, isURI: Bool, _ body: (Range<Int>, Range<Int>?) -> Bool
    ) {
        bytes.withUnsafeBufferPointer { buffer in
            scanWire(buffer, range, isURI: isURI, body)
        }
    }

    private static func scanWire(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, isURI: Bool, _ body: (Range<Int>, Range<Int>?) -> Bool
    ) {
        var i = range.lowerBound
        let end = Swift.min(range.upperBound, bytes.count)
        func skipLWS() {
            while i < end {
                let b = bytes[i]
                if b == ASCII.space || b == ASCII.tab || b == ASCII.cr || b == ASCII.lf { i += 1 } else { return }
            }
        }
        while true {
            if !isURI { skipLWS() }
            guard i < end, bytes[i] == ASCII.semicolon else { return }
            i += 1
            if !isURI { skipLWS() }
            let nameStart = i
            while i < end, isURI ? (bytes[i].isURIParamChar || bytes[i] == ASCII.percent) : bytes[i].isTokenChar {
                i += 1
            }
            let name = nameStart..<i
            guard !name.isEmpty else { return }
            var value: Range<Int>?
            let beforeEquals = i
            if !isURI { skipLWS() }
            if i < end, bytes[i] == ASCII.equals {
                i += 1
                if !isURI { skipLWS() }
                let start = i
                if isURI {
                    while i < end, bytes[i].isURIParamChar || bytes[i] == ASCII.percent { i += 1 }
                } else if i < end, bytes[i] == ASCII.quote {
                    i += 1
                    while i < end, bytes[i] != ASCII.quote {
                        i += bytes[i] == ASCII.backslash ? 2 : 1
                    }
                    i = Swift.min(i + 1, end)
                } else {
                    while i < end, bytes[i].isGenericValueChar { i += 1 }
                }
                value = start..<i
            } else {
                i = beforeEquals
            }
            guard body(name, value) else { return }
        }
    }

    /// Writes header parameters from the API: names that are not tokens are dropped, values that are neither
    /// tokens, hosts nor quoted-strings are written as quoted-strings.
    static func writeHeaderParameters(_ list: [Parameter], into buffer: inout [UInt8]) {
        for p in list where !writeTokenParameter(p, into: &buffer) {
            writeHeaderParameterInGeneral(p, into: &buffer)
        }
    }

    /// `writeHeaderParameters` for one parameter with a token name and no value or a value it would write as
    /// it is (all gen-value characters), read in place without copies; returns false, having written nothing, for any other parameter.
    @inline(__always)
    static func writeTokenParameter(_ p: Parameter, into buffer: inout [UInt8]) -> Bool {
        let written = p.name.utf8.withContiguousStorageIfAvailable { name -> Bool in
            guard !name.isEmpty, name.allSatisfy({ $0.isTokenChar }) else { return false }
            guard let value = p.value else {
                buffer.append(ASCII.semicolon)
                buffer.append(contentsOf: name)
                return true
            }
            let valueWritten = value.utf8.withContiguousStorageIfAvailable { value -> Bool in
                guard !value.isEmpty, value.allSatisfy({ $0.isGenericValueChar }) else { return false }
                buffer.append(ASCII.semicolon)
                buffer.append(contentsOf: name)
                buffer.append(ASCII.equals)
                buffer.append(contentsOf: value)
                return true
            }
            return valueWritten ?? false
        }
        return written ?? false
    }

    /// `writeHeaderParameters` for one parameter of any shape.
    static func writeHeaderParameterInGeneral(_ p: Parameter, into buffer: inout [UInt8]) {
        guard !p.name.isEmpty, p.name.utf8.allSatisfy({ $0.isTokenChar }) else { return }
        buffer.append(ASCII.semicolon)
        buffer.append(p.name)
        guard let value = p.value else { return }
        buffer.append(ASCII.equals)
        let utf8 = Array(value.utf8)
        if !utf8.isEmpty, isQuotedString(utf8) || utf8.allSatisfy({ $0.isGenericValueChar }) {
            buffer.append(contentsOf: utf8)
        } else {
            appendQuoted(value, to: &buffer)
        }
    }

    /// About how many bytes `writeHeaderParameters` writes for these parameters (exactly, when no value
    /// needs quoting), to size a buffer up front.
    var writtenSizeEstimate: Int {
        switch storage {
        case .list(let list):
            var n = 0
            for p in list { n += p.name.utf8.count + (p.value?.utf8.count ?? 0) + 2 }
            return n
        case .wire(_, let range, _):
            return range.count
        }
    }

    /// Writes `;name=value` for each parameter (no white space, whatever the input had).
    func serialize(into buffer: inout [UInt8]) {
        switch storage {
        case .list(let list):
            for p in list {
                buffer.append(ASCII.semicolon)
                buffer.append(p.name)
                if let value = p.value {
                    buffer.append(ASCII.equals)
                    buffer.append(value)
                }
            }
        case .wire(let bytes, let range, let isURI):
            Parameters.scan(bytes, range, isURI: isURI) { name, value in
                buffer.append(ASCII.semicolon)
                buffer.append(contentsOf: bytes[name])
                if let value {
                    buffer.append(ASCII.equals)
                    buffer.append(contentsOf: bytes[value])
                }
                return true
            }
        }
    }
}

/// Whether `bytes` is exactly one well-formed quoted-string.
func isQuotedString(_ bytes: [UInt8]) -> Bool {
    guard bytes.count >= 2, bytes[0] == ASCII.quote else { return false }
    var i = 1
    while i < bytes.count {
        switch bytes[i] {
        case ASCII.backslash: i += 2
        case ASCII.quote: return i == bytes.count - 1
        case ASCII.cr, ASCII.lf: return false
        default: i += 1
        }
    }
    return false
}

extension Parameters: Hashable {
    public static func == (a: Parameters, b: Parameters) -> Bool { a.elements == b.elements }
    public func hash(into hasher: inout Hasher) { hasher.combine(elements) }
}

extension Parameters: CustomStringConvertible {
    public var description: String {
        var out: [UInt8] = []
        serialize(into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

extension ByteScanner {
    /// Validates `*( SEMI generic-param )` of a header field (`token [ EQUAL ( token / host / quoted-string ) ]`)
    /// and returns the parameters as a view of those bytes.
    mutating func parseHeaderParameters(field: KnownHeader?) throws(MessageError) -> Parameters {
        let range = try validateHeaderParameters(field: field) { _, _ in nil }
        return Parameters(wire: owner, range: range, isURI: false)
    }

    /// Validates `*( SEMI generic-param )` of a header field, calling `inspect(name, value)` for each parameter
    /// (a non-nil result is the problem to report), and returns the range the parameters cover.
    @inline(__always)
    mutating func validateHeaderParameters(
        field: KnownHeader?, inspect: (Range<Int>, Range<Int>?) -> String?
    ) throws(MessageError) -> Range<Int> {
        let start = index
        var end = index
        while consumeSeparator(ASCII.semicolon) {
            guard let name = readToken() else { throw .malformed(field, "empty parameter") }
            var value: Range<Int>?
            if consumeSeparator(ASCII.equals) {
                // A quote cannot start a gen-value token: no call for the usual unquoted value.
                value = peek() == ASCII.quote ? readQuotedString() : read(while: { $0.isGenericValueChar })
                guard value != nil else { throw .malformed(field, "parameter without a value after '='") }
            }
            if let problem = inspect(name, value) { throw .malformed(field, problem) }
            end = index
        }
        index = end
        return start..<end
    }
}

/// A header parameter the stack reads often (`branch`, `tag`), located while its field was validated so that
/// reading it needs no second scan.
@usableFromInline
enum KnownParameter: Sendable {
    /// Not recorded (a value built through the API): look it up.
    case unknown
    case absent
    /// Present without a value.
    case flag
    /// The first parameter of that name has this value.
    case value(ByteRange)

    /// Records the first parameter of a name: only the first one counts, as for `Parameters` lookups.
    @inline(__always)
    mutating func record(_ value: Range<Int>?) {
        guard case .absent = self else { return }
        self = value.map { .value(ByteRange($0)) } ?? .flag
    }
}
