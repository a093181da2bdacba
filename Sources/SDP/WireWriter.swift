/// Writes a description into one buffer: how an answer is built straight from an offer's bytes
/// (`OfferAnswer+WireAnswer.swift`), in exactly the bytes `SessionDescription.serialize(into:)` writes for the
/// same lines. Every write checks the room left and grows the buffer when needed.
struct WireWriter: ~Copyable {
    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0
    /// False while the writer writes into the caller's scratch space, true once it grew into memory of its own.
    private var ownsBuffer: Bool
    /// Where the o= version was written, and its value.
    private var versionField = 0..<0
    private var version: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        buffer = .allocate(capacity: self.capacity)
        ownsBuffer = true
    }

    /// A writer that starts in `scratch` (the caller's, which must outlive the writer), and moves to memory of its
    /// own only when the description outgrows it.
    init(scratch: UnsafeMutableBufferPointer<UInt8>) {
        if let base = scratch.baseAddress, scratch.count >= 64 {
            buffer = base
            capacity = scratch.count
            ownsBuffer = false
        } else {
            capacity = 256
            buffer = .allocate(capacity: capacity)
            ownsBuffer = true
        }
    }

    deinit {
        if ownsBuffer { buffer.deallocate() }
    }

    /// Room for `extra` more bytes.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(extra) }
    }

    private mutating func grow(_ extra: Int) {
        let grown = max(capacity * 2, count + extra)
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        larger.initialize(from: buffer, count: count)
        if ownsBuffer { buffer.deallocate() }
        ownsBuffer = true
        buffer = larger
        capacity = grown
    }

    /// Starts a line: `<type>=`.
    @inline(__always)
    mutating func begin(_ letter: Unicode.Scalar) {
        reserve(2)
        buffer[count] = UInt8(ascii: letter)
        buffer[count + 1] = ASCII.equals
        count += 2
    }

    /// Ends a line with CRLF.
    @inline(__always)
    mutating func end() {
        reserve(2)
        buffer[count] = ASCII.cr
        buffer[count + 1] = ASCII.lf
        count += 2
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        buffer[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (buffer + count).initialize(from: base, count: bytes.count)
        count += bytes.count
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    /// Appends `bytes[range]`.
    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        append(UnsafeBufferPointer(rebasing: bytes[range]))
    }

    /// Appends `value` in decimal, as `appendDecimal` writes it.
    mutating func appendDecimal(_ value: some BinaryInteger) {
        guard let magnitude = UInt64(exactly: value) else {
            for b in String(value).utf8 { append(b) }
            return
        }
        // One and two digits (payload types, ptime) without working out the length.
        if magnitude < 10 {
            append(ASCII.zero &+ UInt8(truncatingIfNeeded: magnitude))
            return
        }
        if magnitude < 100 {
            reserve(2)
            let tens = UInt8(truncatingIfNeeded: magnitude / 10)
            buffer[count] = ASCII.zero &+ tens
            buffer[count + 1] = ASCII.zero &+ (UInt8(truncatingIfNeeded: magnitude) &- tens &* 10)
            count += 2
            return
        }
        var digits = 3
        var power: UInt64 = 1000
        while digits < 20, magnitude >= power {
            digits += 1
            power &*= 10
        }
        reserve(digits)
        var rest = magnitude
        var i = count + digits
        repeat {
            i -= 1
            buffer[i] = ASCII.zero &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        } while i > count
        count += digits
    }

    /// Appends `value` in decimal and returns where it went.
    mutating func appendDecimalRecording(_ value: UInt64) -> Range<Int> {
        let start = count
        appendDecimal(value)
        return start..<count
    }

    /// Appends the o= version (`appendDecimal`), noting where it is: a copy of the bytes at `copying` when they
    /// already hold the same number.
    mutating func appendVersion(_ version: UInt64, copying digits: Range<Int>? = nil) {
        let start = count
        if let digits {
            appendCopy(of: digits)
        } else {
            appendDecimal(version)
        }
        versionField = start..<count
        self.version = version
    }

    /// Appends a copy of bytes already written at `range`.
    mutating func appendCopy(of range: Range<Int>) {
        reserve(range.count)
        (buffer + count).initialize(from: buffer + range.lowerBound, count: range.count)
        count += range.count
    }

    /// Appends a field as `appendField` writes it when that changes nothing; false (nothing appended) when it
    /// would drop a byte or write `-` instead.
    mutating func appendField(_ field: String) -> Bool {
        appendWhole(field) { $0.isFieldChar }
    }

    /// Appends a token as `appendToken` writes it when that changes nothing; false (nothing appended) when it
    /// would drop a byte or write `-` instead.
    mutating func appendToken(_ token: String) -> Bool {
        appendWhole(token) { $0.isTokenChar }
    }

    /// Appends text as `appendText` writes it when that changes nothing; false (nothing appended) when the text
    /// holds NUL, CR or LF.
    mutating func appendText(_ text: String) -> Bool {
        text.isEmpty || appendWhole(text) { $0 != ASCII.nul && $0 != ASCII.cr && $0 != ASCII.lf }
    }

    /// Appends `text` when it is not empty and every byte passes `isAllowed`.
    private mutating func appendWhole(_ text: String, where isAllowed: (UInt8) -> Bool) -> Bool {
        var copy = text
        return copy.withUTF8 { bytes in
            guard !bytes.isEmpty, bytes.allSatisfy(isAllowed) else { return false }
            append(bytes)
            return true
        }
    }

    /// The description written: canonical, sent as it is.
    func finish() -> WireStorage {
        let bytes = [UInt8](UnsafeBufferPointer(start: buffer, count: count))
        return WireStorage(written: bytes, versionField: versionField, version: version)
    }
}

extension SDPLimits {
    /// No bounds: for reading back what we wrote.
    static let unbounded = SDPLimits(
        maximumSize: .max, maximumLineLength: .max, maximumLines: .max, maximumMediaDescriptions: .max)
}
