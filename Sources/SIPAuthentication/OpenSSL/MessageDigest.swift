import COpenSSL

/// One running OpenSSL message digest (EVP): the fetched algorithm and its context, both freed in `deinit`.
///
/// Non-copyable, so the C handles have exactly one owner and never leave this type.
struct MessageDigest: ~Copyable {
    private let algorithm: OpaquePointer
    private let context: OpaquePointer

    /// Starts a digest with an OpenSSL algorithm name (`MD5`, `SHA256`, `SHA512-256`, ...); `nil` when the
    /// default provider does not offer it.
    init?(openSSLName name: String) {
        guard let algorithm = EVP_MD_fetch(nil, name, nil) else {
            ERR_clear_error()
            return nil
        }
        guard let context = EVP_MD_CTX_new() else {
            EVP_MD_free(algorithm)
            return nil
        }
        guard EVP_DigestInit_ex2(context, algorithm, nil) == 1 else {
            EVP_MD_CTX_free(context)
            EVP_MD_free(algorithm)
            ERR_clear_error()
            return nil
        }
        self.algorithm = algorithm
        self.context = context
    }

    deinit {
        EVP_MD_CTX_free(context)
        EVP_MD_free(algorithm)
    }

    /// Feeds bytes; false if OpenSSL refused them.
    mutating func update(_ bytes: some Collection<UInt8>) -> Bool {
        let context = self.context
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            buffer.isEmpty ? Int32(1) : EVP_DigestUpdate(context, buffer.baseAddress, buffer.count)
        }
        if let result { return result == 1 }
        return Array(bytes).withUnsafeBufferPointer { buffer in
            buffer.isEmpty ? true : EVP_DigestUpdate(context, buffer.baseAddress, buffer.count) == 1
        }
    }

    /// The digest of everything fed so far; `nil` if OpenSSL failed.
    consuming func finish() -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let context = self.context
        let ok = output.withUnsafeMutableBufferPointer { buffer in
            EVP_DigestFinal_ex(context, buffer.baseAddress, &length) == 1
        }
        guard ok else {
            ERR_clear_error()
            return nil
        }
        output.removeSubrange(Int(length)...)
        return output
    }
}

/// OpenSSL's MAC and comparison primitives used by the nonce scheme.
enum Crypto {
    /// HMAC-SHA-256 of `data` under `key` (RFC 2104); `nil` if OpenSSL failed.
    static func hmacSHA256(key: [UInt8], data: [UInt8]) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: 32)
        var length = 0
        let ok = key.withUnsafeBytes { key in
            data.withUnsafeBufferPointer { data in
                output.withUnsafeMutableBufferPointer { out in
                    EVP_Q_mac(
                        nil, "HMAC", nil, "SHA256", nil, key.baseAddress, key.count, data.baseAddress, data.count,
                        out.baseAddress, out.count, &length) != nil
                }
            }
        }
        guard ok, length == 32 else {
            ERR_clear_error()
            return nil
        }
        return output
    }

    /// Compares two byte strings in time that depends only on their lengths (`CRYPTO_memcmp`).
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
        }
    }
}

/// Lower-case hexadecimal, as every digest value in RFC 7616 §3.4 is written.
enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes hexadecimal of either case; `nil` for odd lengths or other characters.
    static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var i = 0
        while i < utf8.count {
            guard let high = value(utf8[i]), let low = value(utf8[i + 1]) else { return nil }
            out.append(high << 4 | low)
            i += 2
        }
        return out
    }

    private static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        case 0x41...0x46: c - 0x41 + 10
        default: nil
        }
    }
}
