/// A range of a value's byte source, in 8 bytes (parsed values keep offsets, not strings).
@usableFromInline
struct ByteRange: Sendable, Hashable {
    @usableFromInline var start: UInt32
    @usableFromInline var end: UInt32

    init(_ range: Range<Int>) {
        start = UInt32(truncatingIfNeeded: range.lowerBound)
        end = UInt32(truncatingIfNeeded: range.upperBound)
    }

    init(start: Int, end: Int) {
        self.init(start..<end)
    }

    static let empty = ByteRange(start: 0, end: 0)

    @inlinable var range: Range<Int> { Int(start)..<Int(end) }
    var isEmpty: Bool { start >= end }
    var count: Int { Int(end) - Int(start) }
}

extension Array where Element == UInt8 {
    /// The bytes of `range` decoded as UTF-8.
    @inlinable
    func string(_ range: ByteRange) -> String {
        String(bytes: self, range: range.range)
    }

    /// Appends `string` when it is a non-empty token, `fallback` otherwise, and returns where it landed.
    mutating func appendTokenRecording(_ string: String, or fallback: String) -> ByteRange {
        let start = count
        // Read in place where the string allows it (native strings do): no per-character iteration.
        let isToken = string.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard !utf8.isEmpty, utf8.allSatisfy({ $0.isTokenChar }) else { return false }
            append(contentsOf: utf8)
            return true
        }
        switch isToken {
        case true?: break
        case false?: append(contentsOf: fallback.utf8)
        case nil:
            let token = !string.isEmpty && string.utf8.allSatisfy({ $0.isTokenChar })
            append(contentsOf: (token ? string : fallback).utf8)
        }
        return ByteRange(start: start, end: count)
    }

    /// Appends `string` and returns where it landed.
    mutating func appendRecording(_ string: String) -> ByteRange {
        let start = count
        append(contentsOf: string.utf8)
        return ByteRange(start: start, end: count)
    }
}
