/// The header fields of a message: an ordered collection that keeps duplicates, order and the names'
/// spelling, and compares names canonically (RFC 3261 §7.3; shaped like swift-http-types' `HTTPFields`).
///
/// Parsed fields stay as byte ranges of the received message; a value becomes a `String` only when it is
/// asked for. Fields added through the API are appended to the same byte storage.
public struct SIPFields: Sendable {
    /// Field names and values live here as bytes (for a parsed message: the message itself).
    var storage: [UInt8]
    var entries: [Entry]

    struct Entry: Sendable {
        var nameStart: UInt32
        var valueStart: UInt32
        var valueLength: UInt32
        var nameLength: UInt16
        /// `KnownHeader` raw value, 0 for other names.
        var id: UInt8

        var nameRange: Range<Int> { Int(nameStart)..<Int(nameStart) + Int(nameLength) }
        var valueRange: Range<Int> { Int(valueStart)..<Int(valueStart) + Int(valueLength) }
    }

    /// An empty field collection.
    public init() {
        storage = []
        entries = []
    }

    /// Fields in the given order.
    public init(_ fields: some Sequence<SIPField>) {
        self.init()
        for field in fields { append(field) }
    }

    init(storage: [UInt8], entries: [Entry]) {
        self.storage = storage
        self.entries = entries
    }

    // MARK: Reading

    /// The first value of the named field, or `nil`. Setting replaces every field of that name with one
    /// field (in the position of the first), or removes them all when set to `nil`.
    public subscript(name: SIPField.Name) -> String? {
        get {
            guard let i = firstIndex(of: name) else { return nil }
            return String(bytes: storage, range: entries[i].valueRange)
        }
        set {
            if let newValue {
                if let first = firstIndex(of: name) {
                    self[first] = SIPField(name: name, value: newValue)
                    var i = entries.count - 1
                    while i > first {
                        if matches(entries[i], name) { entries.remove(at: i) }
                        i -= 1
                    }
                } else {
                    append(SIPField(name: name, value: newValue))
                }
            } else {
                removeAll(name)
            }
        }
    }

    /// The values of every field with this name, in order (one per field line; not split at commas).
    public subscript(values name: SIPField.Name) -> [String] {
        get { indices(of: name).map { String(bytes: storage, range: entries[$0].valueRange) } }
        set { self[fields: name] = newValue.map { SIPField(name: name, value: $0) } }
    }

    /// The fields with this name, in order. Setting replaces them: the new fields go where the first old
    /// one was (or at the end).
    public subscript(fields name: SIPField.Name) -> [SIPField] {
        get { indices(of: name).map { self[$0] } }
        set {
            let position = firstIndex(of: name) ?? entries.count
            removeAll(name)
            var at = Swift.min(position, entries.count)
            for field in newValue {
                insert(field, at: at)
                at += 1
            }
        }
    }

    /// The values of every field with this name, each split at the commas that separate list elements
    /// (RFC 3261 §7.3.1): commas inside quoted strings and `<...>` do not split, and the white space around
    /// each element is trimmed. For headers whose grammar is not a comma list (Date, WWW-Authenticate, ...)
    /// use `subscript(values:)`.
    public func listValues(_ name: SIPField.Name) -> [String] {
        var result: [String] = []
        for i in indices(of: name) {
            let range = entries[i].valueRange
            var start = range.lowerBound
            var inQuotes = false
            var angle = 0
            var k = range.lowerBound
            func emit(_ end: Int) {
                var a = start
                var b = end
                while a < b, storage[a] == ASCII.space || storage[a] == ASCII.tab { a += 1 }
                while b > a, storage[b - 1] == ASCII.space || storage[b - 1] == ASCII.tab { b -= 1 }
                if a < b { result.append(String(bytes: storage, range: a..<b)) }
            }
            while k < range.upperBound {
                let b = storage[k]
                if inQuotes {
                    if b == ASCII.backslash {
                        k += 1
                    } else if b == ASCII.quote {
                        inQuotes = false
                    }
                } else if b == ASCII.quote {
                    inQuotes = true
                } else if b == ASCII.lessThan {
                    angle += 1
                } else if b == ASCII.greaterThan {
                    angle = Swift.max(0, angle - 1)
                } else if b == ASCII.comma, angle == 0 {
                    emit(k)
                    start = k + 1
                }
                k += 1
            }
            emit(Swift.min(k, range.upperBound))
        }
        return result
    }

    /// Whether a field with this name is present.
    public func contains(_ name: SIPField.Name) -> Bool { firstIndex(of: name) != nil }

    /// The position of the first field with this name.
    public func firstIndex(of name: SIPField.Name) -> Int? {
        entries.firstIndex { matches($0, name) }
    }

    /// The positions of the fields with this name.
    public func indices(of name: SIPField.Name) -> [Int] {
        entries.indices.filter { matches(entries[$0], name) }
    }

    func matches(_ entry: Entry, _ name: SIPField.Name) -> Bool {
        if name.id != 0 { return entry.id == name.id }
        guard entry.id == 0 else { return false }
        return bytesEqualCaseInsensitive(storage, entry.nameRange, Array(name.canonicalName.utf8))
    }

    /// The first entry of a known header: two entries per bound test (every hot reader starts here, and the
    /// headers it looks for are usually among the first eight).
    @inline(__always)
    func firstEntry(_ header: KnownHeader) -> Entry? {
        let id = header.rawValue
        return entries.withUnsafeBufferPointer { (buffer) -> Entry? in
            let count = buffer.count
            var k = 0
            while k &+ 2 <= count {
                if buffer[k].id == id { return buffer[k] }
                if buffer[k &+ 1].id == id { return buffer[k &+ 1] }
                k &+= 2
            }
            if k < count, buffer[k].id == id { return buffer[k] }
            return nil
        }
    }

    func count(of header: KnownHeader) -> Int {
        var n = 0
        for entry in entries where entry.id == header.rawValue { n += 1 }
        return n
    }

    // MARK: Writing

    /// Appends a field at the end.
    public mutating func append(_ field: SIPField) {
        entries.append(makeEntry(field))
    }

    /// Appends a field at the end.
    public mutating func append(name: SIPField.Name, value: String) {
        append(SIPField(name: name, value: value))
    }

    /// Inserts a field at `position` (0 puts it first, as a proxy does with its Via).
    public mutating func insert(_ field: SIPField, at position: Int) {
        entries.insert(makeEntry(field), at: Swift.max(0, Swift.min(position, entries.count)))
    }

    /// Removes and returns the field at `position`.
    @discardableResult
    public mutating func remove(at position: Int) -> SIPField {
        let field = self[position]
        entries.remove(at: position)
        return field
    }

    /// Removes every field with this name.
    public mutating func removeAll(_ name: SIPField.Name) {
        let kept = entries.filter { !matches($0, name) }
        entries = kept
    }

    /// Removes every field for which `shouldBeRemoved` is true.
    public mutating func removeAll(where shouldBeRemoved: (SIPField) throws -> Bool) rethrows {
        var kept: [Entry] = []
        kept.reserveCapacity(entries.count)
        for i in entries.indices where try !shouldBeRemoved(self[i]) { kept.append(entries[i]) }
        entries = kept
    }

    mutating func makeEntry(_ field: SIPField) -> Entry {
        reserveForBuilding()
        let nameStart = storage.count
        storage.append(contentsOf: field.name.rawName.utf8)
        let nameLength = storage.count - nameStart
        let valueStart = storage.count
        for b in field.value.utf8 {
            storage.append(b == ASCII.cr || b == ASCII.lf || b == 0 ? ASCII.space : b)
        }
        return Entry(
            nameStart: UInt32(truncatingIfNeeded: nameStart),
            valueStart: UInt32(truncatingIfNeeded: valueStart),
            valueLength: UInt32(truncatingIfNeeded: storage.count - valueStart),
            nameLength: UInt16(truncatingIfNeeded: nameLength),
            id: field.name.id)
    }

    /// Room for a typical message's fields, taken when the first field is added to an empty collection, so
    /// that building a request or response does not grow the tables field by field.
    static let initialEntryCapacity = 16
    static let initialStorageCapacity = 512

    @inline(__always)
    mutating func reserveForBuilding() {
        if entries.capacity == 0 { entries.reserveCapacity(SIPFields.initialEntryCapacity) }
        if storage.capacity == 0 { storage.reserveCapacity(SIPFields.initialStorageCapacity) }
    }

    /// Appends a field whose value is written by `write` straight into the storage (typed values).
    mutating func appendEncoded(_ header: KnownHeader, at position: Int? = nil, _ write: (inout [UInt8]) -> Void) {
        reserveForBuilding()
        var name = header.displayName
        let nameStart = storage.count
        name.withUTF8 { storage.append(contentsOf: $0) }
        let valueStart = storage.count
        write(&storage)
        let needsCleaning = storage.withUnsafeBufferPointer {
            UnsafeBufferPointer(rebasing: $0[valueStart...]).containsLineBreakOrNUL
        }
        if needsCleaning {
            for i in valueStart..<storage.count where storage[i] == ASCII.cr || storage[i] == ASCII.lf {
                storage[i] = ASCII.space
            }
        }
        let entry = Entry(
            nameStart: UInt32(truncatingIfNeeded: nameStart),
            valueStart: UInt32(truncatingIfNeeded: valueStart),
            valueLength: UInt32(truncatingIfNeeded: storage.count - valueStart),
            nameLength: UInt16(truncatingIfNeeded: valueStart - nameStart),
            id: header.rawValue)
        if let position {
            entries.insert(entry, at: Swift.max(0, Swift.min(position, entries.count)))
        } else {
            entries.append(entry)
        }
    }
}

extension SIPFields: RandomAccessCollection, MutableCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { entries.count }

    public subscript(position: Int) -> SIPField {
        get {
            let entry = entries[position]
            return SIPField(
                name: SIPField.Name(storage: storage, range: entry.nameRange, id: entry.id),
                value: String(bytes: storage, range: entry.valueRange))
        }
        set { entries[position] = makeEntry(newValue) }
    }
}

extension SIPFields: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: SIPField...) {
        self.init(elements)
    }
}

extension SIPFields: Hashable {
    public static func == (a: SIPFields, b: SIPFields) -> Bool {
        guard a.entries.count == b.entries.count else { return false }
        for (x, y) in zip(a.entries, b.entries) {
            guard x.id == y.id else { return false }
            if x.id == 0 {
                guard x.nameLength == y.nameLength else { return false }
                for (p, q) in zip(x.nameRange, y.nameRange)
                where a.storage[p].lowercasedASCII != b.storage[q].lowercasedASCII {
                    return false
                }
            }
            guard a.storage[x.valueRange] == b.storage[y.valueRange] else { return false }
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(entries.count)
        for entry in entries {
            hasher.combine(entry.id)
            if entry.id == 0 {
                for i in entry.nameRange { hasher.combine(storage[i].lowercasedASCII) }
            }
            hasher.combine(entry.valueLength)
            for i in entry.valueRange { hasher.combine(storage[i]) }
        }
    }
}

extension SIPFields: CustomStringConvertible {
    public var description: String {
        map(\.description).joined(separator: "\r\n")
    }
}
