import COpenSSL

/// The OpenSSL primitives STUN needs: HMAC-SHA1 and HMAC-SHA256 for message integrity, MD5 and SHA-256 for
/// long-term keys and USERHASH, and a constant-time comparison.
enum Crypto {
    /// The digest of `data` with an OpenSSL algorithm name (`MD5`, `SHA256`); `nil` if OpenSSL failed.
    static func digest(_ name: String, _ data: [UInt8]) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length = 0
        let ok = data.withUnsafeBufferPointer { data in
            output.withUnsafeMutableBufferPointer { out in
                EVP_Q_digest(nil, name, nil, data.baseAddress, data.count, out.baseAddress, &length) == 1
            }
        }
        guard ok else {
            ERR_clear_error()
            return nil
        }
        return Array(output.prefix(length))
    }

    /// HMAC of `data` under `key` with an OpenSSL digest name (`SHA1`, `SHA256`); `nil` if OpenSSL failed.
    static func hmac(_ digest: String, key: [UInt8], data: ArraySlice<UInt8>) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length = 0
        // OpenSSL wants a non-null key pointer even for an empty key.
        let keyBytes = key.isEmpty ? [0] : key
        let ok = keyBytes.withUnsafeBufferPointer { keyPointer in
            data.withUnsafeBufferPointer { data in
                output.withUnsafeMutableBufferPointer { out in
                    EVP_Q_mac(
                        nil, "HMAC", nil, digest, nil, keyPointer.baseAddress, key.count, data.baseAddress,
                        data.count, out.baseAddress, out.count, &length) != nil
                }
            }
        }
        guard ok else {
            ERR_clear_error()
            return nil
        }
        return Array(output.prefix(length))
    }

    /// Compares two byte strings in time that depends only on their lengths (`CRYPTO_memcmp`).
    static func constantTimeEqual(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        let a = Array(a)
        let b = Array(b)
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
        }
    }
}
