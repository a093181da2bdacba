import CSRTP
public import SDP

/// One direction of SRTP and SRTCP (RFC 3711) through libsrtp2: an outbound session protects what we send,
/// an inbound one unprotects what we receive, each keyed from an SDES master key and salt (RFC 4568). The
/// cross-check of ``SRTPContext``: the AES-CM suites, and AEAD_AES_128_GCM (RFC 7714) where libsrtp2 is built
/// with it (Debian's is, on NSS).
///
/// The libsrtp2 context (`srtp_t`) is owned here and freed in `deinit`. The class is not `Sendable`: a
/// libsrtp2 context must not be used from two threads at once, so a session stays on its media loop.
/// Inbound sessions keep a replay window per source (RFC 3711 §3.3.2); failures are counted in
/// ``rtpStatistics`` and ``rtcpStatistics`` and thrown as ``SRTPError``, never trapping.
public final class SRTPSession {
    /// Which way the session works.
    public enum Direction: Hashable, Sendable {
        /// Protects packets we send (any SSRC of ours).
        case outbound
        /// Unprotects packets we receive (any SSRC of theirs).
        case inbound
    }

    /// The most bytes protecting adds to a packet: the buffer needs this much room after the packet.
    public static let maximumTrailerLength = Int(sb_SRTP_MAX_TRAILER_LEN)

    /// The crypto suite.
    public let suite: CryptoSuite
    /// The direction.
    public let direction: Direction
    /// SRTP counts.
    public var rtpStatistics: SRTPStatistics { rtpStatisticsStorage }
    /// SRTCP counts.
    public var rtcpStatistics: SRTPStatistics { rtcpStatisticsStorage }
    var rtpStatisticsStorage = SRTPStatistics()
    var rtcpStatisticsStorage = SRTPStatistics()
    let context: OpaquePointer
    let usesMKI: Bool

    /// Creates a session.
    /// - Parameters:
    ///   - suite: AES_CM_128_HMAC_SHA1_80 or AES_CM_128_HMAC_SHA1_32 (SRTCP keeps an 80-bit tag with both), or
    ///     AEAD_AES_128_GCM.
    ///   - masterKeySalt: the 16-byte master key followed by the master salt (14 bytes, 12 for AES-GCM).
    ///   - direction: outbound or inbound.
    ///   - replayWindowSize: the replay window in packets (libsrtp2 accepts 64...32768), 128 by default.
    ///   - mki: the master key identifier (RFC 3711 §3.1) that inbound packets carry (when the other side's
    ///     a=crypto gave one) or that outbound packets get.
    /// - Throws: ``SRTPError`` with `.unsupportedSuite`, `.badKey` or `.libraryFailure`.
    public init(
        suite: CryptoSuite, masterKeySalt: [UInt8], direction: Direction, replayWindowSize: Int = 128,
        mki: SRTPKeyParameters.MasterKeyIdentifier? = nil
    ) throws(SRTPError) {
        guard SRTPLibrary.status == srtp_err_status_ok.rawValue else {
            throw SRTPError(.libraryFailure, status: SRTPLibrary.status, "srtp_init failed")
        }
        var policy = srtp_policy_t()
        let keySaltLength: Int
        if suite.matches(.aesCM128HMACSHA1_80) {
            sb_srtp_policy_aes_cm_128_hmac_sha1_80(&policy.rtp)
            sb_srtp_policy_srtcp_default(&policy.rtcp)
            keySaltLength = Int(SRTP_MASTER_KEY_LEN)
        } else if suite.matches(.aesCM128HMACSHA1_32) {
            sb_srtp_policy_aes_cm_128_hmac_sha1_32(&policy.rtp)
            sb_srtp_policy_srtcp_default(&policy.rtcp)
            keySaltLength = Int(SRTP_MASTER_KEY_LEN)
        } else if suite.matches(.aeadAES128GCM) {
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
            keySaltLength = Int(SRTP_AES_GCM_128_KEY_LEN_WSALT)
        } else {
            throw SRTPError(.unsupportedSuite, "\(suite) is not supported by this libsrtp2")
        }
        guard masterKeySalt.count == keySaltLength else {
            throw SRTPError(.badKey, "\(masterKeySalt.count) bytes of key and salt, \(suite) needs \(keySaltLength)")
        }
        guard (64...0x8000).contains(replayWindowSize) else {
            throw SRTPError(.libraryFailure, "replay window \(replayWindowSize) outside 64...32768")
        }
        policy.ssrc.type = direction == .outbound ? ssrc_any_outbound : ssrc_any_inbound
        policy.window_size = UInt(replayWindowSize)
        policy.allow_repeat_tx = 0
        var key = masterKeySalt
        var mkiBytes =
            mki.map { mki in
                (0..<Int(mki.length)).map { UInt8(truncatingIfNeeded: mki.value >> (8 * (Int(mki.length) - 1 - $0))) }
            } ?? []
        var created: srtp_t?
        let status = key.withUnsafeMutableBufferPointer { keyBuffer in
            mkiBytes.withUnsafeMutableBufferPointer { mkiBuffer in
                guard mki != nil else {
                    policy.key = keyBuffer.baseAddress
                    return srtp_create(&created, &policy)
                }
                var master = srtp_master_key_t(
                    key: keyBuffer.baseAddress, mki_id: mkiBuffer.baseAddress, mki_size: UInt32(mkiBuffer.count))
                return withUnsafeMutablePointer(to: &master) { masterPointer in
                    var list: UnsafeMutablePointer<srtp_master_key_t>? = masterPointer
                    return withUnsafeMutablePointer(to: &list) { listPointer in
                        policy.keys = listPointer
                        policy.num_master_keys = 1
                        return srtp_create(&created, &policy)
                    }
                }
            }
        }
        // libsrtp2 derived the session keys; wipe our copies of the master key.
        for i in key.indices { key[i] = 0 }
        guard status == srtp_err_status_ok, let created else {
            throw SRTPError(.libraryFailure, status: status.rawValue, "srtp_create failed")
        }
        self.context = created
        self.suite = suite
        self.direction = direction
        self.usesMKI = mki != nil
    }

    deinit { srtp_dealloc(context) }

    /// Creates the outbound and inbound sessions of a negotiated call.
    /// - Parameter parameters: the SDES keys from offer/answer.
    /// - Returns: the session that protects what we send (our key) and the one that unprotects what we
    ///   receive (the other side's key, with its MKI).
    public static func pair(for parameters: NegotiatedSession.SRTPParameters) throws(SRTPError) -> (
        outbound: SRTPSession, inbound: SRTPSession
    ) {
        let outbound = try SRTPSession(
            suite: parameters.suite, masterKeySalt: parameters.localKeySalt, direction: .outbound)
        let inbound = try SRTPSession(
            suite: parameters.suite, masterKeySalt: parameters.remoteKeySalt, direction: .inbound,
            mki: parameters.remoteMKI)
        return (outbound, inbound)
    }
}
