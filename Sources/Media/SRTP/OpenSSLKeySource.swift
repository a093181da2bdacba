import COpenSSL
public import SDP

/// SRTP master keys and salts from OpenSSL's CSPRNG (`RAND_bytes`): the key source to give the SDP
/// offer/answer engine (RFC 4568 §6.1 requires keys that are random and fresh per session).
public struct OpenSSLKeySource: SRTPKeySource {
    public init() {}

    /// `count` random bytes, or `nil` when OpenSSL's generator fails (the engine then refuses the offer).
    public mutating func makeKeyMaterial(count: Int) -> [UInt8]? {
        guard count > 0, count <= Int(Int32.max) else { return count == 0 ? [] : nil }
        var bytes = [UInt8](repeating: 0, count: count)
        let ok = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) == 1 }
        guard ok else {
            ERR_clear_error()
            return nil
        }
        return bytes
    }
}

/// Random numbers from OpenSSL's CSPRNG, for RTP's random SSRC, first sequence number and first timestamp
/// (RFC 3550 §5.1, §8.1) and RTCP's interval randomisation. Falls back to the system's CSPRNG should
/// `RAND_bytes` fail.
public struct MediaRandomNumberGenerator: RandomNumberGenerator, Sendable {
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
