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

/// A message head (start line and header fields) found in a buffer.
struct ParsedHead {
    /// `nil` when the start line was malformed: then `startLineError` says why.
    var startLine: StartLine?
    var startLineError: MessageError?
    var isResponse: Bool
    var entries: [SIPFields.Entry]
    /// The Content-Length value; `nil` when absent.
    var contentLength: Int?
    var contentLengthError: MessageError?
    /// Where the body starts (just past the empty line).
    var bodyStart: Int
}

/// The parser: bytes in, `Message` or `MessageError` out. Works over the bytes in place: header values are
/// ranges of the buffer, and line folds are turned into spaces where they are.
enum MessageParser {
    static func parseDatagram(_ input: [UInt8], limits: ParserLimits) throws(MessageError) -> Message {
        var bytes = input
        guard bytes.count <= limits.maximumMessageSize else {
            throw MessageError(.messageTooLarge, status: 513, "Message Too Large")
        }
        let head = try parseHead(&bytes, 0..<bytes.count, limits: limits)
        func fail(_ error: MessageError) -> MessageError { head.isResponse ? error.asDrop : error }
        if let error = head.contentLengthError { throw fail(error) }
        guard let startLine = head.startLine else {
            throw head.startLineError ?? MessageError(.malformedStartLine, status: 400, "Malformed start line")
        }
        let available = bytes.count - head.bodyStart
        let bodyRange: Range<Int>
        if let length = head.contentLength {
            guard length <= available else {
                throw fail(MessageError(.badContentLength, status: 400, "Content-Length larger than the message"))
            }
            bodyRange = head.bodyStart..<(head.bodyStart + length)
        } else {
            bodyRange = head.bodyStart..<bytes.count
        }
        return makeMessage(startLine, storage: bytes, entries: head.entries, body: bytes[bodyRange])
    }

    static func makeMessage(
        _ startLine: StartLine, storage: [UInt8], entries: [SIPFields.Entry], body: ArraySlice<UInt8>
    ) -> Message {
        let fields = SIPFields(storage: storage, entries: entries)
        switch startLine {
        case .request(let method, let uri):
            var request = SIPRequest(method: method, uri: uri, headerFields: fields)
            request.bodyBytes = body
            return .request(request)
        case .response(let code, let phrase):
            var response = SIPResponse(statusCode: code, reasonPhrase: phrase, headerFields: fields)
            response.bodyBytes = body
            return .response(response)
        }
    }

    /// Finds `byte` in `bytes[from..<to]`.
    @inline(__always)
    static func find(_ byte: UInt8, in bytes: [UInt8], from: Int, to: Int) -> Int? {
        guard from < to else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress, to <= buffer.count else { return nil }
            guard let hit = memchr(base + from, Int32(byte), to - from) else { return nil }
            return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Parses the head starting at `range.lowerBound` (leading CRLFs skipped). Throws when the header
    /// section is malformed or does not end inside `range`; a bad start line is reported in the result so
    /// that a stream can still skip the message.
    static func parseHead(_ bytes: inout [UInt8], _ range: Range<Int>, limits: ParserLimits) throws(MessageError)
        -> ParsedHead
    {
        let end = range.upperBound
        var i = range.lowerBound
        while i < end, bytes[i] == ASCII.cr || bytes[i] == ASCII.lf { i += 1 }
        guard i < end else { throw MessageError(.malformedStartLine, status: nil, "Empty message (keep-alive)") }
        let isResponse = startsWithSIPSlash(bytes, i, end)
        func fail(_ error: MessageError) -> MessageError { isResponse ? error.asDrop : error }

        guard let firstLF = find(ASCII.lf, in: bytes, from: i, to: end) else {
            throw fail(MessageError(.incompleteHeaders, status: 400, "Header section not terminated"))
        }
        let startLineRange = i..<(firstLF > i && bytes[firstLF - 1] == ASCII.cr ? firstLF - 1 : firstLF)
        i = firstLF + 1

        var entries: [SIPFields.Entry] = []
        entries.reserveCapacity(16)
        var previousLineEnd = -1
        var bodyStart = -1
        while i < end {
            guard let lf = find(ASCII.lf, in: bytes, from: i, to: end) else { break }
            let contentEnd = lf > i && bytes[lf - 1] == ASCII.cr ? lf - 1 : lf
            if contentEnd == i {
                bodyStart = lf + 1
                break
            }
            let first = bytes[i]
            if first == ASCII.space || first == ASCII.tab {
                // A folded continuation: the line break before it becomes spaces (RFC 3261 §7.3.1).
                guard var last = entries.popLast() else {
                    throw fail(MessageError(.malformedHeader, status: 400, "Continuation line before any header"))
                }
                for k in previousLineEnd..<i { bytes[k] = ASCII.space }
                last.valueLength = UInt32(contentEnd - Int(last.valueStart))
                entries.append(last)
            } else {
                var j = i
                while j < contentEnd, bytes[j].isTokenChar { j += 1 }
                let nameEnd = j
                while j < contentEnd, bytes[j] == ASCII.space || bytes[j] == ASCII.tab { j += 1 }
                guard nameEnd > i, j < contentEnd, bytes[j] == ASCII.colon else {
                    throw fail(MessageError(.malformedHeader, status: 400, "Malformed header line (no name or ':')"))
                }
                guard entries.count < limits.maximumHeaderFields else {
                    throw fail(MessageError(.tooManyHeaders, status: 400, "Too many header fields"))
                }
                let nameRange = i..<nameEnd
                guard nameRange.count <= Int(UInt16.max) else {
                    throw fail(MessageError(.malformedHeader, status: 400, "Header name too long"))
                }
                entries.append(
                    SIPFields.Entry(
                        nameStart: UInt32(truncatingIfNeeded: i),
                        valueStart: UInt32(truncatingIfNeeded: j + 1),
                        valueLength: UInt32(truncatingIfNeeded: contentEnd - j - 1),
                        nameLength: UInt16(truncatingIfNeeded: nameRange.count),
                        id: KnownHeader.classify(bytes, nameRange)))
            }
            previousLineEnd = contentEnd
            i = lf + 1
        }
        guard bodyStart >= 0 else {
            throw fail(MessageError(.incompleteHeaders, status: 400, "Header section not terminated"))
        }

        // Trim the white space around each value; find Content-Length.
        var contentLength: Int?
        var contentLengthError: MessageError?
        for k in entries.indices {
            var start = Int(entries[k].valueStart)
            var stop = start + Int(entries[k].valueLength)
            while start < stop, bytes[start] == ASCII.space || bytes[start] == ASCII.tab { start += 1 }
            while stop > start, bytes[stop - 1] == ASCII.space || bytes[stop - 1] == ASCII.tab { stop -= 1 }
            entries[k].valueStart = UInt32(truncatingIfNeeded: start)
            entries[k].valueLength = UInt32(truncatingIfNeeded: stop - start)
            if entries[k].id == KnownHeader.contentLength.rawValue {
                if contentLength != nil || contentLengthError != nil {
                    contentLengthError = MessageError(
                        .multipleValues, status: 400, "Multiple Content-Length values", field: "content-length")
                } else if let value = parseDecimal(bytes, start..<stop, limit: UInt64(limits.maximumMessageSize)) {
                    contentLength = Int(value)
                } else if start < stop, bytes[start..<stop].allSatisfy(\.isDigit) {
                    contentLengthError = MessageError(
                        .messageTooLarge, status: 413, "Content-Length too large", field: "content-length")
                } else {
                    contentLengthError = MessageError(
                        .badContentLength, status: 400, "Malformed Content-Length", field: "content-length")
                }
            }
        }

        var startLine: StartLine?
        var startLineError: MessageError?
        do {
            startLine = try parseStartLine(bytes, startLineRange, isResponse: isResponse, limits: limits)
        } catch {
            startLineError = fail(error)
        }
        return ParsedHead(
            startLine: startLine, startLineError: startLineError, isResponse: isResponse, entries: entries,
            contentLength: contentLength, contentLengthError: contentLengthError.map(fail), bodyStart: bodyStart)
    }

    static func startsWithSIPSlash(_ bytes: [UInt8], _ i: Int, _ end: Int) -> Bool {
        i + 4 <= end && bytes[i] | 0x20 == 0x73 && bytes[i + 1] | 0x20 == 0x69 && bytes[i + 2] | 0x20 == 0x70
            && bytes[i + 3] == ASCII.slash
    }

    /// `SIP-Version = "SIP" "/" 1*DIGIT "." 1*DIGIT`; returns whether it is 2.0, or nil if malformed.
    static func parseVersion(_ bytes: [UInt8], _ range: Range<Int>) -> Bool? {
        guard startsWithSIPSlash(bytes, range.lowerBound, range.upperBound) else { return nil }
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

    static func parseStartLine(_ bytes: [UInt8], _ line: Range<Int>, isResponse: Bool, limits: ParserLimits)
        throws(MessageError) -> StartLine
    {
        if isResponse {
            // Status-Line = SIP-Version SP Status-Code SP Reason-Phrase
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
            return .response(Int(code), String(bytes: bytes, range: phraseStart..<line.upperBound))
        }

        // Request-Line = Method SP Request-URI SP SIP-Version
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
            uri = try URI.parse(bytes, uriRange)
        } catch {
            throw MessageError(.malformedURI, status: 400, "Malformed Request-URI (\(error.uriProblem))")
        }
        return .request(SIPMethod(unchecked: String(bytes: bytes, range: line.lowerBound..<m)), uri)
    }
}
