import COpenSSL

/// AES_CM_128_HMAC_SHA1_80 and _32 (RFC 3711 §4.1.1, §4.2.1): encrypt with AES counter mode, then
/// authenticate with a truncated HMAC-SHA1 tag after the MKI.
extension SRTPContext {
    // MARK: SRTP

    func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int, keys: SRTPSessionKeys, tagLength: Int)
        throws(SRTPError) -> Int
    {
        guard let headerLength = Self.rtpHeaderLength(UnsafeRawBufferPointer(buffer), length: length) else {
            throw malformed(isRTCP: false, length: length)
        }
        let tagOffset = length + mki.count
        guard buffer.count - tagOffset >= tagLength else { throw noRoom(isRTCP: false, length: length) }
        let ssrc = Self.word(buffer, at: 8)
        let (window, index) = try rtpIndex(buffer, ssrc: ssrc, isProtect: true)
        var digest = SRTPDigest()
        guard
            crypt(keys, ssrc: ssrc, index: index, buffer, from: headerLength, to: length),
            authenticate(
                keys, buffer, count: length, rolloverCounter: UInt32(truncatingIfNeeded: index >> 16), into: &digest)
        else { throw cryptoFailure(isRTCP: false) }
        Self.copy(mki, into: buffer, at: length)
        digest.copy(tagLength, into: buffer, at: tagOffset)
        accept(index, in: window, ssrc: ssrc, isRTCP: false)
        return tagOffset + tagLength
    }

    func unprotectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int, keys: SRTPSessionKeys, tagLength: Int)
        throws(SRTPError) -> Int
    {
        guard let headerLength = Self.rtpHeaderLength(UnsafeRawBufferPointer(buffer), length: length),
            length - headerLength >= mki.count + tagLength
        else { throw malformed(isRTCP: false, length: length) }
        let end = length - tagLength - mki.count
        try checkMKI(buffer, at: end, isRTCP: false)
        let ssrc = Self.word(buffer, at: 8)
        let (window, index) = try rtpIndex(buffer, ssrc: ssrc, isProtect: false)
        var digest = SRTPDigest()
        guard
            authenticate(
                keys, buffer, count: end, rolloverCounter: UInt32(truncatingIfNeeded: index >> 16), into: &digest)
        else { throw cryptoFailure(isRTCP: false) }
        guard digest.matches(buffer, at: length - tagLength, count: tagLength) else {
            throw authenticationFailure(isRTCP: false)
        }
        guard crypt(keys, ssrc: ssrc, index: index, buffer, from: headerLength, to: end) else {
            throw cryptoFailure(isRTCP: false)
        }
        accept(index, in: window, ssrc: ssrc, isRTCP: false)
        return end
    }

    // MARK: SRTCP

    func protectSRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int, keys: SRTPSessionKeys)
        throws(SRTPError) -> Int
    {
        guard length >= 8, buffer[0] >> 6 == 2 else { throw malformed(isRTCP: true, length: length) }
        let tagOffset = length + 4 + mki.count
        guard buffer.count - tagOffset >= 10 else { throw noRoom(isRTCP: true, length: length) }
        let ssrc = Self.word(buffer, at: 4)
        let (window, index) = try nextRTCPIndex(ssrc: ssrc)
        if encryptsRTCP {
            guard crypt(keys, ssrc: ssrc, index: index, buffer, from: 8, to: length) else {
                throw cryptoFailure(isRTCP: true)
            }
        }
        Self.store((encryptsRTCP ? 0x8000_0000 : 0) | UInt32(index), into: buffer, at: length)
        var digest = SRTPDigest()
        guard authenticate(keys, buffer, count: length + 4, rolloverCounter: nil, into: &digest) else {
            throw cryptoFailure(isRTCP: true)
        }
        Self.copy(mki, into: buffer, at: length + 4)
        digest.copy(10, into: buffer, at: tagOffset)
        accept(index, in: window, ssrc: ssrc, isRTCP: true)
        return tagOffset + 10
    }

    func unprotectSRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int, keys: SRTPSessionKeys)
        throws(SRTPError) -> Int
    {
        guard length >= 8 + 4 + mki.count + 10, buffer[0] >> 6 == 2 else {
            throw malformed(isRTCP: true, length: length)
        }
        let mkiOffset = length - 10 - mki.count
        let end = mkiOffset - 4
        try checkMKI(buffer, at: mkiOffset, isRTCP: true)
        let ssrc = Self.word(buffer, at: 4)
        let trailer = Self.word(buffer, at: end)
        let index = UInt64(trailer & 0x7FFF_FFFF)
        let window = try receivedRTCPWindow(ssrc: ssrc, index: index)
        var digest = SRTPDigest()
        guard authenticate(keys, buffer, count: mkiOffset, rolloverCounter: nil, into: &digest) else {
            throw cryptoFailure(isRTCP: true)
        }
        guard digest.matches(buffer, at: length - 10, count: 10) else { throw authenticationFailure(isRTCP: true) }
        if trailer & 0x8000_0000 != 0 {
            guard crypt(keys, ssrc: ssrc, index: index, buffer, from: 8, to: end) else {
                throw cryptoFailure(isRTCP: true)
            }
        }
        accept(index, in: window, ssrc: ssrc, isRTCP: true)
        return end
    }

    // MARK: Crypto

    /// XORs bytes `start..<end` with the AES-CM keystream of (SSRC, index): IV = (salt * 2^16) XOR
    /// (SSRC * 2^64) XOR (index * 2^16) (RFC 3711 §4.1.1).
    private func crypt(
        _ keys: SRTPSessionKeys, ssrc: UInt32, index: UInt64, _ buffer: UnsafeMutableRawBufferPointer, from start: Int,
        to end: Int
    ) -> Bool {
        guard end > start else { return true }
        guard let base = buffer.baseAddress else { return false }
        let iv = ((keys.saltHigh ^ UInt64(ssrc)).bigEndian, (keys.saltLow ^ index << 16).bigEndian)
        return withUnsafeBytes(of: iv) { ivBytes in
            let data = (base + start).assumingMemoryBound(to: UInt8.self)
            var written: Int32 = 0
            return EVP_EncryptInit_ex(
                keys.cipher, nil, nil, nil, ivBytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
                == 1 && EVP_EncryptUpdate(keys.cipher, data, &written, data, Int32(end - start)) == 1
        }
    }

    /// HMAC-SHA1 of the first `count` bytes, then of the rollover counter for SRTP (RFC 3711 §4.2.1).
    private func authenticate(
        _ keys: SRTPSessionKeys, _ buffer: UnsafeMutableRawBufferPointer, count: Int, rolloverCounter: UInt32?,
        into digest: inout SRTPDigest
    ) -> Bool {
        guard let base = buffer.baseAddress else { return false }
        guard EVP_MAC_init(keys.mac, nil, 0, nil) == 1,
            EVP_MAC_update(keys.mac, base.assumingMemoryBound(to: UInt8.self), count) == 1
        else { return false }
        if let rolloverCounter {
            let ok = withUnsafeBytes(of: rolloverCounter.bigEndian) { roc in
                EVP_MAC_update(keys.mac, roc.baseAddress?.assumingMemoryBound(to: UInt8.self), 4) == 1
            }
            guard ok else { return false }
        }
        return digest.finish(keys.mac)
    }
}
