/// Removes credentials from SIP messages before they reach traces or logs: the values of Authorization and
/// Proxy-Authorization (scheme kept) become `<redacted>`. Works on bytes, line by line, CRLF or LF.
enum CredentialRedaction {
    private static let names: [[UInt8]] = [Array("authorization:".utf8), Array("proxy-authorization:".utf8)]

    static func redact(_ bytes: [UInt8]) -> [UInt8] {
        // Only the header section; a body is copied as is.
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var start = 0
        var inHeaders = true
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            let lineEnd = end < bytes.count ? end + 1 : end
            let line = bytes[start..<lineEnd]
            if inHeaders, let redacted = redactedLine(line) {
                out.append(contentsOf: redacted)
            } else {
                out.append(contentsOf: line)
            }
            if inHeaders, line.allSatisfy({ $0 == 0x0D || $0 == 0x0A }) { inHeaders = false }
            start = lineEnd
        }
        return out
    }

    private static func redactedLine(_ line: ArraySlice<UInt8>) -> [UInt8]? {
        guard
            let name = names.first(where: { name in
                line.count >= name.count
                    && zip(line.prefix(name.count), name).allSatisfy { ($0 | 0x20) == $1 || $0 == $1 }
            })
        else { return nil }
        var value = line.dropFirst(name.count)
        while let first = value.first, first == 0x20 || first == 0x09 { value.removeFirst() }
        let scheme = value.prefix { $0 != 0x20 && $0 != 0x0D && $0 != 0x0A }
        var out = Array(line.prefix(name.count))
        out.append(0x20)
        out.append(contentsOf: scheme)
        out.append(contentsOf: Array(" <redacted>".utf8))
        if line.last == 0x0A {
            if line.count >= 2, line[line.endIndex - 2] == 0x0D { out.append(0x0D) }
            out.append(0x0A)
        }
        return out
    }
}
