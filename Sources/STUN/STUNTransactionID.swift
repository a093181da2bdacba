/// The 96-bit transaction ID of a STUN message (RFC 8489 §5), which pairs a response with its request.
///
/// Chosen uniformly at random by the client (§6); ``random(using:)`` takes the generator, so tests stay
/// deterministic.
public struct STUNTransactionID: Hashable, Sendable, CustomStringConvertible {
    /// The first four bytes, big-endian.
    public let high: UInt32
    /// The last eight bytes, big-endian.
    public let low: UInt64

    /// - Parameters:
    ///   - high: the first four bytes, big-endian.
    ///   - low: the last eight bytes, big-endian.
    public init(high: UInt32, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The ID in exactly 12 bytes; `nil` for any other count.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 12 else { return nil }
        var high: UInt32 = 0
        var low: UInt64 = 0
        for (index, byte) in bytes.enumerated() {
            if index < 4 { high = high << 8 | UInt32(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.init(high: high, low: low)
    }

    /// A fresh ID drawn from `generator`.
    public static func random(using generator: inout some RandomNumberGenerator) -> STUNTransactionID {
        STUNTransactionID(high: UInt32.random(in: .min ... .max, using: &generator), low: generator.next())
    }

    /// The 12 bytes as they go on the wire.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(12)
        out.appendBigEndian(high)
        out.appendBigEndian(low)
        return out
    }

    public var description: String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
