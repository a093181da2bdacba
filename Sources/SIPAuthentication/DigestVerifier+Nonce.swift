extension DigestVerifier {
    /// Bytes of a nonce before hex encoding: issue time (8, big-endian), random (8), HMAC (16).
    private static let nonceLength = 32

    /// A nonce that proves its own issue time: hex(time ‖ random ‖ HMAC-SHA-256(key, time ‖ random ‖ realm)
    /// truncated to 128 bits). RFC 7616 §5.4 suggests a time stamp with a keyed hash.
    mutating func makeNonce(now: UInt64) -> String {
        var body: [UInt8] = []
        body.reserveCapacity(Self.nonceLength)
        for shift in stride(from: 56, through: 0, by: -8) {
            body.append(UInt8(truncatingIfNeeded: now >> UInt64(shift)))
        }
        body += random.bytes(8)
        // Should HMAC ever fail, random bytes stand in: such a nonce never verifies, so nothing is weakened.
        let mac = nonceMAC(body) ?? random.bytes(16)
        return Hex.encode(body + mac)
    }

    /// The issue time of a nonce this verifier made under its key; `nil` for any other string.
    func issueTime(ofNonce nonce: String) -> UInt64? {
        guard nonce.utf8.count == Self.nonceLength * 2, let bytes = Hex.decode(nonce), Hex.encode(bytes) == nonce else {
            return nil
        }
        let body = Array(bytes[0..<16])
        guard let mac = nonceMAC(body), Crypto.constantTimeEqual(mac, Array(bytes[16...])) else { return nil }
        return body[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
    }

    private func nonceMAC(_ body: [UInt8]) -> [UInt8]? {
        Crypto.hmacSHA256(key: key, data: body + Array(realm.utf8)).map { Array($0[0..<16]) }
    }
}
