public import SIPCore
import Synchronization

/// A deterministic generator (SplitMix64): the same seed gives the same numbers on every run, so tags,
/// branches, Call-IDs, SSRCs, keys and a network's impairments repeat exactly.
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator that starts from `seed`.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random bytes from a seeded generator, for the stack's identifiers in a test world.
public final class SeededRandomBytes: RandomByteSource {
    private let generator: Mutex<SeededRandomNumberGenerator>

    /// A source that starts from `seed`.
    public init(seed: UInt64) { generator = Mutex(SeededRandomNumberGenerator(seed: seed)) }

    public func fill(_ raw: UnsafeMutableRawBufferPointer) {
        generator.withLock { generator in
            var index = 0
            while index < raw.count {
                var word = generator.next()
                for _ in 0..<min(8, raw.count - index) {
                    raw[index] = UInt8(truncatingIfNeeded: word)
                    word >>= 8
                    index += 1
                }
            }
        }
    }

    /// The next 64 random bits.
    public func next() -> UInt64 { generator.withLock { $0.next() } }
}
