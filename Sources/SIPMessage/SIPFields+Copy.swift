/// Copying fields from one collection to another as bytes, for the responses a UAS builds from a request
/// (RFC 3261 §8.2.6.2: Via, From, To, Call-ID and CSeq copied): going through `SIPField` would make a `String`
/// of every name and value only to write its bytes back.
extension SIPFields {
    /// An empty collection with room for `bytes` bytes of names and values and `fields` fields, for a message
    /// built field by field whose size is roughly known (a response to a request).
    package init(reservingCapacity bytes: Int, fields: Int) {
        self.init()
        storage.reserveCapacity(bytes)
        entries.reserveCapacity(fields)
    }

    /// Appends a copy of every field of `source` named `name`, in order: the name spelled as it is there and
    /// the value byte for byte, except that CR, LF and NUL become spaces, as `append(_:)` writes them (a value
    /// received with a line fold holds a CRLF). Returns how many fields were copied.
    @discardableResult
    package mutating func appendCopies(of name: SIPField.Name, from source: SIPFields) -> Int {
        var copied = 0
        if name.id != 0 {
            // A known name: its entries found by id alone.
            let id = name.id
            for entry in source.entries where entry.id == id {
                appendCopy(of: entry, from: source.storage)
                copied += 1
            }
            return copied
        }
        for entry in source.entries where source.matches(entry, name) {
            appendCopy(of: entry, from: source.storage)
            copied += 1
        }
        return copied
    }

    /// Appends every field of `other`, in order, as its bytes: what appending each of them would write, with
    /// `other`'s storage copied in one run (fields a configuration writes once for many messages).
    package mutating func appendFields(of other: SIPFields) {
        guard !other.entries.isEmpty else { return }
        let base = UInt32(truncatingIfNeeded: storage.count)
        storage.append(contentsOf: other.storage)
        for entry in other.entries {
            var moved = entry
            moved.nameStart &+= base
            moved.valueStart &+= base
            entries.append(moved)
        }
    }

    /// Appends a copy of the one field of `source` named `name` with `suffix` written after its value (a
    /// `;tag=` parameter). Returns `false`, appending nothing, unless there is exactly one such field.
    package mutating func appendCopy(
        of name: SIPField.Name, from source: SIPFields, appendingToValue suffix: [UInt8]
    ) -> Bool {
        guard let index = source.onlyIndex(of: name) else { return false }
        appendCopy(of: source.entries[index], from: source.storage) { $0.append(contentsOf: suffix) }
        return true
    }

    /// Whether the first field named `name` holds `value`, byte for byte (a Call-ID compared without making a
    /// string of it).
    package func firstValue(of name: SIPField.Name, is value: String) -> Bool {
        // A known name (the usual Call-ID) found by id alone.
        let found = name.known.map { firstEntry($0) } ?? firstIndex(of: name).map { entries[$0] }
        guard let range = found?.valueRange else { return false }
        var value = value
        return value.withUTF8 { wanted in
            storage.withUnsafeBufferPointer { UnsafeBufferPointer(rebasing: $0[range]).hasSameBytes(as: wanted) }
        }
    }

    /// Whether the first field named `name` holds `value` ignoring ASCII case (`value` written in lower case):
    /// the usual Content-Type compared as bytes, without parsing it.
    package func firstValue(of name: SIPField.Name, isLowercased value: StaticString) -> Bool {
        guard let index = firstIndex(of: name) else { return false }
        let range = entries[index].valueRange
        return value.withUTF8Buffer { wanted in
            guard range.count == wanted.count else { return false }
            return storage.withUnsafeBufferPointer { bytes in
                for k in 0..<wanted.count where bytes[range.lowerBound + k].lowercasedASCII != wanted[k] {
                    return false
                }
                return true
            }
        }
    }

    /// The position of the one field named `name`; `nil` when there is none or more than one.
    package func onlyIndex(of name: SIPField.Name) -> Int? {
        var found: Int?
        for (index, entry) in entries.enumerated() where matches(entry, name) {
            guard found == nil else { return nil }
            found = index
        }
        return found
    }

    /// Appends a copy of `entry` of `bytes`, with what `writeSuffix` appends written after its value.
    private mutating func appendCopy(
        of entry: Entry, from bytes: [UInt8], writingSuffix writeSuffix: (inout [UInt8]) -> Void = { _ in }
    ) {
        let nameStart = storage.count
        let valueStart = nameStart + entry.nameRange.count
        // Copied as two runs of bytes; a value holds CR, LF or NUL only when it was folded (rare).
        let needsCleaning = bytes.withUnsafeBufferPointer { source in
            let name = UnsafeBufferPointer(rebasing: source[entry.nameRange])
            let value = UnsafeBufferPointer(rebasing: source[entry.valueRange])
            storage.append(contentsOf: name)
            storage.append(contentsOf: value)
            return value.containsLineBreakOrNUL
        }
        let suffixStart = storage.count
        writeSuffix(&storage)
        let cleanFrom = needsCleaning ? valueStart : suffixStart
        storage.withUnsafeMutableBufferPointer { $0.blankLineBreaksAndNULs(in: cleanFrom..<$0.count) }
        entries.append(
            Entry(
                nameStart: UInt32(truncatingIfNeeded: nameStart),
                valueStart: UInt32(truncatingIfNeeded: valueStart),
                valueLength: UInt32(truncatingIfNeeded: storage.count - valueStart),
                nameLength: entry.nameLength,
                id: entry.id))
    }
}

extension SIPResponse {
    /// A response to `request` built as RFC 3261 §8.2.6.2 says: every Via in order, From, Call-ID and CSeq
    /// copied; To copied with `toTag` added when it has no tag (and the status is above 100); Timestamp
    /// copied into a 100 (§8.2.6.1).
    /// - Parameters:
    ///   - request: the request answered.
    ///   - status: the status code.
    ///   - reason: the reason phrase; the standard one when `nil`.
    ///   - toTag: the tag for To when the request's To has none.
    public init(answering request: borrowing SIPRequest, status: Int, reason: String? = nil, toTag: String? = nil) {
        // Borrowed: only the fields are read, where a request taken owned was copied (and destroyed) per call.
        let source = request.headerFields
        // The usual request: its fields written in one run of their own size (and room for the few a response
        // adds), each copied once.
        if var fields = SIPFields(copyingResponseFieldsOf: source, status: status, toTag: toTag) {
            if status == 100 {
                fields.appendCopies(of: .timestamp, from: source)
            }
            self.init(statusCode: status, reasonPhrase: reason, headerFields: fields)
            return
        }
        // Room for the copied fields and the few a response adds (Contact, Allow, Supported, ...).
        var fields = SIPFields(reservingCapacity: 1024, fields: 16)
        // The usual request has one From, To, Call-ID and CSeq: one pass copies the Vias and finds those.
        if let found = fields.appendViasFindingDialogFields(of: source) {
            fields.appendCopy(of: found.from, from: source)
            fields.appendTo(source, at: found.to, status: status, toTag: toTag)
            fields.appendCopy(of: found.callID, from: source)
            fields.appendCopy(of: found.cseq, from: source)
        } else {
            fields.appendEveryDialogField(of: source, status: status, toTag: toTag)
        }
        if status == 100 {
            fields.appendCopies(of: .timestamp, from: source)
        }
        self.init(statusCode: status, reasonPhrase: reason, headerFields: fields)
    }
}

extension SIPFields {
    /// Every Via of `source` in order, then its From, To (with `;tag=` and `toTag` when it has no tag and the
    /// status is above 100), Call-ID and CSeq: what `SIPResponse(answering:)` copies one by one, written into
    /// storage of the size they need (at least 1 KiB, for the fields a response adds) with each run of bytes
    /// copied once. `nil` when one of the four appears more than once, or To's tag is not plain (`TagScan`).
    fileprivate init?(copyingResponseFieldsOf source: SIPFields, status: Int, toTag: String?) {
        var from = -1
        var to = -1
        var callID = -1
        var cseq = -1
        var size = 0
        func note(_ index: Int, _ slot: inout Int) -> Bool {
            guard slot < 0 else { return false }
            slot = index
            return true
        }
        for (index, entry) in source.entries.enumerated() {
            let counted: Bool
            switch entry.id {
            case KnownHeader.via.rawValue: counted = true
            case KnownHeader.from.rawValue: counted = note(index, &from)
            case KnownHeader.to.rawValue: counted = note(index, &to)
            case KnownHeader.callID.rawValue: counted = note(index, &callID)
            case KnownHeader.cseq.rawValue: counted = note(index, &cseq)
            default: continue
            }
            guard counted else { return nil }
            size += Int(entry.nameLength) + Int(entry.valueLength)
        }
        var tag = ""
        var tagged = false
        if status > 100, let toTag, to >= 0 {
            let range = source.entries[to].valueRange
            let scan = source.storage.withUnsafeBufferPointer {
                TagScan.scanPresence(UnsafeBufferPointer(rebasing: $0[range]))
            }
            switch scan {
            case .present: break
            case .absent: (tag, tagged) = (toTag, true)
            case .unclear: return nil
            }
        }
        let total = size + (tagged ? 5 + tag.utf8.count : 0)
        var storage: [UInt8] = []
        storage.reserveCapacity(Swift.max(1024, total))
        // Sized with zeros written over below: copied from a run of them (a repeated element goes byte by byte).
        if total <= zeroRun.count {
            zeroRun.withUnsafeBufferPointer { storage.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<total])) }
        } else {
            storage.append(contentsOf: repeatElement(0, count: total))
        }
        var entries: [Entry] = []
        entries.reserveCapacity(SIPFields.initialEntryCapacity)
        storage.withUnsafeMutableBufferPointer { target in
            source.storage.withUnsafeBufferPointer { bytes in
                tag.withUTF8 { tag in
                    var writer = FieldCopyWriter(target: target, source: bytes)
                    for entry in source.entries where entry.id == KnownHeader.via.rawValue {
                        writer.copy(entry, into: &entries)
                    }
                    if from >= 0 { writer.copy(source.entries[from], into: &entries) }
                    if to >= 0 { writer.copy(source.entries[to], tag: tagged ? tag : nil, into: &entries) }
                    if callID >= 0 { writer.copy(source.entries[callID], into: &entries) }
                    if cseq >= 0 { writer.copy(source.entries[cseq], into: &entries) }
                }
            }
        }
        self.init(storage: storage, entries: entries)
    }

}

/// Zero bytes that size a copy's storage before it is written.
private let zeroRun = [UInt8](repeating: 0, count: 1024)

/// Copies fields of one storage into another of the size worked out beforehand, each run of bytes once.
private struct FieldCopyWriter {
    let target: UnsafeMutableBufferPointer<UInt8>
    let source: UnsafeBufferPointer<UInt8>
    var at = 0

    init(target: UnsafeMutableBufferPointer<UInt8>, source: UnsafeBufferPointer<UInt8>) {
        self.target = target
        self.source = source
    }

    private mutating func write(_ run: UnsafeBufferPointer<UInt8>) {
        guard let base = run.baseAddress, let start = target.baseAddress, run.count <= target.count - at else {
            return
        }
        (start + at).initialize(from: base, count: run.count)
        at += run.count
    }

    /// `write(_:)` for a value, returning whether it may hold CR, LF or NUL (any byte below 0x0E: a value with
    /// a tab is looked at again, byte by byte). A run of 8...64 bytes is copied and checked in words, the last
    /// one overlapping the one before it.
    private mutating func writeValue(_ run: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = run.count
        guard n >= 8, n <= 64, let base = run.baseAddress, let start = target.baseAddress, n <= target.count - at
        else {
            write(run)
            return run.containsLineBreakOrNUL
        }
        let from = UnsafeRawPointer(base)
        let to = UnsafeMutableRawPointer(start + at)
        let ones: UInt64 = 0x0101_0101_0101_0101
        var low: UInt64 = 0
        var i = 0
        while true {
            let offset = Swift.min(i, n - 8)
            let word = from.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            to.storeBytes(of: word, toByteOffset: offset, as: UInt64.self)
            low |= (word &- 0x0E &* ones) & ~word
            i += 8
            if i >= n { break }
        }
        at += n
        return low & (0x80 &* ones) != 0
    }

    /// Copies `entry` (with `;tag=` and `tag` after its value when there is a `tag`) and appends its entry:
    /// CR, LF and NUL become spaces, as `append(_:)` writes them (a folded value holds a CRLF).
    mutating func copy(
        _ entry: SIPFields.Entry, tag: UnsafeBufferPointer<UInt8>? = nil,
        into entries: inout [SIPFields.Entry]
    ) {
        let nameStart = at
        write(UnsafeBufferPointer(rebasing: source[entry.nameRange]))
        let valueStart = at
        let mayNeedCleaning = writeValue(UnsafeBufferPointer(rebasing: source[entry.valueRange]))
        var cleanFrom = mayNeedCleaning ? valueStart : at
        if let tag {
            cleanFrom = Swift.min(cleanFrom, at)
            (";tag=" as StaticString).withUTF8Buffer { write($0) }
            write(tag)
        }
        target.blankLineBreaksAndNULs(in: cleanFrom..<at)
        entries.append(
            SIPFields.Entry(
                nameStart: UInt32(truncatingIfNeeded: nameStart), valueStart: UInt32(truncatingIfNeeded: valueStart),
                valueLength: UInt32(truncatingIfNeeded: at - valueStart), nameLength: entry.nameLength, id: entry.id))
    }
}

/// Where the one From, To, Call-ID and CSeq of a request are (an absent one is `nil`).
private struct DialogFieldIndices {
    var from: Int?
    var to: Int?
    var callID: Int?
    var cseq: Int?
}

extension SIPFields {
    /// Appends a copy of every Via of `source`, in order, and returns where its From, To, Call-ID and CSeq
    /// are; `nil` (the Vias appended all the same) when any of those four appears more than once.
    fileprivate mutating func appendViasFindingDialogFields(of source: SIPFields) -> DialogFieldIndices? {
        var found = DialogFieldIndices()
        var isRepeated = false
        func note(_ index: Int, _ slot: inout Int?) {
            if slot == nil { slot = index } else { isRepeated = true }
        }
        for (index, entry) in source.entries.enumerated() {
            switch entry.id {
            case KnownHeader.via.rawValue: appendCopy(of: entry, from: source.storage)
            case KnownHeader.from.rawValue: note(index, &found.from)
            case KnownHeader.to.rawValue: note(index, &found.to)
            case KnownHeader.callID.rawValue: note(index, &found.callID)
            case KnownHeader.cseq.rawValue: note(index, &found.cseq)
            default: break
            }
        }
        return isRepeated ? nil : found
    }

    /// Appends a copy of the field at `index` of `source`, if any.
    fileprivate mutating func appendCopy(of index: Int?, from source: SIPFields) {
        guard let index else { return }
        appendCopy(of: source.entries[index], from: source.storage)
    }

    /// Appends the one To of `source` (at `index`), with `toTag` added when a response above 100 needs it.
    fileprivate mutating func appendTo(_ source: SIPFields, at index: Int?, status: Int, toTag: String?) {
        guard status > 100, let toTag, let index else {
            appendCopy(of: index, from: source)
            return
        }
        // The common case, a tag parameter plainly there or plainly absent, needs no parse: the tag goes on
        // the end, where a header parameter belongs in both forms of the value.
        let entry = source.entries[index]
        let scan = source.storage.withUnsafeBufferPointer {
            TagScan.scanPresence(UnsafeBufferPointer(rebasing: $0[entry.valueRange]))
        }
        switch scan {
        case .present: appendCopy(of: entry, from: source.storage)
        case .absent: appendCopy(of: entry, from: source.storage) { Self.appendTagSuffix(toTag, to: &$0) }
        case .unclear: appendParsedTo(source, toTag: toTag)
        }
    }

    /// `;tag=` and `tag`, as bytes.
    private static func tagSuffix(_ tag: String) -> [UInt8] {
        var suffix: [UInt8] = []
        appendTagSuffix(tag, to: &suffix)
        return suffix
    }

    /// Appends `;tag=` and `tag` to `bytes`, with no array of its own.
    private static func appendTagSuffix(_ tag: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: ";"))
        bytes.append(UInt8(ascii: "t"))
        bytes.append(UInt8(ascii: "a"))
        bytes.append(UInt8(ascii: "g"))
        bytes.append(UInt8(ascii: "="))
        var tag = tag
        tag.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// To parsed, given `toTag` when it has none; copied as it is when it has one or does not parse.
    private mutating func appendParsedTo(_ source: SIPFields, toTag: String) {
        if var to = try? source.to, to.tag == nil {
            to.tag = toTag
            append(.to, to)
        } else {
            appendCopies(of: .to, from: source)
        }
    }

    /// From, To, Call-ID and CSeq of a request that repeats one of them: every copy of each, in that order.
    fileprivate mutating func appendEveryDialogField(of source: SIPFields, status: Int, toTag: String?) {
        appendCopies(of: .from, from: source)
        if status > 100, let toTag {
            switch TagScan(source, .to) {
            case .present: appendCopies(of: .to, from: source)
            case .absent: _ = appendCopy(of: .to, from: source, appendingToValue: Self.tagSuffix(toTag))
            case .unclear: appendParsedTo(source, toTag: toTag)
            }
        } else {
            appendCopies(of: .to, from: source)
        }
        appendCopies(of: .callID, from: source)
        appendCopies(of: .cseq, from: source)
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether `other` holds the same bytes, compared eight at a time (a Call-ID is tens of bytes).
    func hasSameBytes(as other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard count == other.count else { return false }
        guard count > 0, let a = baseAddress, let b = other.baseAddress else { return true }
        let left = UnsafeRawPointer(a)
        let right = UnsafeRawPointer(b)
        var i = 0
        while i + 8 <= count {
            let x = left.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            guard x == right.loadUnaligned(fromByteOffset: i, as: UInt64.self) else { return false }
            i += 8
        }
        while i < count {
            guard a[i] == b[i] else { return false }
            i += 1
        }
        return true
    }

    /// Whether any byte is CR, LF or NUL, looked for eight bytes at a time: a word with no byte below 0x0E
    /// holds none of them.
    var containsLineBreakOrNUL: Bool {
        var i = 0
        if count >= 8, let base = baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= count {
                let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if (word &- 0x0E0E_0E0E_0E0E_0E0E) & ~word & 0x8080_8080_8080_8080 != 0 { break }
                i += 8
            }
        }
        while i < count {
            let byte = self[i]
            if byte == ASCII.cr || byte == ASCII.lf || byte == 0 { return true }
            i += 1
        }
        return false
    }
}

extension UnsafeMutableBufferPointer<UInt8> {
    /// Makes every CR, LF and NUL in `range` a space, as `SIPFields.append(_:)` writes a value (a copied
    /// value holds a CRLF when it was folded).
    fileprivate func blankLineBreaksAndNULs(in range: Range<Int>) {
        for i in range where self[i] == ASCII.cr || self[i] == ASCII.lf || self[i] == 0 {
            self[i] = ASCII.space
        }
    }
}
