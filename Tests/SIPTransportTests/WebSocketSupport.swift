import Testing

@testable import SIPTransport

/// A random source that returns the given words in turn (then repeats): masking keys and handshake keys
/// that tests can predict.
struct ScriptedRandom: RandomNumberGenerator, Sendable {
    var words: [UInt64]
    var index = 0

    init(_ words: [UInt64]) { self.words = words.isEmpty ? [0] : words }

    mutating func next() -> UInt64 {
        defer { index = (index + 1) % words.count }
        return words[index]
    }
}

/// Everything a decoder gives for `bytes`, fed `chunk` bytes at a time.
func decodeAll(
    _ bytes: [UInt8], role: WebSocketRole, chunk: Int = .max, limits: WebSocketLimits = WebSocketLimits()
) -> [WebSocketFrameDecoder.Output] {
    var decoder = WebSocketFrameDecoder(role: role, limits: limits)
    var outputs: [WebSocketFrameDecoder.Output] = []
    var start = 0
    repeat {
        let end = min(bytes.count, start + max(1, chunk))
        decoder.append(bytes[start..<end])
        start = end
        while let output = decoder.next() {
            if case .needMore = output { break }
            outputs.append(output)
            if case .failed = output { return outputs }
        }
    } while start < bytes.count
    return outputs
}

/// A client's frame as a server receives it: masked with a fixed key.
func masked(_ frame: WebSocketFrame) -> [UInt8] { frame.serialized(maskingKey: 0x0102_0304) }

extension Array where Element == UInt8 {
    init(hex: String) {
        self = stride(from: 0, to: hex.count, by: 2).compactMap { offset in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)
        }
    }
}

/// `#require` for values that come from mutating calls (the macro cannot take those).
func required<T>(_ value: T?, sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
    try #require(value, sourceLocation: sourceLocation)
}
