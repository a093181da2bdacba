// Writing messages: one buffer, names as received, Content-Length from the body.

extension SIPFields {
    /// Writes every field line, with Content-Length set to `contentLength` (in the position it was received,
    /// or appended at the end), then the empty line.
    func serialize(into buffer: inout [UInt8], contentLength: Int) {
        var wroteContentLength = false
        let contentLengthID = KnownHeader.contentLength.rawValue
        for entry in entries {
            if entry.id == contentLengthID {
                if wroteContentLength { continue }
                wroteContentLength = true
                buffer.append(contentsOf: storage[entry.nameRange])
                buffer.append(ASCII.colon)
                buffer.append(ASCII.space)
                buffer.appendDecimal(contentLength)
            } else {
                buffer.append(contentsOf: storage[entry.nameRange])
                buffer.append(ASCII.colon)
                buffer.append(ASCII.space)
                buffer.append(contentsOf: storage[entry.valueRange])
            }
            buffer.append(ASCII.cr)
            buffer.append(ASCII.lf)
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
        var buffer: [UInt8] = []
        buffer.reserveCapacity(headerFields.estimatedSize + 64 + bodyBytes.count)
        serialize(into: &buffer)
        return buffer
    }
}
