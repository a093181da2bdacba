import CSRTP

extension SRTPSession: SRTPProtection {
    /// What protecting may add: libsrtp2 wants its whole maximum reserved.
    public func trailerLength(isRTCP: Bool) -> Int { SRTPSession.maximumTrailerLength }

    /// Protects or unprotects in place (``SRTPProtection``).
    public func process(_ buffer: UnsafeMutableRawBufferPointer, length: Int, isRTCP: Bool, isProtect: Bool)
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
