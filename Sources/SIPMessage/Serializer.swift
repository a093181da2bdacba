// Writing messages: one buffer, names as received, Content-Length from the body.

extension SIPFields {
    /// Writes every field line, with Content-Length set to `contentLength` (in the position it was received,
    /// or appended at the end), then the empty line.
    func serialize(into buffer: inout [UInt8], contentLength: Int) {
        var wroteContentLength = false
        let contentLengthID = KnownHeader.contentLength.rawValue
        // Each name and value goes in as one run of bytes from the storage.
        storage.withUnsafeBufferPointer { source in
            for entry in entries {
                let isContentLength = entry.id == contentLengthID
                if isContentLength && wroteContentLength { continue }
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: source[entry.nameRange]))
                buffer.append(ASCII.colon)
                buffer.append(ASCII.space)
                if isContentLength {
                    wroteContentLength = true
                    buffer.appendDecimal(contentLength)
                } else {
                    buffer.append(contentsOf: UnsafeBufferPointer(rebasing: source[entry.valueRange]))
                }
                buffer.append(ASCII.cr)
                buffer.append(ASCII.lf)
            }
        }
        if !wroteContentLength {
            buffer.append("Content-Length: ")
            buffer.appendDecimal(contentLength)
            buffer.append(ASCII.cr)
            buffer.append(ASCII.lf)
        }
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
    }

    var estimatedSize: Int {
        var n = 24
        for entry in entries { n += Int(entry.nameLength) + Int(entry.valueLength) + 4 }
        return n
    }
}

extension SIPRequest {
    /// Appends the wire form to `buffer`.
    public func serialize(into buffer: inout [UInt8]) {
        buffer.append(method.rawValue)
        buffer.append(ASCII.space)
        uri.serialize(into: &buffer)
        buffer.append(" SIP/2.0\r\n")
        headerFields.serialize(into: &buffer, contentLength: bodyBytes.count)
        buffer.append(contentsOf: bodyBytes)
    }

    /// How many bytes the wire form has, counted without writing it (a transport choosing UDP or TCP by
    /// size, RFC 3261 §18.1.1, asks this of every request it sends).
    public var serializedCount: Int {
        method.rawValue.utf8.count + 1 + uri.serializedCount + 10
            + headerFields.serializedCount(contentLength: bodyBytes.count) + bodyBytes.count
    }

    /// The wire form.
    public func serialized() -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(headerFields.estimatedSize + 128 + bodyBytes.count)
        serialize(into: &buffer)
        return buffer
    }
}

extension SIPResponse {
    /// Appends the wire form to `buffer`.
    public func serialize(into buffer: inout [UInt8]) {
        buffer.append("SIP/2.0 ")
        buffer.appendDecimal(statusCode)
        buffer.append(ASCII.space)
        for b in reasonPhrase.utf8 where b != ASCII.cr && b != ASCII.lf { buffer.append(b) }
        buffer.append(ASCII.cr)
        buffer.append(ASCII.lf)
        headerFields.serialize(into: &buffer, contentLength: bodyBytes.count)
        buffer.append(contentsOf: bodyBytes)
    }

    /// The wire form.
    public func serialized() -> [UInt8] {
        if let exact = serializedExactly() { return exact }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(headerFields.estimatedSize + 64 + bodyBytes.count)
        serialize(into: &buffer)
        return buffer
    }

    /// `serialize(into:)`'s bytes written in one array of their exact size, each run of bytes copied once;
    /// `nil` for a negative status code or a reason phrase holding CR or LF (written the general way).
    private func serializedExactly() -> [UInt8]? {
        var reason = reasonPhrase
        // The phrase's bytes looked at in place (a native string's), not through its UTF-8 view one by one.
        let reasonCount = reason.withUTF8 { $0.count }
        guard statusCode >= 0, !reason.withUTF8({ $0.contains { $0 == ASCII.cr || $0 == ASCII.lf } }) else {
            return nil
        }
        let size =
            8 + RawWriter.decimalCount(UInt64(statusCode)) + 1 + reasonCount + 2
            + headerFields.serializedCount(contentLength: bodyBytes.count) + bodyBytes.count
        // The parts the writer reads, taken out first: a closure reading them off `self` would copy the whole
        // response (and destroy the copy) on each call.
        let fields = headerFields
        let body = bodyBytes
        let status = UInt64(statusCode)
        var complete = false
        let bytes = RawWriter.bytes(count: size) { buffer in
            var writer = RawWriter(buffer)
            writer.write("SIP/2.0 ")
            writer.writeDecimal(status)
            writer.write(ASCII.space)
            reason.withUTF8 { writer.write($0) }
            writer.write(ASCII.cr)
            writer.write(ASCII.lf)
            fields.write(into: &writer, contentLength: body.count)
            body.withUnsafeBufferPointer { writer.write($0) }
            complete = !writer.isTruncated && writer.count == size
            return writer.count
        }
        return complete ? bytes : nil
    }
}

extension SIPFields {
    /// How many bytes `serialize(into:contentLength:)` writes.
    func serializedCount(contentLength: Int) -> Int {
        let contentLengthID = KnownHeader.contentLength.rawValue
        let lengthDigits = RawWriter.decimalCount(UInt64(Swift.max(0, contentLength)))
        var n = 2
        var wroteContentLength = false
        for entry in entries {
            if entry.id == contentLengthID {
                if wroteContentLength { continue }
                wroteContentLength = true
                n += Int(entry.nameLength) + 2 + lengthDigits + 2
            } else {
                n += Int(entry.nameLength) + Int(entry.valueLength) + 4
            }
        }
        if !wroteContentLength { n += 16 + lengthDigits + 2 }
        return n
    }

    /// `serialize(into:contentLength:)` through a `RawWriter`.
    func write(into writer: inout RawWriter, contentLength: Int) {
        let contentLengthID = KnownHeader.contentLength.rawValue
        let length = UInt64(Swift.max(0, contentLength))
        var wroteContentLength = false
        storage.withUnsafeBufferPointer { source in
            for entry in entries {
                if entry.id != contentLengthID {
                    // The usual field: its whole line in one go.
                    writer.writeLine(
                        UnsafeBufferPointer(rebasing: source[entry.nameRange]),
                        UnsafeBufferPointer(rebasing: source[entry.valueRange]))
                    continue
                }
                if wroteContentLength { continue }
                writer.write(UnsafeBufferPointer(rebasing: source[entry.nameRange]))
                writer.write(ASCII.colon)
                writer.write(ASCII.space)
                wroteContentLength = true
                writer.writeDecimal(length)
                writer.write(ASCII.cr)
                writer.write(ASCII.lf)
            }
        }
        if !wroteContentLength {
            writer.write("Content-Length: ")
            writer.writeDecimal(length)
            writer.write(ASCII.cr)
            writer.write(ASCII.lf)
        }
        writer.write(ASCII.cr)
        writer.write(ASCII.lf)
    }
}

/// Writes into a buffer of a size worked out beforehand; a write that would not fit is dropped and noted, so
/// a miscount can only make the caller fall back, never write out of bounds.
struct RawWriter {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0
    private(set) var isTruncated = false

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    /// The first bytes (as many as `body` returns) that `body` writes into an uninitialized buffer of `count`
    /// bytes, in an array of their own. Written in temporary storage (the stack for a usual message) and copied:
    /// `[UInt8](unsafeUninitializedCapacity:)` allocates through a library function that is not specialized and
    /// looks the array's type up at run time on every call, which costs more than the copy.
    static func bytes(count: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Int) -> [UInt8] {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Swift.max(1, count)) { buffer in
            let written = Swift.min(Swift.max(0, body(buffer)), buffer.count)
            return [UInt8](UnsafeBufferPointer(rebasing: buffer[..<written]))
        }
    }

    @inline(__always)
    mutating func write(_ byte: UInt8) {
        guard count < buffer.count else {
            isTruncated = true
            return
        }
        buffer[count] = byte
        count += 1
    }

    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !bytes.isEmpty, let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
        guard bytes.count <= buffer.count - count else {
            isTruncated = true
            return
        }
        (target + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Writes the field line `name: value` CRLF: all of it, or (when it would not fit) nothing.
    mutating func writeLine(_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) {
        let total = name.count + value.count + 4
        guard total <= buffer.count - count, let target = buffer.baseAddress else {
            isTruncated = true
            return
        }
        var p = target + count
        Self.copy(name, to: &p)
        p[0] = ASCII.colon
        p[1] = ASCII.space
        p += 2
        Self.copy(value, to: &p)
        p[0] = ASCII.cr
        p[1] = ASCII.lf
        count += total
    }

    /// Copies `bytes` to `p` and moves `p` past them: a run up to 64 bytes (names and most values) in words,
    /// the last word overlapping the one before it, rather than byte by byte or through a `memcpy` call.
    @inline(__always)
    private static func copy(_ bytes: UnsafeBufferPointer<UInt8>, to p: inout UnsafeMutablePointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        let n = bytes.count
        let from = UnsafeRawPointer(source)
        let to = UnsafeMutableRawPointer(p)
        if n >= 8 && n <= 64 {
            var i = 0
            while i + 8 < n {
                to.storeBytes(
                    of: from.loadUnaligned(fromByteOffset: i, as: UInt64.self), toByteOffset: i, as: UInt64.self)
                i += 8
            }
            to.storeBytes(
                of: from.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self), toByteOffset: n - 8, as: UInt64.self)
        } else if n >= 4 && n < 8 {
            let head = from.loadUnaligned(as: UInt32.self)
            let tail = from.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
            to.storeBytes(of: head, as: UInt32.self)
            to.storeBytes(of: tail, toByteOffset: n - 4, as: UInt32.self)
        } else if n < 4 {
            for i in 0..<n { p[i] = source[i] }
        } else {
            p.initialize(from: source, count: n)
        }
        p += n
    }

    @inline(__always)
    mutating func write(_ text: StaticString) {
        text.withUTF8Buffer { write($0) }
    }

    /// Writes `value` in decimal.
    mutating func writeDecimal(_ value: UInt64) {
        let digits = Self.decimalCount(value)
        guard digits <= buffer.count - count else {
            isTruncated = true
            return
        }
        var rest = value
        var i = count + digits
        repeat {
            i -= 1
            buffer[i] = 0x30 &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        } while i > count
        count += digits
    }

    /// The number of decimal digits of `value`.
    static func decimalCount(_ value: UInt64) -> Int {
        var digits = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        return digits
    }
}

extension NameAddress {
    /// How many bytes `serializeDroppingTrailingTag(into:)` writes; `nil` when it writes none.
    package var serializedCountDroppingTrailingTag: Int? { rangeDroppingTrailingTag?.count }

    /// Appends what `compactCopyDroppingTrailingTag?.serialize(into:)` would, without making the copy: the
    /// address's bytes without its trailing plain tag. `false`, with nothing written, when that copy is `nil`.
    package func serializeDroppingTrailingTag(into buffer: inout [UInt8]) -> Bool {
        guard let range = rangeDroppingTrailingTag else { return false }
        source.withUnsafeBufferPointer { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
        return true
    }
}

extension URI {
    /// How many bytes `serialize(into:)` writes (for a caller that sizes its buffer first).
    package var wireCount: Int { serializedCount }

    /// Appends the URI as `description` spells it, without making a string of it.
    package func write(into buffer: inout [UInt8]) { serialize(into: &buffer) }
}
