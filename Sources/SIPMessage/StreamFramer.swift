/// Splits a byte stream (TCP, TLS) into SIP messages (RFC 3261 §18.3): partial reads are buffered,
/// several messages in one read come out one by one, CRLF keep-alives (RFC 5626 §4.4.1) are reported,
/// Content-Length is required, and a message over the size limit is refused before it is buffered whole.
///
/// Feed bytes with `append(_:)`, then call `next()` until it returns `nil` (nothing buffered) or
/// `.needMore`. After `.close`, the connection must be closed; `next()` keeps returning the same `.close`.
public struct StreamFramer: Sendable {
    public enum Output: Sendable, Hashable {
        /// A whole message.
        case message(Message)
        /// A message whose framing was sound but whose start line was not: answer it (requests) or drop
        /// it (responses); the stream goes on.
        case invalid(MessageError)
        /// A CRLFCRLF keep-alive ping: answer with a CRLF pong.
        case ping
        /// A CRLF keep-alive pong.
        case pong
        /// The buffered bytes are an incomplete message; at least `minimum` more bytes are needed.
        case needMore(minimum: Int)
        /// Framing is lost (bad or missing Content-Length, oversized message, garbage): answer if the
        /// error has a status, then close the connection.
        case close(MessageError)
    }

    public let limits: ParserLimits
    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// Where to resume the search for the end of the head.
    private var scanIndex = 0
    private var pending: ParsedHead?
    private var closeError: MessageError?

    public init(limits: ParserLimits = ParserLimits()) {
        self.limits = limits
    }

    /// Bytes buffered and not yet returned as messages.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        guard closeError == nil else { return }
        if readIndex > 0, readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
            scanIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next thing the stream holds, or `nil` when nothing is buffered.
    public mutating func next() -> Output? {
        if let closeError { return .close(closeError) }
        compactIfUseful()
        let end = buffer.count
        // Stray bare line feeds between messages are skipped (a loop: a peer may send any number of them).
        if pending == nil {
            while readIndex < end, buffer[readIndex] == ASCII.lf { readIndex += 1 }
            scanIndex = max(scanIndex, readIndex)
        }
        guard readIndex < end else { return nil }

        // Keep-alives between messages.
        if pending == nil, buffer[readIndex] == ASCII.cr {
            guard readIndex + 1 < end else { return .needMore(minimum: 1) }
            guard buffer[readIndex + 1] == ASCII.lf else {
                return close(.init(.malformedStartLine, status: 400, "Bare CR"))
            }
            if readIndex + 3 < end, buffer[readIndex + 2] == ASCII.cr, buffer[readIndex + 3] == ASCII.lf {
                readIndex += 4
                scanIndex = readIndex
                return .ping
            }
            if readIndex + 2 < end, buffer[readIndex + 2] == ASCII.cr, readIndex + 3 == end {
                return .needMore(minimum: 1)
            }
            readIndex += 2
            scanIndex = readIndex
            return .pong
        }

        if pending == nil {
            guard let headEnd = findHeadEnd() else {
                if end - readIndex > limits.maximumMessageSize {
                    return close(MessageError(.messageTooLarge, status: 513, "Message Too Large"))
                }
                return .needMore(minimum: missingTerminatorBytes())
            }
            do {
                let head = try MessageParser.parseHead(&buffer, readIndex..<headEnd, limits: limits)
                if let error = head.contentLengthError { return close(error) }
                guard let length = head.contentLength else {
                    let error = MessageError(
                        .badContentLength, status: 400, "Missing Content-Length on a stream transport",
                        field: "content-length")
                    return close(head.isResponse ? error.asDrop : error)
                }
                if head.bodyStart - readIndex + length > limits.maximumMessageSize {
                    let error = MessageError(.messageTooLarge, status: 513, "Message Too Large")
                    return close(head.isResponse ? error.asDrop : error)
                }
                pending = head
            } catch {
                return close(error)
            }
        }

        guard let head = pending, let length = head.contentLength else { return nil }
        let messageEnd = head.bodyStart + length
        guard messageEnd <= end else { return .needMore(minimum: messageEnd - end) }
        pending = nil
        let start = readIndex
        readIndex = messageEnd
        scanIndex = readIndex
        guard let startLine = head.startLine else {
            return .invalid(
                head.startLineError ?? MessageError(.malformedStartLine, status: 400, "Malformed start line"))
        }
        // The message gets its own storage: a copy of exactly its bytes, with the ranges moved.
        let storage = Array(buffer[start..<messageEnd])
        let shift = UInt32(truncatingIfNeeded: start)
        var entries = head.entries
        for k in entries.indices {
            entries[k].nameStart -= shift
            entries[k].valueStart -= shift
        }
        let bodyStart = head.bodyStart - start
        return .message(
            MessageParser.makeMessage(
                startLine, storage: storage, entries: entries, body: storage[bodyStart..<(bodyStart + length)]))
    }

    private mutating func close(_ error: MessageError) -> Output {
        closeError = error
        buffer = []
        readIndex = 0
        scanIndex = 0
        pending = nil
        return .close(error)
    }

    /// Drops consumed bytes once they are a large share of the buffer.
    private mutating func compactIfUseful() {
        guard readIndex > 0, pending == nil, readIndex >= 4096 || readIndex * 2 >= buffer.count else { return }
        buffer.removeSubrange(0..<readIndex)
        scanIndex -= readIndex
        readIndex = 0
    }

    /// The index just past the empty line that ends the head, searching from where the last search stopped.
    private mutating func findHeadEnd() -> Int? {
        var i = max(scanIndex, readIndex)
        let end = buffer.count
        while let lf = MessageParser.find(ASCII.lf, in: buffer, from: i, to: end) {
            // An empty line: LF followed by LF, or by CRLF.
            if lf + 1 < end, buffer[lf + 1] == ASCII.lf { return lf + 2 }
            if lf + 2 < end, buffer[lf + 1] == ASCII.cr, buffer[lf + 2] == ASCII.lf { return lf + 3 }
            if lf + 2 >= end {
                // Not enough bytes to tell; look again from this line break next time.
                scanIndex = lf
                return nil
            }
            i = lf + 1
        }
        scanIndex = max(readIndex, end - 1)
        return nil
    }

    /// A lower bound on the bytes still needed to end the head.
    private func missingTerminatorBytes() -> Int {
        let n = buffer.count
        if n >= 3, buffer[n - 3] == ASCII.cr, buffer[n - 2] == ASCII.lf, buffer[n - 1] == ASCII.cr { return 1 }
        if n >= 2, buffer[n - 2] == ASCII.cr, buffer[n - 1] == ASCII.lf { return 2 }
        if n >= 1, buffer[n - 1] == ASCII.cr { return 3 }
        return 4
    }
}
