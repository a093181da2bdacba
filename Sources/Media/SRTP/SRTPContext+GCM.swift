/// AEAD_AES_128_GCM (RFC 7714): one AES-GCM pass encrypts the payload and authenticates it with the header
/// as associated data; the 16-byte tag follows the ciphertext, and the MKI, if any, comes last.
extension SRTPContext {
    // MARK: SRTP (RFC 7714 §8)

    func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int, keys: SRTPGCMKeys) throws(SRTPError) -> Int {
        guard let headerLength = Self.rtpHeaderLength(UnsafeRawBufferPointer(buffer), length: length) else {
            throw malformed(isRTCP: false, length: length)
        }
        guard buffer.count - length >= SRTPGCMKeys.tagLength + mki.count else {
            throw noRoom(isRTCP: false, length: length)
        }
        let ssrc = Self.word(buffer, at: 8)
        let (window, index) = try rtpIndex(buffer, ssrc: ssrc, isProtect: true)
        guard
            keys.seal(
                buffer, iv: keys.iv(ssrc: ssrc, index: index), aad: 0..<headerLength, moreAAD: 0..<0,
                data: headerLength..<length, tagOffset: length)
        else { throw cryptoFailure(isRTCP: false) }
        Self.copy(mki, into: buffer, at: length + SRTPGCMKeys.tagLength)
        accept(index, in: window, ssrc: ssrc, isRTCP: false)
        return length + SRTPGCMKeys.tagLength + mki.count
    }

    func unprotectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int, keys: SRTPGCMKeys) throws(SRTPError)
        -> Int
    {
        guard let headerLength = Self.rtpHeaderLength(UnsafeRawBufferPointer(buffer), length: length),
            length - headerLength >= SRTPGCMKeys.tagLength + mki.count
        else { throw malformed(isRTCP: false, length: length) }
        try checkMKI(buffer, at: length - mki.count, isRTCP: false)
        let tagOffset = length - mki.count - SRTPGCMKeys.tagLength
        let ssrc = Self.word(buffer, at: 8)
        let (window, index) = try rtpIndex(buffer, ssrc: ssrc, isProtect: false)
        let opened = keys.open(
            buffer, iv: keys.iv(ssrc: ssrc, index: index), aad: 0..<headerLength, moreAAD: 0..<0,
            data: headerLength..<tagOffset, tagOffset: tagOffset)
        guard let authentic = opened else { throw cryptoFailure(isRTCP: false) }
        guard authentic else { throw authenticationFailure(isRTCP: false) }
        accept(index, in: window, ssrc: ssrc, isRTCP: false)
        return tagOffset
    }

    // MARK: SRTCP (RFC 7714 §9, §17)

    /// Encrypted: the first 8 bytes and the E flag with the index are the associated data, the rest is
    /// encrypted. Unencrypted (E clear): the whole packet and that word are associated data.
    func protectSRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int, keys: SRTPGCMKeys) throws(SRTPError)
        -> Int
    {
        guard length >= 8, buffer[0] >> 6 == 2 else { throw malformed(isRTCP: true, length: length) }
        let trailerOffset = length + SRTPGCMKeys.tagLength
        guard buffer.count - trailerOffset >= 4 + mki.count else { throw noRoom(isRTCP: true, length: length) }
        let ssrc = Self.word(buffer, at: 4)
        let (window, index) = try nextRTCPIndex(ssrc: ssrc)
        Self.store((encryptsRTCP ? 0x8000_0000 : 0) | UInt32(index), into: buffer, at: trailerOffset)
        let trailer = trailerOffset..<(trailerOffset + 4)
        guard
            keys.seal(
                buffer, iv: keys.iv(ssrc: ssrc, index: index), aad: encryptsRTCP ? 0..<8 : 0..<length,
                moreAAD: trailer, data: encryptsRTCP ? 8..<length : length..<length, tagOffset: length)
        else { throw cryptoFailure(isRTCP: true) }
        Self.copy(mki, into: buffer, at: trailerOffset + 4)
        accept(index, in: window, ssrc: ssrc, isRTCP: true)
        return trailerOffset + 4 + mki.count
    }

    func unprotectSRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int, keys: SRTPGCMKeys) throws(SRTPError)
        -> Int
    {
        guard length >= 8 + SRTPGCMKeys.tagLength + 4 + mki.count, buffer[0] >> 6 == 2 else {
            throw malformed(isRTCP: true, length: length)
        }
        try checkMKI(buffer, at: length - mki.count, isRTCP: true)
        let trailerOffset = length - mki.count - 4
        let tagOffset = trailerOffset - SRTPGCMKeys.tagLength
        let ssrc = Self.word(buffer, at: 4)
        let trailer = Self.word(buffer, at: trailerOffset)
        let isEncrypted = trailer & 0x8000_0000 != 0
        let index = UInt64(trailer & 0x7FFF_FFFF)
        let window = try receivedRTCPWindow(ssrc: ssrc, index: index)
        let opened = keys.open(
            buffer, iv: keys.iv(ssrc: ssrc, index: index), aad: isEncrypted ? 0..<8 : 0..<tagOffset,
            moreAAD: trailerOffset..<(trailerOffset + 4), data: isEncrypted ? 8..<tagOffset : tagOffset..<tagOffset,
            tagOffset: tagOffset)
        guard let authentic = opened else { throw cryptoFailure(isRTCP: true) }
        guard authentic else { throw authenticationFailure(isRTCP: true) }
        accept(index, in: window, ssrc: ssrc, isRTCP: true)
        return tagOffset
    }
}
