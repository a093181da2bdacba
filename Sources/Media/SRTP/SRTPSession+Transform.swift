import CSRTP

extension SRTPSession {
    /// Protects an RTP packet in place (RFC 3711 §3.3): encrypts the payload and appends the tag.
    /// - Parameter packet: the encoded RTP packet; on return, the SRTP packet.
    /// - Throws: ``SRTPError``; the packet is unchanged then.
    public func protect(_ packet: inout [UInt8]) throws(SRTPError) {
        try transform(&packet, isRTCP: false, isProtect: true)
    }

    /// Verifies and decrypts an SRTP packet in place (RFC 3711 §3.3), checking the replay window.
    /// - Parameter packet: the received SRTP packet; on return, the RTP packet.
    /// - Throws: ``SRTPError`` with `.authenticationFailed` or `.replayed` for packets to drop (counted).
    public func unprotect(_ packet: inout [UInt8]) throws(SRTPError) {
        try transform(&packet, isRTCP: false, isProtect: false)
    }

    /// Protects a compound RTCP packet in place (RFC 3711 §3.4): encrypts it after the first 8 bytes and
    /// appends the E flag with the SRTCP index, and the tag.
    /// - Parameter packet: the encoded compound packet; on return, the SRTCP packet.
    public func protectRTCP(_ packet: inout [UInt8]) throws(SRTPError) {
        try transform(&packet, isRTCP: true, isProtect: true)
    }

    /// Verifies and decrypts an SRTCP packet in place (RFC 3711 §3.4), checking the replay window.
    /// - Parameter packet: the received SRTCP packet; on return, the compound RTCP packet.
    public func unprotectRTCP(_ packet: inout [UInt8]) throws(SRTPError) {
        try transform(&packet, isRTCP: true, isProtect: false)
    }

    /// Protects or unprotects in a caller's buffer without copying (for a socket's receive buffer).
    /// - Parameters:
    ///   - buffer: the memory; when protecting it needs ``maximumTrailerLength`` bytes of room after `length`.
    ///   - length: the packet's length.
    ///   - isRTCP: SRTCP rather than SRTP.
    /// - Returns: the new length.
    public func transform(_ buffer: UnsafeMutableRawBufferPointer, length: Int, isRTCP: Bool) throws(SRTPError)
        -> Int
    {
        let isProtect = direction == .outbound
        guard length >= 0, length <= buffer.count,
            !isProtect || buffer.count - length >= SRTPSession.maximumTrailerLength
        else {
            throw SRTPError(.bufferTooSmall, "\(buffer.count) bytes of buffer for a \(length)-byte packet")
        }
        return try run(buffer, length: length, isRTCP: isRTCP, isProtect: isProtect)
    }

    private func transform(_ packet: inout [UInt8], isRTCP: Bool, isProtect: Bool) throws(SRTPError) {
        let length = packet.count
        if isProtect { packet.append(contentsOf: repeatElement(0, count: SRTPSession.maximumTrailerLength)) }
        let result = packet.withUnsafeMutableBytes { buffer -> Result<Int, SRTPError> in
            do throws(SRTPError) {
                return .success(try run(buffer, length: length, isRTCP: isRTCP, isProtect: isProtect))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let newLength):
            packet.removeSubrange(newLength...)
        case .failure(let error):
            if isProtect { packet.removeSubrange(length...) }
            throw error
        }
    }

    private func run(_ buffer: UnsafeMutableRawBufferPointer, length: Int, isRTCP: Bool, isProtect: Bool)
        throws(SRTPError) -> Int
    {
        guard isProtect == (direction == .outbound) else {
            throw SRTPError(.wrongDirection, "\(isProtect ? "protect" : "unprotect") on an \(direction) session")
        }
        guard let base = buffer.baseAddress, length <= Int(Int32.max) - SRTPSession.maximumTrailerLength,
            Self.isWellFormed(UnsafeRawBufferPointer(buffer), length: length, isRTCP: isRTCP)
        else {
            countFailure(isRTCP: isRTCP) { $0.otherFailures += 1 }
            throw SRTPError(.malformedPacket, "\(length) bytes are not a well-formed \(isRTCP ? "RTCP" : "RTP") packet")
        }
        var newLength = Int32(length)
        let status: srtp_err_status_t
        switch (isRTCP, isProtect) {
        case (false, true):
            status =
                usesMKI ? srtp_protect_mki(context, base, &newLength, 1, 0) : srtp_protect(context, base, &newLength)
        case (false, false):
            status =
                usesMKI ? srtp_unprotect_mki(context, base, &newLength, 1) : srtp_unprotect(context, base, &newLength)
        case (true, true):
            status =
                usesMKI
                ? srtp_protect_rtcp_mki(context, base, &newLength, 1, 0) : srtp_protect_rtcp(context, base, &newLength)
        case (true, false):
            status =
                usesMKI
                ? srtp_unprotect_rtcp_mki(context, base, &newLength, 1) : srtp_unprotect_rtcp(context, base, &newLength)
        }
        guard status == srtp_err_status_ok else { throw failure(status, isRTCP: isRTCP) }
        countFailure(isRTCP: isRTCP) { $0.packets += 1 }
        return Int(newLength)
    }

    private func failure(_ status: srtp_err_status_t, isRTCP: Bool) -> SRTPError {
        let name = isRTCP ? "SRTCP" : "SRTP"
        switch status {
        case srtp_err_status_auth_fail:
            countFailure(isRTCP: isRTCP) { $0.authenticationFailures += 1 }
            return SRTPError(.authenticationFailed, status: status.rawValue, "\(name) authentication tag mismatch")
        case srtp_err_status_replay_fail, srtp_err_status_replay_old:
            countFailure(isRTCP: isRTCP) { $0.replays += 1 }
            return SRTPError(.replayed, status: status.rawValue, "\(name) packet index already seen or too old")
        case srtp_err_status_bad_mki:
            countFailure(isRTCP: isRTCP) { $0.otherFailures += 1 }
            return SRTPError(.unknownMKI, status: status.rawValue, "\(name) packet with an unknown MKI")
        case srtp_err_status_bad_param, srtp_err_status_parse_err:
            countFailure(isRTCP: isRTCP) { $0.otherFailures += 1 }
            return SRTPError(.malformedPacket, status: status.rawValue, "\(name) packet rejected as malformed")
        default:
            countFailure(isRTCP: isRTCP) { $0.otherFailures += 1 }
            return SRTPError(.libraryFailure, status: status.rawValue, "\(name) transform failed")
        }
    }

    private func countFailure(isRTCP: Bool, _ update: (inout SRTPStatistics) -> Void) {
        if isRTCP { update(&rtcpStatisticsStorage) } else { update(&rtpStatisticsStorage) }
    }

    /// Checks what libsrtp2 will read before it reads it: the RTP header with its CSRCs and extension, or
    /// the RTCP header and sender SSRC.
    static func isWellFormed(_ bytes: UnsafeRawBufferPointer, length: Int, isRTCP: Bool) -> Bool {
        guard length >= (isRTCP ? 8 : 12), length <= bytes.count, bytes[0] >> 6 == 2 else { return false }
        if isRTCP { return true }
        var headerLength = 12 + 4 * Int(bytes[0] & 0x0F)
        if bytes[0] & 0x10 != 0 {
            guard length >= headerLength + 4 else { return false }
            headerLength += 4 + 4 * (Int(bytes[headerLength + 2]) << 8 | Int(bytes[headerLength + 3]))
        }
        return headerLength <= length
    }
}
