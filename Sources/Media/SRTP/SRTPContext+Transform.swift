import COpenSSL

extension SRTPContext: SRTPProtection {
    /// What protecting adds to a packet.
    public func trailerLength(isRTCP: Bool) -> Int {
        isRTCP ? 4 + mki.count + transform.rtcpTagLength : mki.count + transform.rtpTagLength
    }

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
        switch transform {
        case .counterMode(let rtp, let rtcp, let tagLength):
            switch (isRTCP, isProtect) {
            case (false, true): return try protectRTP(buffer, length: length, keys: rtp, tagLength: tagLength)
            case (false, false): return try unprotectRTP(buffer, length: length, keys: rtp, tagLength: tagLength)
            case (true, true): return try protectSRTCP(buffer, length: length, keys: rtcp)
            case (true, false): return try unprotectSRTCP(buffer, length: length, keys: rtcp)
            }
        case .galoisCounterMode(let rtp, let rtcp):
            switch (isRTCP, isProtect) {
            case (false, true): return try protectRTP(buffer, length: length, keys: rtp)
            case (false, false): return try unprotectRTP(buffer, length: length, keys: rtp)
            case (true, true): return try protectSRTCP(buffer, length: length, keys: rtcp)
            case (true, false): return try unprotectSRTCP(buffer, length: length, keys: rtcp)
            }
        }
    }

    // MARK: Shared steps

    /// The SRTP index of a packet of `ssrc` and the window it is checked against (RFC 3711 §3.3.1, §3.3.2).
    func rtpIndex(_ buffer: UnsafeMutableRawBufferPointer, ssrc: UInt32, isProtect: Bool) throws(SRTPError) -> (
        SRTPReplayWindow, UInt64
    ) {
        let window = rtpStreams[ssrc] ?? SRTPReplayWindow(size: replayWindowSize)
        guard let index = window.estimatedIndex(sequence: UInt16(buffer[2]) << 8 | UInt16(buffer[3])) else {
            count(isRTCP: false) { $0.otherFailures += 1 }
            throw SRTPError(.keyExhausted, "SRTP rollover counter exhausted for SSRC \(ssrc)")
        }
        guard window.accepts(index) else {
            count(isRTCP: false) { $0.replays += 1 }
            let seen = isProtect ? "already protected" : "already seen"
            throw SRTPError(.replayed, "SRTP index \(index) of SSRC \(ssrc) \(seen) or too old")
        }
        return (window, index)
    }

    /// The next SRTCP index to send for `ssrc` (RFC 3711 §3.4) and its window.
    func nextRTCPIndex(ssrc: UInt32) throws(SRTPError) -> (SRTPReplayWindow, UInt64) {
        let window = rtcpStreams[ssrc] ?? SRTPReplayWindow(size: replayWindowSize)
        let index = window.isEmpty ? 1 : window.highest + 1
        guard index <= 0x7FFF_FFFF else {
            count(isRTCP: true) { $0.otherFailures += 1 }
            throw SRTPError(.keyExhausted, "SRTCP index exhausted for SSRC \(ssrc)")
        }
        return (window, index)
    }

    /// The window of a received SRTCP index, refusing a replay.
    func receivedRTCPWindow(ssrc: UInt32, index: UInt64) throws(SRTPError) -> SRTPReplayWindow {
        let window = rtcpStreams[ssrc] ?? SRTPReplayWindow(size: replayWindowSize)
        guard window.accepts(index) else {
            count(isRTCP: true) { $0.replays += 1 }
            throw SRTPError(.replayed, "SRTCP index \(index) of SSRC \(ssrc) already seen or too old")
        }
        return window
    }

    /// Records an index that was protected or that authenticated.
    func accept(_ index: UInt64, in window: SRTPReplayWindow, ssrc: UInt32, isRTCP: Bool) {
        var window = window
        window.record(index)
        if isRTCP {
            Self.remember(window, for: ssrc, in: &rtcpStreams)
            rtcpStatisticsStorage.packets += 1
        } else {
            Self.remember(window, for: ssrc, in: &rtpStreams)
            rtpStatisticsStorage.packets += 1
        }
    }

    func checkMKI(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int, isRTCP: Bool) throws(SRTPError) {
        for (position, byte) in mki.enumerated() where buffer[offset + position] != byte {
            count(isRTCP: isRTCP) { $0.otherFailures += 1 }
            throw SRTPError(.unknownMKI, "\(isRTCP ? "SRTCP" : "SRTP") packet with an unknown MKI")
        }
    }

    // MARK: Helpers

    func count(isRTCP: Bool, _ update: (inout SRTPStatistics) -> Void) {
        if isRTCP { update(&rtcpStatisticsStorage) } else { update(&rtpStatisticsStorage) }
    }

    func malformed(isRTCP: Bool, length: Int) -> SRTPError {
        count(isRTCP: isRTCP) { $0.otherFailures += 1 }
        return SRTPError(.malformedPacket, "\(length) bytes are not a well-formed \(isRTCP ? "SRTCP" : "SRTP") packet")
    }

    func cryptoFailure(isRTCP: Bool) -> SRTPError {
        ERR_clear_error()
        count(isRTCP: isRTCP) { $0.otherFailures += 1 }
        return SRTPError(.libraryFailure, "OpenSSL failed in \(isRTCP ? "SRTCP" : "SRTP")")
    }

    func authenticationFailure(isRTCP: Bool) -> SRTPError {
        count(isRTCP: isRTCP) { $0.authenticationFailures += 1 }
        return SRTPError(.authenticationFailed, "\(isRTCP ? "SRTCP" : "SRTP") authentication tag mismatch")
    }

    func noRoom(isRTCP: Bool, length: Int) -> SRTPError {
        count(isRTCP: isRTCP) { $0.otherFailures += 1 }
        let what = isRTCP ? "SRTCP index and tag" : "SRTP tag"
        return SRTPError(.bufferTooSmall, "no room for the \(what) after \(length) bytes")
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

    static func word(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(buffer[offset]) << 24 | UInt32(buffer[offset + 1]) << 16 | UInt32(buffer[offset + 2]) << 8
            | UInt32(buffer[offset + 3])
    }

    static func store(_ value: UInt32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        for position in 0..<4 { buffer[offset + position] = UInt8(truncatingIfNeeded: value >> (24 - 8 * position)) }
    }

    static func copy(_ bytes: [UInt8], into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
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
