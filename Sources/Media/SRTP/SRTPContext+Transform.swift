import COpenSSL

extension SRTPContext: SRTPProtection {
    /// What protecting adds to a packet.
    public func trailerLength(isRTCP: Bool) -> Int { isRTCP ? 4 + mki.count + 10 : mki.count + rtpTagLength }

    /// Protects or unprotects in place (``SRTPProtection``).
    public func process(_ buffer: UnsafeMutableRawBufferPointer, length: Int, isRTCP: Bool, isProtect: Bool)
        throws(SRTPError) -> Int
    {
        guard isProtect == (direction == .outbound) else {
            throw SRTPError(.wrongDirection, "\(isProtect ? "protect" : "unprotect") on an \(direction) context")
        }
        guard length <= Int(Int32.max) - SRTPContext.maximumTrailerLength, length <= buffer.count else {
            count(isRTCP: isRTCP) { $0.otherFailures += 1 }
            throw SRTPError(.malformedPacket, "\(length) bytes are not a well-formed \(isRTCP ? "RTCP" : "RTP") packet")
        }
        switch (isRTCP, isProtect) {
        case (false, true): return try protectRTP(buffer, length: length)
        case (false, false): return try unprotectRTP(buffer, length: length)
        case (true, true): return try protectSRTCP(buffer, length: length)
        case (true, false): return try unprotectSRTCP(buffer, length: length)
        }
    }

    // MARK: SRTP

    private func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard let headerLength = Self.rtpHeaderLength(UnsafeRawBufferPointer(buffer), length: length) else {
            throw malformed(isRTCP: false, length: length)
        }
        let tagOffset = length + mki.count
        guard buffer.count - tagOffset >= rtpTagLength else {
            count(isRTCP: false) { $0.otherFailures += 1 }
            throw SRTPError(.bufferTooSmall, "no room for the SRTP tag after \(length) bytes")
        }
        let ssrc = Self.word(buffer, at: 8)
        var window = rtpStreams[ssrc] ?? SRTPReplayWindow(size: replayWindowSize)
        guard let index = window.estimatedIndex(sequence: UInt16(buffer[2]) << 8 | UInt16(buffer[3])) else {
            count(isRTCP: false) { $0.otherFailures += 1 }
            throw SRTPError(.keyExhausted, "SRTP rollover counter exhausted for SSRC \(ssrc)")
        }
        guard window.accepts(index) else {
            count(isRTCP: false) { $0.replays += 1 }
            throw SRTPError(.replayed, "SRTP index \(index) of SSRC \(ssrc) already protected or too old")
        }
        var digest = SRTPDigest()
        guard
            crypt(rtpKeys, ssrc: ssrc, index: index, buffer, from: headerLength, to: length),
            authenticate(
                rtpKeys, buffer, count: length, rolloverCounter: UInt32(truncatingIfNeeded: index >> 16),
                into: &digest)
        else { throw cryptoFailure(isRTCP: false) }
        Self.copy(mki, into: buffer, at: length)
        digest.copy(rtpTagLength, into: buffer, at: tagOffset)
        window.record(index)
        Self.remember(window, for: ssrc, in: &rtpStreams)
        rtpStatisticsStorage.packets += 1
        return tagOffset + rtpTagLength
    }

    private func unprotectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard let headerLength = Self.rtpHeaderLength(UnsafeRawBufferPointer(buffer), length: length),
            length - headerLength >= mki.count + rtpTagLength
        else { throw malformed(isRTCP: false, length: length) }
        let end = length - rtpTagLength - mki.count
        try checkMKI(buffer, at: end, isRTCP: false)
        let ssrc = Self.word(buffer, at: 8)
        var window = rtpStreams[ssrc] ?? SRTPReplayWindow(size: replayWindowSize)
        guard let index = window.estimatedIndex(sequence: UInt16(buffer[2]) << 8 | UInt16(buffer[3])) else {
            count(isRTCP: false) { $0.otherFailures += 1 }
            throw SRTPError(.keyExhausted, "SRTP rollover counter exhausted for SSRC \(ssrc)")
        }
        guard window.accepts(index) else {
            count(isRTCP: false) { $0.replays += 1 }
            throw SRTPError(.replayed, "SRTP index \(index) of SSRC \(ssrc) already seen or too old")
        }
        var digest = SRTPDigest()
        guard
            authenticate(
                rtpKeys, buffer, count: end, rolloverCounter: UInt32(truncatingIfNeeded: index >> 16),
                into: &digest)
        else { throw cryptoFailure(isRTCP: false) }
        guard digest.matches(buffer, at: length - rtpTagLength, count: rtpTagLength) else {
            count(isRTCP: false) { $0.authenticationFailures += 1 }
            throw SRTPError(.authenticationFailed, "SRTP authentication tag mismatch")
        }
        guard crypt(rtpKeys, ssrc: ssrc, index: index, buffer, from: headerLength, to: end) else {
            throw cryptoFailure(isRTCP: false)
        }
        window.record(index)
        Self.remember(window, for: ssrc, in: &rtpStreams)
        rtpStatisticsStorage.packets += 1
        return end
    }

    // MARK: SRTCP

    private func protectSRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard length >= 8, buffer[0] >> 6 == 2 else { throw malformed(isRTCP: true, length: length) }
        let tagOffset = length + 4 + mki.count
        guard buffer.count - tagOffset >= 10 else {
            count(isRTCP: true) { $0.otherFailures += 1 }
            throw SRTPError(.bufferTooSmall, "no room for the SRTCP index and tag after \(length) bytes")
        }
        let ssrc = Self.word(buffer, at: 4)
        var window = rtcpStreams[ssrc] ?? SRTPReplayWindow(size: replayWindowSize)
        let index = window.isEmpty ? 1 : window.highest + 1
        guard index <= 0x7FFF_FFFF else {
            count(isRTCP: true) { $0.otherFailures += 1 }
            throw SRTPError(.keyExhausted, "SRTCP index exhausted for SSRC \(ssrc)")
        }
        guard crypt(rtcpKeys, ssrc: ssrc, index: index, buffer, from: 8, to: length) else {
            throw cryptoFailure(isRTCP: true)
        }
        Self.store(0x8000_0000 | UInt32(index), into: buffer, at: length)
        var digest = SRTPDigest()
        guard authenticate(rtcpKeys, buffer, count: length + 4, rolloverCounter: nil, into: &digest) else {
            throw cryptoFailure(isRTCP: true)
        }
        Self.copy(mki, into: buffer, at: length + 4)
        digest.copy(10, into: buffer, at: tagOffset)
        window.record(index)
        Self.remember(window, for: ssrc, in: &rtcpStreams)
        rtcpStatisticsStorage.packets += 1
        return tagOffset + 10
    }

    private func unprotectSRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard length >= 8 + 4 + mki.count + 10, buffer[0] >> 6 == 2 else {
            throw malformed(isRTCP: true, length: length)
        }
        let mkiOffset = length - 10 - mki.count
        let end = mkiOffset - 4
        try checkMKI(buffer, at: mkiOffset, isRTCP: true)
        let ssrc = Self.word(buffer, at: 4)
        let trailer = Self.word(buffer, at: end)
        let isEncrypted = trailer & 0x8000_0000 != 0
        let index = UInt64(trailer & 0x7FFF_FFFF)
        var window = rtcpStreams[ssrc] ?? SRTPReplayWindow(size: replayWindowSize)
        guard window.accepts(index) else {
            count(isRTCP: true) { $0.replays += 1 }
            throw SRTPError(.replayed, "SRTCP index \(index) of SSRC \(ssrc) already seen or too old")
        }
        var digest = SRTPDigest()
        guard authenticate(rtcpKeys, buffer, count: mkiOffset, rolloverCounter: nil, into: &digest) else {
            throw cryptoFailure(isRTCP: true)
        }
        guard digest.matches(buffer, at: length - 10, count: 10) else {
            count(isRTCP: true) { $0.authenticationFailures += 1 }
            throw SRTPError(.authenticationFailed, "SRTCP authentication tag mismatch")
        }
        if isEncrypted {
            guard crypt(rtcpKeys, ssrc: ssrc, index: index, buffer, from: 8, to: end) else {
                throw cryptoFailure(isRTCP: true)
            }
        }
        window.record(index)
        Self.remember(window, for: ssrc, in: &rtcpStreams)
        rtcpStatisticsStorage.packets += 1
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

    private func checkMKI(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int, isRTCP: Bool) throws(SRTPError) {
        for (position, byte) in mki.enumerated() where buffer[offset + position] != byte {
            count(isRTCP: isRTCP) { $0.otherFailures += 1 }
            throw SRTPError(.unknownMKI, "\(isRTCP ? "SRTCP" : "SRTP") packet with an unknown MKI")
        }
    }

    // MARK: Helpers

    private func count(isRTCP: Bool, _ update: (inout SRTPStatistics) -> Void) {
        if isRTCP { update(&rtcpStatisticsStorage) } else { update(&rtpStatisticsStorage) }
    }

    private func malformed(isRTCP: Bool, length: Int) -> SRTPError {
        count(isRTCP: isRTCP) { $0.otherFailures += 1 }
        return SRTPError(.malformedPacket, "\(length) bytes are not a well-formed \(isRTCP ? "SRTCP" : "SRTP") packet")
    }

    private func cryptoFailure(isRTCP: Bool) -> SRTPError {
        ERR_clear_error()
        count(isRTCP: isRTCP) { $0.otherFailures += 1 }
        return SRTPError(.libraryFailure, "OpenSSL failed in \(isRTCP ? "SRTCP" : "SRTP")")
    }

    /// The RTP header's length with its CSRCs and extension, or `nil` when it is not version 2 or overruns
    /// `length`.
    static func rtpHeaderLength(_ bytes: UnsafeRawBufferPointer, length: Int) -> Int? {
        guard length >= 12, length <= bytes.count, bytes[0] >> 6 == 2 else { return nil }
        var headerLength = 12 + 4 * Int(bytes[0] & 0x0F)
        if bytes[0] & 0x10 != 0 {
            guard length >= headerLength + 4 else { return nil }
            headerLength += 4 + 4 * (Int(bytes[headerLength + 2]) << 8 | Int(bytes[headerLength + 3]))
        }
        return headerLength <= length ? headerLength : nil
    }

    private static func word(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(buffer[offset]) << 24 | UInt32(buffer[offset + 1]) << 16 | UInt32(buffer[offset + 2]) << 8
            | UInt32(buffer[offset + 3])
    }

    private static func store(_ value: UInt32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        for position in 0..<4 { buffer[offset + position] = UInt8(truncatingIfNeeded: value >> (24 - 8 * position)) }
    }

    private static func copy(_ bytes: [UInt8], into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        for (position, byte) in bytes.enumerated() { buffer[offset + position] = byte }
    }
}

/// A 20-byte HMAC-SHA1 output on the stack.
struct SRTPDigest {
    private var bytes: (UInt64, UInt64, UInt32) = (0, 0, 0)

    /// Finishes the MAC into the digest.
    mutating func finish(_ mac: OpaquePointer) -> Bool {
        var written = 0
        return withUnsafeMutableBytes(of: &bytes) { raw in
            EVP_MAC_final(mac, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), &written, 20) == 1
                && written == 20
        }
    }

    /// Writes the first `count` bytes (the truncated tag, RFC 3711 §4.2).
    func copy(_ count: Int, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        withUnsafeBytes(of: bytes) { raw in
            for position in 0..<count { buffer[offset + position] = raw[position] }
        }
    }

    /// Whether the `count` bytes at `offset` are the truncated tag, in time independent of where they differ.
    func matches(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int, count: Int) -> Bool {
        withUnsafeBytes(of: bytes) { raw in
            var difference: UInt8 = 0
            for position in 0..<count { difference |= raw[position] ^ buffer[offset + position] }
            return difference == 0
        }
    }
}

extension SRTPContext {
    /// Most sources (SSRCs) one context tracks; a new one beyond it replaces an arbitrary old one. Only a
    /// source that authenticated gets an entry, so the bound is a safeguard, not a path an attacker can take.
    static let maximumSources = 32

    static func remember(_ window: SRTPReplayWindow, for ssrc: UInt32, in table: inout [UInt32: SRTPReplayWindow]) {
        if table[ssrc] == nil, table.count >= maximumSources, let old = table.keys.first { table[old] = nil }
        table[ssrc] = window
    }
}
