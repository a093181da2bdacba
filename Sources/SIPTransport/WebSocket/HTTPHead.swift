/// An HTTP/1.1 message head as the opening handshake needs it (RFC 9112 §2-5): the start line split at its
/// first two spaces, and the header fields with lowercased names. Bytes that are not UTF-8 are replaced.
struct HTTPHead: Sendable {
    /// The start line's three parts: method, target, version (request) or version, status, reason (response);
    /// the third is empty when the line has only two.
    let startLine: (String, String, String)
    /// The fields in order: lowercased name, value without surrounding whitespace.
    let fields: [(name: String, value: String)]

    /// Parses a head without its final empty line; `nil` if it is not an HTTP head.
    init?(_ bytes: ArraySlice<UInt8>) {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if bytes[i] == 0x0A {
                var end = i
                if end > start, bytes[end - 1] == 0x0D { end -= 1 }
                lines.append(bytes[start..<end])
                start = i + 1
            }
            i += 1
        }
        if start < bytes.endIndex { lines.append(bytes[start...]) }
        guard let first = lines.first else { return nil }
        let parts = first.split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
        // A status line may come without its reason phrase; a request line without a version is refused later.
        guard parts.count >= 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        startLine = (
            String(decoding: parts[0], as: UTF8.self), String(decoding: parts[1], as: UTF8.self),
            parts.count == 3 ? String(decoding: parts[2], as: UTF8.self) : ""
        )
        var fields: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            // No obsolete line folding (RFC 9112 §5.2) and no name without a colon.
            guard let colon = line.firstIndex(of: 0x3A), colon > line.startIndex,
                line[..<colon].allSatisfy(HTTPHead.isTokenByte)
            else { return nil }
            let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
            var value = line[(colon + 1)...]
            while let b = value.first, b == 0x20 || b == 0x09 { value = value.dropFirst() }
            while let b = value.last, b == 0x20 || b == 0x09 { value = value.dropLast() }
            fields.append((name, String(decoding: value, as: UTF8.self)))
        }
        self.fields = fields
    }

    /// Every value of the field `name` (lowercase).
    func values(_ name: String) -> [String] {
        fields.filter { $0.name == name }.map(\.value)
    }

    /// The comma-separated elements of every `name` field, trimmed, empty ones dropped (RFC 9110 §5.6.1).
    func tokens(_ name: String) -> [String] {
        values(name).flatMap { value in
            value.split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        }
    }

    /// Whether a `name` field lists `token`, compared case-insensitively.
    func lists(_ name: String, _ token: String) -> Bool {
        tokens(name).contains { $0.lowercased() == token }
    }

    /// RFC 9110 §5.6.2 tchar.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// The index just past the CRLFCRLF that ends a head in `buffer`, searching from `from`.
    static func end(in buffer: [UInt8], from: Int) -> Int? {
        var i = max(from, 3)
        while i < buffer.count {
            if buffer[i] == 0x0A, buffer[i - 1] == 0x0D, buffer[i - 2] == 0x0A, buffer[i - 3] == 0x0D { return i + 1 }
            i += 1
        }
        return nil
    }
}

/// Buffers a handshake head until its empty line, within a size limit.
struct HTTPHeadReader: Sendable {
    enum Output {
        case needMore
        case head(HTTPHead, remainder: [UInt8])
        case tooLarge
        case malformed
    }

    let limit: Int
    private var buffer: [UInt8] = []

    init(limit: Int) { self.limit = limit }

    mutating func receive(_ bytes: some Sequence<UInt8>) -> Output {
        let searchFrom = max(0, buffer.count - 3)
        buffer.append(contentsOf: bytes)
        guard let end = HTTPHead.end(in: buffer, from: searchFrom) else {
            if buffer.count > limit {
                buffer = []
                return .tooLarge
            }
            return .needMore
        }
        defer { buffer = [] }
        guard end <= limit else { return .tooLarge }
        guard let head = HTTPHead(buffer[0..<(end - 4)]) else { return .malformed }
        return .head(head, remainder: Array(buffer[end...]))
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> String {
        var s = self[...]
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return String(s)
    }
}
