/// A typed header field value that can write itself in wire form.
public protocol SIPHeaderEncodable: Sendable {
    /// Appends the value's wire form (without the field name) to `buffer`.
    func serialize(into buffer: inout [UInt8])
}

extension SIPHeaderEncodable {
    /// The wire form as a string.
    public var wireForm: String {
        var out: [UInt8] = []
        serialize(into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

/// Types parsed from one value of a header field by the shared scanner.
protocol ScannerParsable {
    /// Parses one value starting at the scanner's position (leading LWS already skipped); stops before a
    /// list separator or the end.
    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> Self
}

extension ScannerParsable {
    /// Parses `text` as exactly one value.
    static func parseWhole(_ text: String, field: KnownHeader?) throws(MessageError) -> Self {
        try ByteScanner.scan(text) { (scanner) throws(MessageError) -> Self in
            scanner.skipLWS()
            let value = try parse(&scanner, field: field)
            scanner.skipLWS()
            guard scanner.isAtEnd else { throw .malformed(field, "unexpected text after the value") }
            return value
        }
    }
}

extension SIPFields {
    /// Parses every value of every field of `header`, splitting comma-separated lists.
    @inline(__always)
    func parseList<T: ScannerParsable>(
        _ header: KnownHeader, as type: T.Type, allowEmpty: Bool = false
    ) throws(MessageError) -> [T] {
        var result: [T] = []
        try forEachListValue(header, as: type, allowEmpty: allowEmpty) { result.append($0) }
        return result
    }

    /// Parses every value of every field of `header` in order, handing each to `body`; the errors are
    /// `parseList`'s. Validation passes a body that drops the value, so no array is built to be thrown away.
    @inline(__always)
    func forEachListValue<T: ScannerParsable>(
        _ header: KnownHeader, as type: T.Type, allowEmpty: Bool = false, _ body: (T) -> Void
    ) throws(MessageError) {
        let field: KnownHeader? = header
        for entry in entries where entry.id == header.rawValue {
            try ByteScanner.scan(storage, entry.valueRange) { (scanner) throws(MessageError) in
                scanner.skipLWS()
                if scanner.isAtEnd {
                    if allowEmpty { return }
                    throw .malformed(field, "empty value")
                }
                while true {
                    body(try T.parse(&scanner, field: field))
                    scanner.skipLWS()
                    if scanner.isAtEnd { break }
                    guard scanner.consumeSeparator(ASCII.comma) else {
                        throw .malformed(field, "unexpected character")
                    }
                }
            }
        }
    }

    /// Parses the first value of the first field of `header` only (the fast path for the top Via).
    @inline(__always)
    func parseFirst<T: ScannerParsable>(_ header: KnownHeader, as type: T.Type) throws(MessageError) -> T? {
        guard let entry = firstEntry(header) else { return nil }
        return try ByteScanner.scan(storage, entry.valueRange) { (scanner) throws(MessageError) -> T in
            scanner.skipLWS()
            let field: KnownHeader? = header
            guard !scanner.isAtEnd else { throw .malformed(field, "empty value") }
            let value = try T.parse(&scanner, field: field)
            scanner.skipLWS()
            guard scanner.isAtEnd || scanner.peek() == ASCII.comma else {
                throw .malformed(field, "unexpected character")
            }
            return value
        }
    }

    /// Parses the first field of a single-valued header as exactly one value.
    @inline(__always)
    func parseSingle<T: ScannerParsable>(_ header: KnownHeader, as type: T.Type) throws(MessageError) -> T? {
        guard let entry = firstEntry(header) else { return nil }
        return try ByteScanner.scan(storage, entry.valueRange) { (scanner) throws(MessageError) -> T in
            scanner.skipLWS()
            let field: KnownHeader? = header
            guard !scanner.isAtEnd else { throw .malformed(field, "empty value") }
            let value = try T.parse(&scanner, field: field)
            scanner.skipLWS()
            guard scanner.isAtEnd else { throw .malformed(field, "unexpected text after the value") }
            return value
        }
    }

    /// The first field's value as a range, trimmed.
    func firstValueRange(_ header: KnownHeader) -> Range<Int>? {
        firstEntry(header)?.valueRange
    }

    /// Parses a single decimal field (`Expires: 3600`), rejecting values above `limit`.
    @inline(__always)
    func parseNumber(_ header: KnownHeader, limit: UInt64) throws(MessageError) -> UInt64? {
        guard let entry = firstEntry(header) else { return nil }
        return try ByteScanner.scan(storage, entry.valueRange) { (scanner) throws(MessageError) -> UInt64 in
            scanner.skipLWS()
            guard let digits = scanner.read(while: { $0.isDigit }) else {
                throw .malformed(header, "not a number")
            }
            guard let value = parseDecimal(scanner.bytes, digits, limit: limit) else {
                throw .malformed(header, "value too large")
            }
            // Min-SE, Session-Expires and the like may carry parameters after the number.
            scanner.skipLWS()
            if !scanner.isAtEnd {
                guard scanner.peek() == ASCII.semicolon else {
                    throw .malformed(header, "unexpected text after the number")
                }
                _ = try scanner.parseHeaderParameters(field: header)
                guard scanner.isAtEnd else { throw .malformed(header, "unexpected text") }
            }
            return value
        }
    }

    // MARK: Writing typed values

    /// Replaces every field named `name` with one field holding `value`.
    public mutating func set(_ name: SIPField.Name, _ value: some SIPHeaderEncodable) {
        let position = firstIndex(of: name)
        removeAll(name)
        insert(name, value, at: position ?? entries.count)
    }

    /// Appends a field named `name` holding `value`.
    public mutating func append(_ name: SIPField.Name, _ value: some SIPHeaderEncodable) {
        if let known = name.known, known.displayName == name.rawName {
            appendEncoded(known) { value.serialize(into: &$0) }
        } else {
            insert(name, value, at: entries.count)
        }
    }

    /// Inserts a field named `name` holding `value` at `position`.
    public mutating func insert(_ name: SIPField.Name, _ value: some SIPHeaderEncodable, at position: Int) {
        if let known = name.known, known.displayName == name.rawName {
            appendEncoded(known, at: position) { value.serialize(into: &$0) }
        } else {
            var bytes: [UInt8] = []
            value.serialize(into: &bytes)
            insert(SIPField(name: name, value: String(decoding: bytes, as: UTF8.self)), at: position)
        }
    }
}

extension String: SIPHeaderEncodable {
    public func serialize(into buffer: inout [UInt8]) {
        var text = self
        text.withUTF8 { buffer.append(contentsOf: $0) }
    }
}

extension Int: SIPHeaderEncodable {
    public func serialize(into buffer: inout [UInt8]) { buffer.appendDecimal(self) }
}

extension UInt32: SIPHeaderEncodable {
    public func serialize(into buffer: inout [UInt8]) { buffer.appendDecimal(self) }
}

extension SIPFields {
    /// The Via values of the field at `position` (one field may hold several, comma-separated).
    public func vias(at position: Int) throws(MessageError) -> [Via] {
        try parseFieldValues(at: position)
    }

    func parseFieldValues<T: ScannerParsable>(at position: Int, as type: T.Type = T.self) throws(MessageError) -> [T] {
        guard entries.indices.contains(position) else { return [] }
        let entry = entries[position]
        let field = KnownHeader(rawValue: entry.id)
        var result: [T] = []
        try ByteScanner.scan(storage, entry.valueRange) { (scanner) throws(MessageError) in
            scanner.skipLWS()
            while !scanner.isAtEnd {
                result.append(try T.parse(&scanner, field: field))
                scanner.skipLWS()
                if scanner.isAtEnd { break }
                guard scanner.consumeSeparator(ASCII.comma) else { throw .malformed(field, "unexpected character") }
            }
        }
        return result
    }

    /// Replaces the field at `position` with one field named `name` per value, in order (used to edit the
    /// top Via of a field that holds several).
    public mutating func replaceField(at position: Int, with values: [some SIPHeaderEncodable], name: SIPField.Name) {
        guard entries.indices.contains(position) else { return }
        entries.remove(at: position)
        for (offset, value) in values.enumerated() { insert(name, value, at: position + offset) }
    }
}
