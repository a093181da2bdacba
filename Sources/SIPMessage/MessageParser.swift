#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The start line of a message, parsed.
enum StartLine {
    case request(SIPMethod, URI)
    case response(Int, String)
}

/// What one pass over a message head finds besides its fields: plain values, cheap to move.
struct HeadLayout {
    var isResponse: Bool
    /// The start line, without its line break.
    var startLine: Range<Int>
    /// How the Content-Length field read, and its value when `.valid`.
    var contentLengthState: ContentLengthState
    var contentLengthValue: Int
    /// Where the body starts (just past the empty line).
    var bodyStart: Int

    /// How the Content-Length field read.
    enum ContentLengthState: UInt8 { case absent, valid, multiple, tooLarge, malformed, folded }

    /// Whether Content-Length was present and valid, or absent (`contentLengthError` is `nil` exactly then).
    var isContentLengthUsable: Bool { contentLengthState == .absent || contentLengthState == .valid }

    /// The Content-Length value; `nil` when absent or invalid.
    var contentLength: Int? { contentLengthState == .valid ? contentLengthValue : nil }

    /// `error` as this message's parse may report it: a response's faults are dropped, not answered.
    func fail(_ error: MessageError) -> MessageError { isResponse ? error.asDrop : error }

    /// The error for an invalid Content-Length (built only when asked for).
    var contentLengthError: MessageError? {
        let error: MessageError
        switch contentLengthState {
        case .absent, .valid: return nil
        case .multiple:
            error = MessageError(
                .multipleValues, status: 400, "Multiple Content-Length values", field: "content-length")
        case .tooLarge:
            error = MessageError(.messageTooLarge, status: 413, "Content-Length too large", field: "content-length")
        case .malformed:
            error = MessageError(.badContentLength, status: 400, "Malformed Content-Length", field: "content-length")
        case .folded:
            error = MessageError(.badContentLength, status: 400, "Folded Content-Length", field: "content-length")
        }
        return fail(error)
    }
}

/// A message head (start line and header fields) found in a stream's buffer.
struct ParsedHead {
    var layout: HeadLayout
    /// The start line, or why it is malformed.
    var startLineResult: Result<StartLine, MessageError>
    var entries: [SIPFields.Entry]

    var isResponse: Bool { layout.isResponse }
    var contentLength: Int? { layout.contentLength }
    var contentLengthError: MessageError? { layout.contentLengthError }
    var bodyStart: Int { layout.bodyStart }

    /// `nil` when the start line was malformed: then `startLineError` says why.
    var startLine: StartLine? {
        if case .success(let line) = startLineResult { return line }
        return nil
    }

    var startLineError: MessageError? {
        if case .failure(let error) = startLineResult { return error }
        return nil
    }
}

/// The parser: bytes in, `Message` or `MessageError` out. Works over the bytes in place: header values are
/// ranges of the buffer, and line folds are turned into spaces where they are.
enum MessageParser {
    static func parseDatagram(_ input: [UInt8], limits: ParserLimits) throws(MessageError) -> Message {
        guard input.count <= limits.maximumMessageSize else {
            throw MessageError(.messageTooLarge, status: 513, "Message Too Large")
        }
        // The head's parts go straight into the message: the fields as they were appended, the start line as
        // the method and URI or the status and phrase (no intermediate head or `Result` to copy and destroy).
        var entries: [SIPFields.Entry] = []
        var folds: [Range<Int>] = []
        let head = try input.withUnsafeBufferPointer { (buffer) throws(MessageError) -> HeadLayout in
            try scanHead(buffer, 0..<buffer.count, limits: limits, entries: &entries, folds: &folds)
        }
        if !head.isContentLengthUsable, let error = head.contentLengthError { throw error }
        var bytes = input
        for fold in folds {
            for k in fold { bytes[k] = ASCII.space }
        }
        if head.isResponse {
            let (code, phrase) = try input.withUnsafeBufferPointer { (buffer) throws(MessageError) in
                do throws(MessageError) {
                    return try parseStatusLine(buffer, head.startLine)
                } catch {
                    throw head.fail(error)
                }
            }
            let body = try body(of: bytes, head)
            return .response(
                SIPResponse(
                    statusCode: code, reasonPhrase: phrase,
                    headerFields: SIPFields(storage: consume bytes, entries: consume entries), bodyBytes: body))
        }
        let (method, uri) = try input.withUnsafeBufferPointer { (buffer) throws(MessageError) in
            try parseRequestLine(buffer, owner: input, head.startLine, limits: limits)
        }
        let body = try body(of: bytes, head)
        return .request(
            SIPRequest(
                method: method, uri: uri, headerFields: SIPFields(storage: consume bytes, entries: consume entries),
                bodyBytes: body))
    }

    /// The body of a datagram (RFC 3261 §18.3): Content-Length bytes after the head, or the rest of the datagram
    /// without Content-Length. No body, no reference to the message bytes (a slice costs a retain and a release).
    @inline(__always)
    static func body(of bytes: [UInt8], _ head: HeadLayout) throws(MessageError) -> ArraySlice<UInt8> {
        let bodyRange: Range<Int>
        if let length = head.contentLength {
            guard length <= bytes.count - head.bodyStart else {
                throw head.fail(MessageError(.badContentLength, status: 400, "Content-Length larger than the message"))
            }
            bodyRange = head.bodyStart..<(head.bodyStart + length)
        } else {
            bodyRange = head.bodyStart..<bytes.count
        }
        return bodyRange.isEmpty ? ArraySlice() : bytes[bodyRange]
    }

    static func makeMessage(
        _ startLine: StartLine, storage: [UInt8], entries: [SIPFields.Entry], body: ArraySlice<UInt8>
    ) -> Message {
        let fields = SIPFields(storage: storage, entries: entries)
        switch startLine {
        case .request(let method, let uri):
            return .request(SIPRequest(method: method, uri: uri, headerFields: fields, bodyBytes: body))
        case .response(let code, let phrase):
            return .response(SIPResponse(statusCode: code, reasonPhrase: phrase, headerFields: fields, bodyBytes: body))
        }
    }

    /// Finds `byte` in `bytes[from..<to]`.
    @inline(__always)
    static func find(_ byte: UInt8, in bytes: [UInt8], from: Int, to: Int) -> Int? {
        guard from < to else { return nil }
        return bytes.withUnsafeBufferPointer { find(byte, in: $0, from: from, to: to) }
    }

    @inline(__always)
    static func find(_ byte: UInt8, in buffer: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int? {
        guard from < to, to <= buffer.count, let base = buffer.baseAddress else { return nil }
        guard let hit = memchr(base + from, Int32(byte), to - from) else { return nil }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    /// Parses the head starting at `range.lowerBound` (leading CRLFs skipped). Throws when the header
    /// section is malformed or does not end inside `range`; a bad start line is reported in the result so
    /// that a stream can still skip the message. Line folds are turned into spaces in `bytes`.
    static func parseHead(_ bytes: inout [UInt8], _ range: Range<Int>, limits: ParserLimits) throws(MessageError)
        -> ParsedHead
    {
        var folds: [Range<Int>] = []
        var entries: [SIPFields.Entry] = []
        let owner = bytes
        let (layout, startLine) = try owner.withUnsafeBufferPointer {
            (buffer) throws(MessageError) -> (HeadLayout, Result<StartLine, MessageError>) in
            let layout = try scanHead(buffer, range, limits: limits, entries: &entries, folds: &folds)
            do throws(MessageError) {
                return (layout, .success(try parseStartLine(buffer, owner: owner, layout, limits: limits)))
            } catch {
                return (layout, .failure(layout.fail(error)))
            }
        }
        for fold in folds {
            for k in fold { bytes[k] = ASCII.space }
        }
        return ParsedHead(layout: layout, startLineResult: startLine, entries: entries)
    }

    /// One pass over the head: finds the lines with memchr, classifies each name while reading it, trims the
    /// values and reads Content-Length; records the line breaks of folds for the caller to blank out.
    static func scanHead(
        _ buf: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, limits: ParserLimits,
        entries: inout [SIPFields.Entry], folds: inout [Range<Int>]
    ) throws(MessageError) -> HeadLayout {
        let end = Swift.min(range.upperBound, buf.count)
        var i = range.lowerBound
        while i < end, buf[i] == ASCII.cr || buf[i] == ASCII.lf { i += 1 }
        guard i < end else { throw MessageError(.malformedStartLine, status: nil, "Empty message (keep-alive)") }
        let isResponse = startsWithSIPSlash(buf, i, end)
        func fail(_ error: MessageError) -> MessageError { isResponse ? error.asDrop : error }

        guard let firstLF = find(ASCII.lf, in: buf, from: i, to: end) else {
            throw fail(MessageError(.incompleteHeaders, status: 400, "Header section not terminated"))
        }
        let startLineRange = i..<(firstLF > i && buf[firstLF - 1] == ASCII.cr ? firstLF - 1 : firstLF)
        i = firstLF + 1

        entries.reserveCapacity(16)
        // The buffer is not empty (`i < end <= buf.count`): the line search below calls memchr from its base
        // address without the checks of `find` on every line.
        guard let base = buf.baseAddress else {
            throw fail(MessageError(.incompleteHeaders, status: 400, "Header section not terminated"))
        }
        var previousLineEnd = 0
        var bodyStart = -1
        // Content-Length as scalars (a large optional error in the loop costs copies on every line).
        var contentLengthState = HeadLayout.ContentLengthState.absent
        var contentLengthValue = 0
        let contentLengthID = KnownHeader.contentLength.rawValue
        while i < end {
            // `i < end`: a search of at least one byte, inside the buffer.
            guard let hit = memchr(base + i, Int32(ASCII.lf), end &- i) else { break }
            let lf = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            var contentEnd = lf > i && buf[lf - 1] == ASCII.cr ? lf - 1 : lf
            if contentEnd == i {
                bodyStart = lf + 1
                break
            }
            let first = buf[i]
            if first == ASCII.space || first == ASCII.tab {
                // A folded continuation (RFC 3261 §7.3.1): the line break before it becomes spaces.
                guard let last = entries.indices.last else {
                    throw fail(MessageError(.malformedHeader, status: 400, "Continuation line before any header"))
                }
                folds.append(previousLineEnd..<i)
                while contentEnd > i, buf[contentEnd - 1] == ASCII.space || buf[contentEnd - 1] == ASCII.tab {
                    contentEnd -= 1
                }
                // A continuation of white space only adds nothing: the value keeps its end, so that it never
                // ends in the spaces the fold became (they would be trimmed when the message is read again).
                if contentEnd > i {
                    var start = Int(entries[last].valueStart)
                    if entries[last].valueLength == 0 {
                        // The value starts on this line.
                        start = i
                        while start < contentEnd, buf[start] == ASCII.space || buf[start] == ASCII.tab { start += 1 }
                        entries[last].valueStart = UInt32(truncatingIfNeeded: start)
                    }
                    entries[last].valueLength = UInt32(truncatingIfNeeded: Swift.max(0, contentEnd - start))
                    if entries[last].id == contentLengthID { contentLengthState = .folded }
                }
            } else {
                let nameLength: Int
                let id: UInt8
                let colon: Int
                if let (count, words) = delimitedName(buf, i), buf[i &+ count] == ASCII.colon {
                    // The usual `Name:`, read a word at a time. A known name matched this way is made of token
                    // characters (its bytes are above SP); any other name is checked byte by byte.
                    nameLength = count
                    colon = i &+ count
                    id =
                        count == 1
                        ? KnownHeader.classify(buf, i..<(i &+ 1)) : KnownHeader.classify(count: count, words: words)
                    if id == 0 {
                        guard MessageParser.allTokenChars(buf, i, colon) else {
                            throw fail(
                                MessageError(.malformedHeader, status: 400, "Malformed header line (no name or ':')"))
                        }
                    }
                } else {
                    // The name: token characters (one lookup in a constant table per byte), packed into words for
                    // classification afterwards.
                    var j = i
                    while j < contentEnd, buf[j].isTokenChar { j += 1 }
                    nameLength = j - i
                    while j < contentEnd, buf[j] == ASCII.space || buf[j] == ASCII.tab { j += 1 }
                    guard nameLength > 0, j < contentEnd, buf[j] == ASCII.colon else {
                        throw fail(
                            MessageError(.malformedHeader, status: 400, "Malformed header line (no name or ':')"))
                    }
                    guard nameLength <= Int(UInt16.max) else {
                        throw fail(MessageError(.malformedHeader, status: 400, "Header name too long"))
                    }
                    colon = j
                    if nameLength == 1 {
                        id = KnownHeader.classify(buf, i..<(i + 1))
                    } else if nameLength <= 24 {
                        id = KnownHeader.classify(count: nameLength, words: packedName(buf, i, nameLength))
                    } else {
                        id = 0
                    }
                }
                guard entries.count < limits.maximumHeaderFields else {
                    throw fail(MessageError(.tooManyHeaders, status: 400, "Too many header fields"))
                }
                var start = colon &+ 1
                // Usually one space: taken without the loop. `buf[contentEnd]` is the line's CR or LF, which is
                // not white space: the loop ends there without a bounds test per byte.
                if buf[start] == ASCII.space { start &+= 1 }
                while buf[start] == ASCII.space || buf[start] == ASCII.tab { start &+= 1 }
                var stop = contentEnd
                while stop > start, buf[stop - 1] == ASCII.space || buf[stop - 1] == ASCII.tab { stop -= 1 }
                if id == contentLengthID {
                    if contentLengthState != .absent {
                        contentLengthState = .multiple
                    } else if let value = parseDecimal(buf, start..<stop, limit: UInt64(limits.maximumMessageSize)) {
                        contentLengthState = .valid
                        contentLengthValue = Int(value)
                    } else if start < stop, (start..<stop).allSatisfy({ buf[$0].isDigit }) {
                        contentLengthState = .tooLarge
                    } else {
                        contentLengthState = .malformed
                    }
                }
                entries.append(
                    SIPFields.Entry(
                        nameStart: UInt32(truncatingIfNeeded: i),
                        valueStart: UInt32(truncatingIfNeeded: start),
                        valueLength: UInt32(truncatingIfNeeded: stop - start),
                        nameLength: UInt16(truncatingIfNeeded: nameLength),
                        id: id))
            }
            previousLineEnd = contentEnd
            i = lf + 1
        }
        guard bodyStart >= 0 else {
            throw fail(MessageError(.incompleteHeaders, status: 400, "Header section not terminated"))
        }

        return HeadLayout(
            isResponse: isResponse, startLine: startLineRange, contentLengthState: contentLengthState,
            contentLengthValue: contentLengthValue, bodyStart: bodyStart)
    }

    /// The name at the start of a header line, up to its first byte that is `:` or not above SP, read eight bytes
    /// at a time: its length (1...24) and its bytes packed into words as `packedName` packs them. `nil` when the
    /// name is empty or longer than 24 bytes, or when the words needed reach past the buffer. The line's CR or LF
    /// ends every name, so the length never reaches past the line.
    @inline(__always)
    static func delimitedName(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int) -> (Int, (UInt64, UInt64, UInt64))? {
        guard let base = buf.baseAddress, start >= 0 else { return nil }
        let available = buf.count &- start
        guard available >= 8 else { return nil }
        let raw = UnsafeRawPointer(base + start)
        let lowerBits: UInt64 = 0x2020_2020_2020_2020
        let w0 = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
        let m0 = delimiters(w0)
        if m0 != 0 {
            let count = m0.trailingZeroBitCount &>> 3
            guard count > 0 else { return nil }
            return (count, (lowered(w0, count), 0, 0))
        }
        guard available >= 16 else { return nil }
        let w1 = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let m1 = delimiters(w1)
        if m1 != 0 {
            let count = m1.trailingZeroBitCount &>> 3
            return (8 &+ count, (w0 | lowerBits, lowered(w1, count), 0))
        }
        guard available >= 24 else { return nil }
        let w2 = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        let m2 = delimiters(w2)
        guard m2 != 0 else { return nil }
        let count = m2.trailingZeroBitCount &>> 3
        return (16 &+ count, (w0 | lowerBits, w1 | lowerBits, lowered(w2, count)))
    }

    /// The top bit of the first byte of `word` that is `:` or at most SP is the lowest bit set (bits above it
    /// may be set by borrows and mean nothing).
    @inline(__always)
    static func delimiters(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let x = word ^ 0x3A3A_3A3A_3A3A_3A3A
        return ((x &- ones) & ~x | (word &- 0x2121_2121_2121_2121) & ~word) & high
    }

    /// The first `count` (0...7) bytes of `word` with bit 0x20 set, the rest zero.
    @inline(__always)
    static func lowered(_ word: UInt64, _ count: Int) -> UInt64 {
        (word | 0x2020_2020_2020_2020) & ((1 &<< UInt64(truncatingIfNeeded: count &* 8)) &- 1)
    }

    /// Whether `buf[from..<to]` are all token characters.
    static func allTokenChars(_ buf: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Bool {
        var k = from
        while k < to {
            guard buf[k].isTokenChar else { return false }
            k &+= 1
        }
        return true
    }

    /// The header name at `buf[start..<start + count]` (`count` in 1...24, token characters only) packed into
    /// three little-endian words for `KnownHeader.classify(count:words:)`, lower-cased by setting bit 0x20 of
    /// every byte: that lower-cases letters and leaves the other token characters but `_` as they are (`_`
    /// becomes DEL, which no known name has), so known names classify as with `lowercasedASCII`. Reads whole
    /// words, also for a name that ends less than 8 bytes before the end of the buffer; never outside it.
    @inline(__always)
    static func packedName(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> (UInt64, UInt64, UInt64) {
        let lowerBits: UInt64 = 0x2020_2020_2020_2020
        guard let base = buf.baseAddress, start >= 0, count <= 24, start <= buf.count - 24 else {
            return packedNameNearEnd(buf, start, count)
        }
        let raw = UnsafeRawPointer(base + start)
        @inline(__always)
        func word(_ w: Int) -> UInt64 {
            let n = count - 8 * w
            guard n > 0 else { return 0 }
            let value = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8 * w, as: UInt64.self)) | lowerBits
            return n >= 8 ? value : value & ((1 &<< UInt64(8 * n)) &- 1)
        }
        return (word(0), word(1), word(2))
    }

    /// `packedName` for a name that ends less than 24 bytes before the end of the buffer (the last header line of
    /// a message without a body): still word loads where the buffer allows, never outside it.
    static func packedNameNearEnd(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> (
        UInt64, UInt64, UInt64
    ) {
        let lowerBits: UInt64 = 0x2020_2020_2020_2020
        let available = Swift.min(count, 24, Swift.max(0, buf.count - start))
        guard let base = buf.baseAddress, start >= 0, available > 0 else { return (0, 0, 0) }
        @inline(__always)
        func word(_ w: Int) -> UInt64 {
            let offset = start &+ 8 &* w
            let n = available &- 8 &* w
            guard n > 0 else { return 0 }
            if offset &+ 8 <= buf.count {
                // A whole word from the buffer, the bytes past the name masked off.
                let value = UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self))
                return (value | lowerBits) & (n >= 8 ? UInt64.max : (1 &<< UInt64(8 &* n)) &- 1)
            }
            if offset &+ n >= 8 {
                // Near the end of the buffer (the last header line of a message without a body): the 8 bytes
                // that end with the name, shifted down; bytes before `offset` belong to the previous word or line.
                let value = UInt64(
                    littleEndian: UnsafeRawPointer(base + (offset &+ n &- 8)).loadUnaligned(as: UInt64.self))
                return (value &>> UInt64(8 &* (8 &- n))) | (lowerBits &>> UInt64(8 &* (8 &- n)))
            }
            var value: UInt64 = 0
            for k in 0..<n { value |= UInt64(buf[offset &+ k] | 0x20) &<< UInt64(8 &* k) }
            return value
        }
        return (word(0), word(1), word(2))
    }

    static func startsWithSIPSlash(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int, _ end: Int) -> Bool {
        i + 4 <= end && bytes[i] | 0x20 == 0x73 && bytes[i + 1] | 0x20 == 0x69 && bytes[i + 2] | 0x20 == 0x70
            && bytes[i + 3] == ASCII.slash
    }

    /// `SIP-Version = "SIP" "/" 1*DIGIT "." 1*DIGIT`; returns whether it is 2.0, or nil if malformed.
    static func parseVersion(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool? {
        guard startsWithSIPSlash(bytes, range.lowerBound, range.upperBound) else { return nil }
        // The usual `SIP/2.0` without the two decimal parses.
        if range.count == 7, bytes[range.lowerBound + 4] == 0x32, bytes[range.lowerBound + 5] == ASCII.dot,
            bytes[range.lowerBound + 6] == 0x30
        {
            return true
        }
        var i = range.lowerBound + 4
        let majorStart = i
        while i < range.upperBound, bytes[i].isDigit { i += 1 }
        let major = majorStart..<i
        guard !major.isEmpty, i < range.upperBound, bytes[i] == ASCII.dot else { return nil }
        i += 1
        let minorStart = i
        while i < range.upperBound, bytes[i].isDigit { i += 1 }
        let minor = minorStart..<i
        guard !minor.isEmpty, i == range.upperBound else { return nil }
        return parseDecimal(bytes, major, limit: 1000) == 2 && parseDecimal(bytes, minor, limit: 1000) == 0
    }

    static func parseStartLine(
        _ bytes: UnsafeBufferPointer<UInt8>, owner: [UInt8], _ head: HeadLayout, limits: ParserLimits
    ) throws(MessageError) -> StartLine {
        if head.isResponse {
            let (code, phrase) = try parseStatusLine(bytes, head.startLine)
            return .response(code, phrase)
        }
        let (method, uri) = try parseRequestLine(bytes, owner: owner, head.startLine, limits: limits)
        return .request(method, uri)
    }

    /// Status-Line = SIP-Version SP Status-Code SP Reason-Phrase
    static func parseStatusLine(_ bytes: UnsafeBufferPointer<UInt8>, _ line: Range<Int>) throws(MessageError) -> (
        Int, String
    ) {
        guard let sp = find(ASCII.space, in: bytes, from: line.lowerBound, to: line.upperBound) else {
            throw MessageError(.malformedStartLine, status: nil, "Malformed status line")
        }
        guard let is20 = parseVersion(bytes, line.lowerBound..<sp) else {
            throw MessageError(.malformedStartLine, status: nil, "Malformed SIP-Version")
        }
        guard is20 else { throw MessageError(.unsupportedVersion, status: nil, "Unsupported SIP-Version") }
        var i = sp + 1
        let codeStart = i
        while i < line.upperBound, bytes[i].isDigit { i += 1 }
        guard i - codeStart == 3, let code = parseDecimal(bytes, codeStart..<i, limit: 999),
            (100...699).contains(code)
        else { throw MessageError(.statusOutOfRange, status: nil, "Status code out of range") }
        guard i == line.upperBound || bytes[i] == ASCII.space else {
            throw MessageError(.malformedStartLine, status: nil, "Malformed status line")
        }
        let phraseStart = min(i + 1, line.upperBound)
        return (Int(code), String(bytes: bytes, range: phraseStart..<line.upperBound))
    }

    /// Request-Line = Method SP Request-URI SP SIP-Version
    static func parseRequestLine(
        _ bytes: UnsafeBufferPointer<UInt8>, owner: [UInt8], _ line: Range<Int>, limits: ParserLimits
    ) throws(MessageError) -> (SIPMethod, URI) {
        var m = line.lowerBound
        while m < line.upperBound, bytes[m].isTokenChar { m += 1 }
        guard m > line.lowerBound, m < line.upperBound, bytes[m] == ASCII.space else {
            throw MessageError(.malformedStartLine, status: 400, "Malformed request line")
        }
        var v = line.upperBound
        while v > m, bytes[v - 1] != ASCII.space { v -= 1 }
        guard v - 1 > m else { throw MessageError(.malformedStartLine, status: 400, "Missing SIP-Version") }
        guard v < line.upperBound else {
            throw MessageError(.malformedStartLine, status: 400, "Trailing white space in request line")
        }
        switch parseVersion(bytes, v..<line.upperBound) {
        case nil: throw MessageError(.malformedStartLine, status: 400, "Malformed SIP-Version")
        case false?: throw MessageError(.unsupportedVersion, status: 505, "Version Not Supported")
        case true?: break
        }
        let uriRange = (m + 1)..<(v - 1)
        guard bytes[uriRange.lowerBound] != ASCII.space, bytes[uriRange.upperBound - 1] != ASCII.space else {
            throw MessageError(.malformedStartLine, status: 400, "Extra white space in request line")
        }
        guard uriRange.count <= limits.maximumURILength else {
            throw MessageError(.uriTooLong, status: 414, "Request-URI Too Long")
        }
        let uri: URI
        do {
            uri = try withUnsafePointer(to: owner) { (owner) throws(MessageError) -> URI in
                var scanner = ByteScanner(bytes, owner: owner, uriRange)
                return try URI.parse(&scanner)
            }
        } catch {
            throw MessageError(.malformedURI, status: 400, "Malformed Request-URI (\(error.uriProblem))")
        }
        let method = ByteScanner.internedToken(bytes, line.lowerBound..<m)
        return (SIPMethod(unchecked: method), uri)
    }
}
