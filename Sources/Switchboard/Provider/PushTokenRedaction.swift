/// Keeps push tokens out of traces, logs and event lines: the value of every `pn-prid` URI parameter
/// becomes `redacted` (RFC 8599's device token is a credential). Works on bytes, case-insensitively.
enum PushTokenRedaction {
    private static let key = Array(";pn-prid=".utf8)
    private static let replacement = Array("redacted".utf8)

    static func redact(_ bytes: [UInt8]) -> [UInt8] {
        guard let first = range(in: bytes, from: 0) else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var next: Range<Int>? = first
        var copied = 0
        while let value = next {
            out.append(contentsOf: bytes[copied..<value.lowerBound])
            out.append(contentsOf: replacement)
            copied = value.upperBound
            next = range(in: bytes, from: value.upperBound)
        }
        out.append(contentsOf: bytes[copied...])
        return out
    }

    static func redact(_ text: String) -> String {
        String(decoding: redact(Array(text.utf8)), as: UTF8.self)
    }

    /// Where the next `pn-prid` value at or after `start` is: after `;pn-prid=`, up to the next `;`, `>`, `,`,
    /// `?`, space or line end.
    private static func range(in bytes: [UInt8], from start: Int) -> Range<Int>? {
        guard bytes.count >= key.count else { return nil }
        var index = start
        while index + key.count <= bytes.count {
            if zip(bytes[index..<(index + key.count)], key).allSatisfy({ ($0 | 0x20) == ($1 | 0x20) }) {
                let valueStart = index + key.count
                var end = valueStart
                while end < bytes.count, ![0x3B, 0x3E, 0x2C, 0x3F, 0x20, 0x09, 0x0D, 0x0A].contains(bytes[end]) {
                    end += 1
                }
                return valueStart..<end
            }
            index += 1
        }
        return nil
    }
}
