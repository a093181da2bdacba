/// A b= line (RFC 8866 §5.8): `<bwtype>:<bandwidth>`, e.g. `AS:64` (kilobits per second) or `TIAS:64000`
/// (bits per second, RFC 3890).
public struct Bandwidth: Sendable, Hashable {
    /// The modifier: `CT`, `AS`, `TIAS`, `RR`, `RS` or another token, as written.
    public var type: String
    /// The value, in the unit the modifier defines.
    public var value: UInt64

    /// - Parameters:
    ///   - type: the modifier (`AS`, `TIAS`, ...).
    ///   - value: the bandwidth in the modifier's unit.
    public init(type: String, value: UInt64) {
        self.type = type
        self.value = value
    }

    /// Parses the value of a b= line.
    public init(parsing text: String) throws(SDPError) {
        var scanner = SDPScanner(text)
        guard let type = scanner.readToken(), scanner.consume(ASCII.colon), let value = scanner.readNumber(),
            scanner.isAtEnd
        else {
            throw SDPError(.malformedBandwidth, "expected <type>:<number>", line: "b=" + text)
        }
        self.type = type
        self.value = value
    }

    func serialize(into buffer: inout [UInt8]) {
        buffer.append("b=")
        buffer.appendToken(type)
        buffer.append(ASCII.colon)
        buffer.appendDecimal(value)
        buffer.appendLineEnd()
    }
}

extension Array where Element == UInt8 {
    /// Appends a token; bytes that are no token characters are left out, and an empty token is written as `-`.
    mutating func appendToken(_ token: String) {
        if appendWhole(token, where: \.isTokenChar) { return }
        let start = count
        for b in token.utf8 where b.isTokenChar { append(b) }
        if count == start { append(ASCII.minus) }
    }
}
