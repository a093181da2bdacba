// Reading bytes in place for the scan and the answer written from an offer's bytes: the checks and numbers of
// `Bytes.swift` over a buffer the caller holds, by index ranges, so that nothing is sliced, iterated or copied.

extension UnsafeBufferPointer<UInt8> {
    /// `parseDecimal(_:limit:)` over `self[range]`: 1 to 20 digits, no larger than `limit`.
    func decimal(_ range: Range<Int>, limit: UInt64 = .max) -> UInt64? {
        guard !range.isEmpty, range.count <= 20 else { return nil }
        if range.count < 20 {
            // Up to 19 digits cannot overflow.
            var value: UInt64 = 0
            for i in range {
                let digit = self[i] &- ASCII.zero
                guard digit < 10 else { return nil }
                value = value &* 10 &+ UInt64(digit)
            }
            return value <= limit ? value : nil
        }
        var value: UInt64 = 0
        for i in range {
            let digit = self[i] &- ASCII.zero
            guard digit < 10 else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value <= limit ? value : nil
    }

    /// The run of digits from `start` to before `end`, read in one pass: where it ends, and its value as
    /// `decimal(_:limit:)` reads the run (`nil` when it is empty, longer than 20 digits or above `limit`).
    /// `limit` is below 2^32, so the value read so far never overflows.
    @inline(__always)
    func digitRun(from start: Int, to end: Int, limit: UInt64) -> (value: UInt64?, end: Int) {
        var i = start
        var value: UInt64 = 0
        while i < end {
            let digit = self[i] &- ASCII.zero
            guard digit < 10 else { break }
            // Past the limit the value only grows: stop adding to it.
            if value <= limit { value = value &* 10 &+ UInt64(digit) }
            i += 1
        }
        guard i > start, i - start <= 20, value <= limit else { return (nil, i) }
        return (value, i)
    }

    /// True when `self[range]` is the text of `length` bytes (at most 8) whose bytes make `word` (the first lowest),
    /// ignoring ASCII case: one load and compare. `letters` has 0x20 at each byte of `word` that is a lower-case
    /// letter (and only there), so a letter matches either case and any other byte matches only itself. `nil` when
    /// fewer than eight bytes follow the range's start (the caller then compares byte by byte).
    @inline(__always)
    func equals(_ range: Range<Int>, word: UInt64, letters: UInt64, length: Int) -> Bool? {
        guard range.count == length else { return false }
        guard range.lowerBound >= 0, range.lowerBound + 8 <= count else { return nil }
        let loaded = UInt64(
            littleEndian: UnsafeRawBufferPointer(self).loadUnaligned(fromByteOffset: range.lowerBound, as: UInt64.self))
        let mask = length >= 8 ? UInt64.max : (UInt64(1) << UInt64(8 * length)) &- 1
        return (loaded | letters) & mask == word
    }

    /// True when `self[range]` is `text` ignoring ASCII case.
    @inline(__always)
    func equals(_ range: Range<Int>, ignoringCase text: StaticString) -> Bool {
        guard range.count == text.utf8CodeUnitCount else { return false }
        return text.withUTF8Buffer { other in
            matches(range, other) { $0.lowercasedASCII }
        }
    }

    /// True when `self[range]` holds the bytes of `text`.
    func equals(_ range: Range<Int>, exactly text: String) -> Bool {
        let utf8 = text.utf8
        guard range.count == utf8.count else { return false }
        // Byte by byte over the string's own storage (the generic `elementsEqual` costs several times more).
        let compared = utf8.withContiguousStorageIfAvailable { other in
            matches(range, other) { $0 }
        }
        return compared ?? utf8.elementsEqual(UnsafeBufferPointer(rebasing: self[range]))
    }

    /// True when `self[range]` is `text` ignoring ASCII case (`String.equalsIgnoringASCIICase`).
    func equals(_ range: Range<Int>, ignoringCaseOf text: String) -> Bool {
        let utf8 = text.utf8
        guard range.count == utf8.count else { return false }
        let compared = utf8.withContiguousStorageIfAvailable { other in
            matches(range, other) { $0.lowercasedASCII }
        }
        if let compared { return compared }
        var i = range.lowerBound
        for b in utf8 {
            guard self[i].lowercasedASCII == b.lowercasedASCII else { return false }
            i += 1
        }
        return true
    }

    /// True when `self[range]` is exactly `text`.
    func equals(_ range: Range<Int>, _ text: StaticString) -> Bool {
        guard range.count == text.utf8CodeUnitCount else { return false }
        return text.withUTF8Buffer { other in
            matches(range, other) { $0 }
        }
    }

    /// Whether `self[range]` holds `other`'s bytes (as many as the range), each byte passed through `fold`
    /// on both sides first.
    @inline(__always)
    private func matches(
        _ range: Range<Int>, _ other: UnsafeBufferPointer<UInt8>, folding fold: (UInt8) -> UInt8
    ) -> Bool {
        var j = 0
        for i in range {
            guard fold(self[i]) == fold(other[j]) else { return false }
            j += 1
        }
        return true
    }

    /// The index of the first `byte` in `range`, or `range.upperBound`.
    func firstIndex(of byte: UInt8, in range: Range<Int>) -> Int {
        var i = range.lowerBound
        while i < range.upperBound, self[i] != byte { i += 1 }
        return i
    }

    /// The end of the run of bytes in `range` that pass `predicate`, from its start.
    @inline(__always)
    func end(of range: Range<Int>, while predicate: (UInt8) -> Bool) -> Int {
        var i = range.lowerBound
        while i < range.upperBound, predicate(self[i]) { i += 1 }
        return i
    }

    /// True when `range` is not empty and all of it is token characters.
    func isToken(_ range: Range<Int>) -> Bool {
        !range.isEmpty && end(of: range, while: { $0.isTokenChar }) == range.upperBound
    }

    /// `self[range]` as a string.
    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: self[range]), as: UTF8.self)
    }
}

/// A cursor over the space-separated fields of a line, as `splitFields` reads them: runs of SP/HTAB separate
/// fields; a byte that is neither white space nor a field character ends the walk and clears `isValid`.
struct FieldCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var index: Int
    let end: Int
    private(set) var isValid = true

    init(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        self.bytes = bytes
        self.end = Swift.min(range.upperBound, bytes.count)
        self.index = Swift.min(Swift.max(0, range.lowerBound), end)
    }

    /// The next field, or `nil` at the end of the line (or at a byte no field may hold).
    @inline(__always)
    mutating func next() -> Range<Int>? {
        // `index <= end <= bytes.count` throughout, so the index arithmetic below cannot overflow.
        while index < end, bytes[index].isSDPWhitespace { index &+= 1 }
        guard index < end else { return nil }
        let start = index
        index = fieldEnd(from: start)
        guard index > start else {
            isValid = false
            return nil
        }
        return start..<index
    }

    /// Whether the rest of the line holds only fields and white space: what walking it to its end with `next()`
    /// leaves in `isValid`. Eight bytes at a time while none is below 0x20 (HTAB is) or DEL.
    mutating func restIsValid() -> Bool {
        var i = index
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        // `i <= end <= bytes.count`, far below `Int.max`: `i &+ 8` cannot wrap.
        while i &+ 8 <= end {
            let word = UInt64(
                littleEndian: UnsafeRawBufferPointer(bytes).loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let del = word ^ (0x7F &* ones)
            guard ((word &- (0x20 &* ones)) & ~word | (del &- ones) & ~del) & high == 0 else { break }
            i &+= 8
        }
        while i < end {
            let b = bytes[i]
            guard b.isFieldChar || b.isSDPWhitespace else {
                isValid = false
                return false
            }
            i &+= 1
        }
        index = end
        return true
    }

    /// The end of the run of field characters from `start` (`start < end`): eight bytes at a time while a whole
    /// word lies in the buffer, the word's bytes past `end` not counted.
    @inline(__always)
    private func fieldEnd(from start: Int) -> Int {
        var i = start
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        // `bytes.count` is far below `Int.max`, so `i &+ 8` cannot wrap.
        while i &+ 8 <= bytes.count {
            let word = UInt64(
                littleEndian: UnsafeRawBufferPointer(bytes).loadUnaligned(fromByteOffset: i, as: UInt64.self))
            // Flags on bytes below 0x21 (SP, HTAB and the controls) and on DEL; bytes above 0x7F are field
            // characters and raise neither. The lowest flag of each test marks its first such byte exactly (a
            // borrow only runs upwards), so the lowest of both marks the first byte that ends the field.
            let del = word ^ (0x7F &* ones)
            let stops = ((word &- (0x21 &* ones)) & ~word | (del &- ones) & ~del) & high
            if stops != 0 { return Swift.min(i &+ (stops.trailingZeroBitCount &>> 3), end) }
            i &+= 8
            if i >= end { return end }
        }
        while i < end, bytes[i].isFieldChar { i &+= 1 }
        return i
    }
}
