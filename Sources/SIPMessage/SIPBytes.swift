/// A value read in place from the bytes of a message: no string is made and nothing is allocated (the zero-copy
/// counterpart of the `String` accessors, like PJSIP's `pj_str_t`). It keeps the message's bytes alive.
///
/// Indices start at 0, whatever the value's place in the message. Equality and hashing are by content, and a
/// value compares with a string by its UTF-8 (`via.host.bytes == "example.com"`); `string` decodes it.
public struct SIPBytes: Sendable, RandomAccessCollection, Hashable, CustomStringConvertible {
    @usableFromInline let source: [UInt8]
    @usableFromInline let start: Int
    public let count: Int

    /// The bytes of `range` of `source`, clamped to it.
    @inlinable
    init(_ source: [UInt8], _ range: ByteRange) {
        let lower = Swift.min(Int(range.start), source.count)
        self.source = source
        self.start = lower
        self.count = Swift.max(0, Swift.min(Int(range.end), source.count) - lower)
    }

    /// Bytes of their own (for values built through the API).
    public init(_ bytes: some Sequence<UInt8>) {
        source = Array(bytes)
        start = 0
        count = source.count
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    @inlinable
    public subscript(position: Int) -> UInt8 {
        precondition(position >= 0 && position < count, "SIPBytes index out of range")
        return source[start &+ position]
    }

    /// The value decoded as UTF-8 (invalid sequences repaired).
    public var string: String { String(bytes: source, range: start..<(start + count)) }

    public var description: String { string }

    @inlinable
    public func withContiguousStorageIfAvailable<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        try source.withUnsafeBufferPointer { buffer in
            try body(UnsafeBufferPointer(rebasing: buffer[start..<(start + count)]))
        }
    }

    /// Whether the value begins with the UTF-8 of `prefix`.
    public func hasPrefix(_ prefix: String) -> Bool {
        let utf8 = prefix.utf8
        return utf8.count <= count && zip(self, utf8).allSatisfy { $0 == $1 }
    }

    public static func == (a: SIPBytes, b: SIPBytes) -> Bool {
        a.count == b.count && a.elementsEqual(b)
    }

    public static func == (bytes: SIPBytes, string: String) -> Bool {
        let utf8 = string.utf8
        return bytes.count == utf8.count && bytes.elementsEqual(utf8)
    }

    public static func == (string: String, bytes: SIPBytes) -> Bool { bytes == string }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        _ = withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

extension Array where Element == UInt8 {
    /// The bytes of `range` as a view of this array: no copy, no string.
    @inlinable
    func view(_ range: ByteRange) -> SIPBytes { SIPBytes(self, range) }
}
