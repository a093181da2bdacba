import COpenSSL

/// The session keys of one protocol (SRTP or SRTCP) under AEAD_AES_128_GCM (RFC 7714 §11): an AES-128-GCM
/// context keyed once with the 16-byte session encryption key (label 0 or 3), and the 12-byte session salt
/// (label 2 or 5). There is no authentication key: the GCM tag authenticates.
struct SRTPGCMKeys {
    /// The tag length of AEAD_AES_128_GCM in bytes (RFC 7714 §14.2).
    static let tagLength = 16

    /// `EVP_CIPHER_CTX *`, set up to encrypt or to decrypt.
    let cipher: OpaquePointer
    /// The session salt as a 96-bit number.
    let salt: UInt128
    /// Whether the context encrypts (outbound) or decrypts (inbound).
    let isEncrypting: Bool

    /// Derives the encryption key with label `firstLabel` and the salt with `firstLabel + 2`.
    init(masterKey: [UInt8], masterSalt: [UInt8], firstLabel: UInt8, isEncrypting: Bool) throws(SRTPError) {
        guard
            var key = SRTPKeyDerivation.derive(
                masterKey: masterKey, masterSalt: masterSalt, label: firstLabel, count: 16),
            var salt = SRTPKeyDerivation.derive(
                masterKey: masterKey, masterSalt: masterSalt, label: firstLabel + 2, count: 12)
        else {
            ERR_clear_error()
            throw SRTPError(.libraryFailure, "AES-GCM key derivation failed")
        }
        defer {
            for i in key.indices { key[i] = 0 }
            for i in salt.indices { salt[i] = 0 }
        }
        try self.init(sessionKey: key, sessionSalt: salt, isEncrypting: isEncrypting)
    }

    /// Keys from a 16-byte session key and a 12-byte session salt (RFC 7714 §16 and §17 state these).
    init(sessionKey: [UInt8], sessionSalt: [UInt8], isEncrypting: Bool) throws(SRTPError) {
        guard sessionSalt.count == 12, let cipher = Self.makeCipher(key: sessionKey, isEncrypting: isEncrypting)
        else {
            ERR_clear_error()
            throw SRTPError(.libraryFailure, "EVP_aes_128_gcm context creation failed")
        }
        self.cipher = cipher
        self.salt = sessionSalt.reduce(0) { $0 << 8 | UInt128($1) }
        self.isEncrypting = isEncrypting
    }

    /// A context keyed with the 16-byte session key; each packet sets its 12-byte IV.
    static func makeCipher(key: [UInt8], isEncrypting: Bool) -> OpaquePointer? {
        guard key.count == 16, let context = EVP_CIPHER_CTX_new() else { return nil }
        let ok = key.withUnsafeBufferPointer {
            EVP_CipherInit_ex(context, EVP_aes_128_gcm(), nil, $0.baseAddress, nil, isEncrypting ? 1 : 0) == 1
        }
        guard ok else {
            EVP_CIPHER_CTX_free(context)
            return nil
        }
        return context
    }

    /// The 12-byte IV of a packet: the salt XOR (00 00 || SSRC || index), where the index is ROC || SEQ for
    /// SRTP (RFC 7714 §8.1) and 00 00 || the 31-bit SRTCP index for SRTCP (§9.1): both are SSRC * 2^48 + index.
    func iv(ssrc: UInt32, index: UInt64) -> (UInt64, UInt32) {
        let value = salt ^ (UInt128(ssrc) << 48 | UInt128(index & 0xFFFF_FFFF_FFFF))
        return (UInt64(truncatingIfNeeded: value >> 32).bigEndian, UInt32(truncatingIfNeeded: value).bigEndian)
    }

    /// Encrypts `data` in place with the additional data `aad` then `moreAAD` (ranges of the buffer, RFC 7714
    /// §8.2, §9.2) and writes the 16-byte tag at `tagOffset`.
    func seal(
        _ buffer: UnsafeMutableRawBufferPointer, iv: (UInt64, UInt32), aad: Range<Int>, moreAAD: Range<Int>,
        data: Range<Int>, tagOffset: Int
    ) -> Bool {
        guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
        guard start(iv: iv, aad: aad, moreAAD, base: base), crypt(base, data) else { return false }
        var written: Int32 = 0
        var scratch: UInt128 = 0
        let finished = withUnsafeMutableBytes(of: &scratch) {
            EVP_EncryptFinal_ex(cipher, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), &written) == 1
        }
        return finished
            && EVP_CIPHER_CTX_ctrl(cipher, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagLength), base + tagOffset) == 1
    }

    /// Verifies the tag at `tagOffset` over `aad` and `data`, decrypting `data` in place.
    /// - Returns: `true` when it authenticated; `false` when it did not, the bytes then restored; `nil` when
    ///   OpenSSL failed.
    func open(
        _ buffer: UnsafeMutableRawBufferPointer, iv: (UInt64, UInt32), aad: Range<Int>, moreAAD: Range<Int>,
        data: Range<Int>, tagOffset: Int
    ) -> Bool? {
        guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        guard start(iv: iv, aad: aad, moreAAD, base: base), crypt(base, data),
            EVP_CIPHER_CTX_ctrl(cipher, EVP_CTRL_GCM_SET_TAG, Int32(Self.tagLength), base + tagOffset) == 1
        else { return nil }
        var written: Int32 = 0
        var scratch: UInt128 = 0
        let authentic = withUnsafeMutableBytes(of: &scratch) {
            EVP_DecryptFinal_ex(cipher, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), &written) > 0
        }
        if authentic { return true }
        ERR_clear_error()
        // GCM's payload is counter mode: the same keystream again gives the received bytes back.
        guard start(iv: iv, aad: 0..<0, 0..<0, base: base), crypt(base, data) else { return nil }
        return false
    }

    private func start(
        iv: (UInt64, UInt32), aad: Range<Int>, _ moreAAD: Range<Int>, base: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        let ivSet = withUnsafeBytes(of: iv) { ivBytes in
            EVP_CipherInit_ex(
                cipher, nil, nil, nil, ivBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), isEncrypting ? 1 : 0)
                == 1
        }
        guard ivSet else { return false }
        var written: Int32 = 0
        func add(_ range: Range<Int>) -> Bool {
            range.isEmpty
                || EVP_CipherUpdate(cipher, nil, &written, base + range.lowerBound, Int32(range.count)) == 1
        }
        return add(aad) && add(moreAAD)
    }

    private func crypt(_ base: UnsafeMutablePointer<UInt8>, _ data: Range<Int>) -> Bool {
        guard !data.isEmpty else { return true }
        var written: Int32 = 0
        return EVP_CipherUpdate(cipher, base + data.lowerBound, &written, base + data.lowerBound, Int32(data.count))
            == 1
    }

    func free() { EVP_CIPHER_CTX_free(cipher) }
}
