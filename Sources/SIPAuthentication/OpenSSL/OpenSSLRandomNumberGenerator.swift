import COpenSSL

/// Random numbers from OpenSSL's CSPRNG (`RAND_bytes`), the default source of client nonces, server nonces
/// and nonce keys.
///
/// Should `RAND_bytes` ever fail (an unseeded DRBG), the value comes from the system's CSPRNG instead, so a
/// nonce is never predictable.
public struct OpenSSLRandomNumberGenerator: RandomNumberGenerator, Sendable {
    public init() {}

    public mutating func next() -> UInt64 {
        var value: UInt64 = 0
        let ok = withUnsafeMutableBytes(of: &value) { bytes in
            RAND_bytes(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(bytes.count)) == 1
        }
        if ok { return value }
        ERR_clear_error()
        var system = SystemRandomNumberGenerator()
        return system.next()
    }
}

extension RandomNumberGenerator {
    /// `count` random bytes.
    mutating func bytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count + 8)
        while out.count < count {
            var word = next()
            for _ in 0..<8 {
                out.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        out.removeSubrange(count...)
        return out
    }
}
