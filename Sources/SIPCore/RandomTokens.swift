import CSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Random identifiers for branches, tags and Call-IDs: 64 or more bits each, drawn from a buffer that is
/// refilled with one getrandom(2) call per 512 bytes (`UUID()` per message costs a system call per word).
/// Loop-confined like the core that owns it.
struct RandomTokens {
    private var buffer = [UInt8](repeating: 0, count: 512)
    private var offset = 512
    private let source: any RandomByteSource

    init(source: any RandomByteSource = SystemRandomBytes.shared) {
        self.source = source
    }

    /// The 62 characters of a token; a static string is read in place, with no lazy global to check.
    private static let alphabet: StaticString = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

    private mutating func refill() {
        buffer.withUnsafeMutableBytes { source.fill($0) }
        offset = 0
    }

    /// `count` characters of [0-9a-zA-Z] (5.95 bits each; 16 characters carry 95 bits).
    mutating func token(_ count: Int) -> String { token(count, after: "") }

    /// `prefix` followed by `count` characters of [0-9a-zA-Z], written into the string's storage at once (a
    /// token of up to 15 bytes is a small string: no allocation at all).
    private mutating func token(_ count: Int, after prefix: StaticString) -> String {
        let prefixLength = prefix.utf8CodeUnitCount
        let length = prefixLength + count
        return String(unsafeUninitializedCapacity: length) { out in
            if prefixLength > 0 {
                _ = out.initialize(from: UnsafeBufferPointer(start: prefix.utf8Start, count: prefixLength))
            }
            var written = prefixLength
            while written < length {
                if offset >= buffer.count { refill() }
                // Rejection sampling keeps the characters uniform: 248 = 4 * 62.
                (written, offset) = buffer.withUnsafeBufferPointer { bytes in
                    Self.fill(out, from: written, upTo: length, with: bytes, at: offset)
                }
            }
            return written
        }
    }

    /// Writes characters into `out` from `written` until `length`, or until `bytes` run out from `offset`;
    /// returns where both stopped.
    private static func fill(
        _ out: UnsafeMutableBufferPointer<UInt8>, from written: Int, upTo length: Int,
        with bytes: UnsafeBufferPointer<UInt8>, at offset: Int
    ) -> (written: Int, offset: Int) {
        let letters = alphabet.utf8Start
        var written = written
        var offset = offset
        while written < length, offset < bytes.count {
            let byte = bytes[offset]
            offset += 1
            guard byte < 248 else { continue }
            out[written] = letters[Int(byte % 62)]
            written += 1
        }
        return (written, offset)
    }

    /// A Via branch: the RFC 3261 magic cookie and 16 random characters (95 bits).
    mutating func branch() -> String { token(16, after: "z9hG4bK") }

    /// A From/To tag (10 characters, 59 bits).
    mutating func tag() -> String { token(10) }

    /// A Call-ID (20 characters, 119 bits).
    mutating func callID() -> String { token(20) }
}

/// Where the stack's random bytes come from: the kernel's generator, or a seeded one that makes a test's
/// identifiers and traces repeat exactly. Called on one loop at a time.
public protocol RandomByteSource: AnyObject, Sendable {
    /// Fills every byte of `raw`.
    func fill(_ raw: UnsafeMutableRawBufferPointer)
}

/// The kernel's generator, getrandom(2).
public final class SystemRandomBytes: RandomByteSource {
    /// The one instance (it holds no state).
    public static let shared = SystemRandomBytes()

    private init() {}

    public func fill(_ raw: UnsafeMutableRawBufferPointer) { fillRandomly(raw) }
}

/// Fills `raw` from getrandom(2); should that ever fail (it cannot after boot on Linux), from the system
/// generator.
public func fillRandomly(_ raw: UnsafeMutableRawBufferPointer) {
    var filled = 0
    while filled < raw.count {
        let n = getrandom(raw.baseAddress?.advanced(by: filled), raw.count - filled, 0)
        if n <= 0 { break }
        filled += n
    }
    if filled < raw.count {
        var generator = SystemRandomNumberGenerator()
        for i in filled..<raw.count { raw[i] = UInt8.random(in: .min ... .max, using: &generator) }
    }
}
