/// What the bytes of a To or From value say about its `tag` header parameter, read without parsing the
/// value: a dialog's requests and responses read their tags several times each, and a full name-addr parse
/// builds a URI and a parameter list only to look at one token.
///
/// The scan looks for a `;` outside quotes and `<>`, then `tag` (any case) and `=`, then a token. It says
/// `unclear` whenever the bytes are not plain (unbalanced quotes or brackets, a NUL or non-ASCII byte, `tag`
/// without a value, a quoted or empty value, several tags): the caller then parses the value as before. It
/// does not check the rest of the value: the message layer validated To and From of every received message.
package enum TagScan: Equatable, Sendable {
    case absent
    case present(String)
    case unclear

    package init(_ value: String) {
        var value = value
        self = value.withUTF8 { Self.scan($0) }
    }

    /// The scan of the one field of `header` in `fields`; `unclear` when there is not exactly one.
    package init(_ fields: SIPFields, _ header: SIPField.Name) {
        guard let index = fields.onlyIndex(of: header) else {
            self = .unclear
            return
        }
        let range = fields.entries[index].valueRange
        self = fields.storage.withUnsafeBufferPointer { Self.scan(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// Where the one `;tag=value` parameter of a plain value is, from its `;` to the end of the value token
    /// (byte offsets in the UTF-8 of `value`); `nil` unless the scan finds exactly one plain tag.
    package static func tagParameterRange(in value: String) -> Range<Int>? {
        var value = value
        return value.withUTF8 { bytes in
            var range: Range<Int>?
            guard case .present = scan(bytes, tagRange: &range) else { return nil }
            return range
        }
    }

    /// The scan of `bytes`, with the range of the one plain `;tag=value` parameter when it is `present`.
    package static func scanWithRange(_ bytes: UnsafeBufferPointer<UInt8>) -> (TagScan, Range<Int>?) {
        var range: Range<Int>?
        let scan = scan(bytes, tagRange: &range)
        return (scan, range)
    }

    /// The scan of `bytes` without making a found tag's value: `present("")` for one plain tag (a caller that
    /// only asks whether there is one makes no string).
    package static func scanPresence(_ bytes: UnsafeBufferPointer<UInt8>) -> TagScan {
        var tagRange: Range<Int>?
        var valueRange: Range<Int>?
        return scan(bytes, tagRange: &tagRange, valueRange: &valueRange, makesValue: false)
    }

    /// One bit per byte below 0x80 (the word for its half), set for the bytes the scan passes over whatever
    /// its state: all but NUL, `"`, `;`, `<`, `>` and `\\`.
    @inline(__always)
    private static func plain(_ byte: UInt8) -> UInt64 {
        byte < 0x40 ? ~UInt64(0x5800_0004_0000_0001) : ~UInt64(0x1000_0000)
    }

    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> TagScan {
        var range: Range<Int>?
        return scan(bytes, tagRange: &range)
    }

    /// Whether the one field `header` of `fields` has one plain tag whose value is `tag`, byte for byte: what
    /// `TagScan(fields, header) == .present(tag)` says, without making a string of the value.
    package static func field(_ header: SIPField.Name, of fields: SIPFields, hasTag tag: String) -> Bool {
        guard let index = fields.onlyIndex(of: header) else { return false }
        let range = fields.entries[index].valueRange
        var tag = tag
        return tag.withUTF8 { field(of: fields, at: range, hasTagBytes: $0) }
    }

    /// `field(_:of:hasTag:)` for a tag given as its UTF-8 bytes (a tag kept as bytes, compared without making a
    /// string of it).
    package static func field(
        _ header: SIPField.Name, of fields: SIPFields, hasTagBytes tag: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        guard let index = fields.onlyIndex(of: header) else { return false }
        return field(of: fields, at: fields.entries[index].valueRange, hasTagBytes: tag)
    }

    /// Where the first Call-ID and the one To and the one From of `fields` are, found in one pass; `nil` when
    /// there is no Call-ID, or not exactly one To and one From.
    @inline(__always)
    private static func dialogFieldIndices(_ fields: SIPFields) -> (callID: Int, to: Int, from: Int)? {
        var callID = -1
        var to = -1
        var from = -1
        for (index, entry) in fields.entries.enumerated() {
            switch entry.id {
            case KnownHeader.callID.rawValue:
                if callID < 0 { callID = index }
            case KnownHeader.to.rawValue:
                guard to < 0 else { return nil }
                to = index
            case KnownHeader.from.rawValue:
                guard from < 0 else { return nil }
                from = index
            default: continue
            }
        }
        guard callID >= 0, to >= 0, from >= 0 else { return nil }
        return (callID, to, from)
    }

    /// Whether `fields` plainly name one dialog: the first Call-ID is `callID` byte for byte, and the one To
    /// and the one From each hold one plain tag whose bytes are `toTag` and `fromTag`. What
    /// `fields.firstValue(of: .callID, is:)` and `field(_:of:hasTagBytes:)` for To and for From say together,
    /// found in one pass over the fields instead of three (an in-dialog request checked against its dialog).
    package static func fields(
        _ fields: SIPFields, callID: UnsafeBufferPointer<UInt8>, toTag: UnsafeBufferPointer<UInt8>,
        fromTag: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        guard let (callIDIndex, to, from) = dialogFieldIndices(fields) else { return false }
        let callIDRange = fields.entries[callIDIndex].valueRange
        let sameCallID = fields.storage.withUnsafeBufferPointer {
            UnsafeBufferPointer(rebasing: $0[callIDRange]).hasSameBytes(as: callID)
        }
        return sameCallID && field(of: fields, at: fields.entries[to].valueRange, hasTagBytes: toTag)
            && field(of: fields, at: fields.entries[from].valueRange, hasTagBytes: fromTag)
    }

    /// `body` given the bytes of the first Call-ID and of the one To and the one From of `fields`, found in
    /// one pass; `nil` when there is no Call-ID, or not exactly one To and one From (what `fields(_:callID:...)`
    /// looks at, for a caller that compares the values whole).
    package static func dialogValues<R>(
        of fields: SIPFields,
        _ body: (
            _ callID: UnsafeBufferPointer<UInt8>, _ to: UnsafeBufferPointer<UInt8>, _ from: UnsafeBufferPointer<UInt8>
        ) -> R
    ) -> R? {
        guard let (callIDIndex, to, from) = dialogFieldIndices(fields) else { return nil }
        let ranges = (
            fields.entries[callIDIndex].valueRange, fields.entries[to].valueRange, fields.entries[from].valueRange
        )
        return fields.storage.withUnsafeBufferPointer { storage in
            body(
                UnsafeBufferPointer(rebasing: storage[ranges.0]), UnsafeBufferPointer(rebasing: storage[ranges.1]),
                UnsafeBufferPointer(rebasing: storage[ranges.2]))
        }
    }

    private static func field(
        of fields: SIPFields, at range: Range<Int>, hasTagBytes tag: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        fields.storage.withUnsafeBufferPointer { storage in
            let value = UnsafeBufferPointer(rebasing: storage[range])
            var tagRange: Range<Int>?
            var valueRange: Range<Int>?
            guard case .present = scan(value, tagRange: &tagRange, valueRange: &valueRange, makesValue: false),
                let valueRange
            else { return false }
            return UnsafeBufferPointer(rebasing: value[valueRange]).hasSameBytes(as: tag)
        }
    }

    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>, tagRange: inout Range<Int>?) -> TagScan {
        var valueRange: Range<Int>?
        return scan(bytes, tagRange: &tagRange, valueRange: &valueRange, makesValue: true)
    }

    /// The scan; with `makesValue` false a tag found is `present("")`, its value at `valueRange`.
    private static func scan(
        _ bytes: UnsafeBufferPointer<UInt8>, tagRange: inout Range<Int>?, valueRange: inout Range<Int>?,
        makesValue: Bool
    ) -> TagScan {
        let count = bytes.count
        var index = 0
        var inQuotes = false
        var inBrackets = false
        var found: TagScan = .absent
        func skipBlanks(_ index: inout Int) {
            while index < count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
                index += 1
            }
        }
        while index < count {
            let byte = bytes[index]
            // Most bytes are none of NUL, `"`, `;`, `<`, `>`, `\\` or above 0x7F: one mask test skips them.
            if byte < 0x80, (Self.plain(byte) >> UInt64(byte & 0x3F)) & 1 != 0 {
                index += 1
                continue
            }
            if byte == 0 || byte >= 0x80 { return .unclear }
            if inQuotes {
                if byte == UInt8(ascii: "\\") {
                    index += 1
                } else if byte == UInt8(ascii: "\"") {
                    inQuotes = false
                }
            } else if inBrackets {
                if byte == UInt8(ascii: ">") { inBrackets = false }
            } else if byte == UInt8(ascii: "\"") {
                inQuotes = true
            } else if byte == UInt8(ascii: "<") {
                inBrackets = true
            } else if byte == UInt8(ascii: ";") {
                var name = index + 1
                skipBlanks(&name)
                let isTag =
                    name + 3 <= count && bytes[name] | 0x20 == UInt8(ascii: "t")
                    && bytes[name + 1] | 0x20 == UInt8(ascii: "a") && bytes[name + 2] | 0x20 == UInt8(ascii: "g")
                if isTag {
                    var equals = name + 3
                    skipBlanks(&equals)
                    if equals >= count || bytes[equals] == UInt8(ascii: ";") { return .unclear }
                    if bytes[equals] == UInt8(ascii: "=") {
                        guard case .absent = found else { return .unclear }
                        var start = equals + 1
                        skipBlanks(&start)
                        var end = start
                        while end < count, bytes[end].isTokenChar { end += 1 }
                        var next = end
                        skipBlanks(&next)
                        guard end > start, next == count || bytes[next] == UInt8(ascii: ";") else { return .unclear }
                        found = .present(
                            makesValue
                                ? String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
                                : "")
                        tagRange = index..<end
                        valueRange = start..<end
                        index = next
                        continue
                    }
                }
            }
            index += 1
        }
        return inQuotes || inBrackets ? .unclear : found
    }

}
