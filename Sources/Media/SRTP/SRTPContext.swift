import COpenSSL
public import SDP

/// One direction of SRTP and SRTCP (RFC 3711) on OpenSSL's libcrypto, for AES_CM_128_HMAC_SHA1_80 and
/// AES_CM_128_HMAC_SHA1_32 keyed by SDES (RFC 4568): the same operations as ``SRTPSession``, without libsrtp2.
///
/// The session keys are derived once (RFC 3711 §4.3, key derivation rate 0) into an AES-128-CTR context and
/// an HMAC-SHA1 context per protocol, which every packet reuses: a packet costs one IV reset, one CTR pass, one
/// HMAC re-initialisation and pass, and one dictionary lookup of its SSRC's rollover and replay state, whatever
/// the number of contexts alive. Each SSRC keeps its own 48-bit index (ROC and SEQ, §3.3.1) and replay window
/// (§3.3.2), for SRTP and SRTCP apart; state changes only for packets that were protected or that authenticated.
///
/// Not `Sendable`: the OpenSSL contexts must not be used from two threads at once, so a context stays on its
/// media loop. The contexts are freed in `deinit`. Failures are counted and thrown as ``SRTPError``, never trap.
public final class SRTPContext {
    /// Which way the context works: outbound protects what we send, inbound unprotects what we receive.
    public typealias Direction = SRTPSession.Direction

    /// The most bytes protecting adds to a packet (the SRTCP E flag and index, a 128-byte MKI, an 80-bit tag).
    public static let maximumTrailerLength = 4 + 128 + 10

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
    let rtpKeys: SRTPSessionKeys
    let rtcpKeys: SRTPSessionKeys
    /// The SRTP tag length in bytes: 10 or 4 (SRTCP's is always 10).
    let rtpTagLength: Int
    /// The MKI every packet carries (RFC 3711 §3.1), empty for none.
    let mki: [UInt8]
    let replayWindowSize: Int
    /// Index and replay state per SSRC.
    var rtpStreams: [UInt32: SRTPReplayWindow] = [:]
    var rtcpStreams: [UInt32: SRTPReplayWindow] = [:]

    /// Creates a context.
    /// - Parameters:
    ///   - suite: AES_CM_128_HMAC_SHA1_80 or AES_CM_128_HMAC_SHA1_32 (SRTCP keeps an 80-bit tag with both).
    ///   - masterKeySalt: the 16-byte master key followed by the 14-byte master salt.
    ///   - direction: outbound or inbound.
    ///   - replayWindowSize: the replay window in packets, 64...128, 128 by default (RFC 3711 §3.3.2).
    ///   - mki: the master key identifier (RFC 3711 §3.1) that inbound packets must carry or outbound packets
    ///     get, 1...128 bytes on the wire.
    /// - Throws: ``SRTPError`` with `.unsupportedSuite`, `.badKey` (key, salt or MKI length) or
    ///   `.libraryFailure` (OpenSSL could not make a context; a window outside 64...128).
    public init(
        suite: CryptoSuite, masterKeySalt: [UInt8], direction: Direction, replayWindowSize: Int = 128,
        mki: SRTPKeyParameters.MasterKeyIdentifier? = nil
    ) throws(SRTPError) {
        if suite.matches(.aesCM128HMACSHA1_80) {
            rtpTagLength = 10
        } else if suite.matches(.aesCM128HMACSHA1_32) {
            rtpTagLength = 4
        } else {
            throw SRTPError(.unsupportedSuite, "\(suite) is not supported (AES_CM_128_HMAC_SHA1_80 and _32 are)")
        }
        guard masterKeySalt.count == 30 else {
            throw SRTPError(.badKey, "\(masterKeySalt.count) bytes of key and salt, \(suite) needs 30")
        }
        guard (64...128).contains(replayWindowSize) else {
            throw SRTPError(.libraryFailure, "replay window \(replayWindowSize) outside 64...128")
        }
        var mkiBytes: [UInt8] = []
        if let mki {
            guard (1...128).contains(mki.length) else {
                throw SRTPError(.badKey, "an MKI of \(mki.length) bytes (1...128 allowed)")
            }
            let length = Int(mki.length)
            mkiBytes = (0..<length).map { position in
                let shift = 8 * (length - 1 - position)
                return shift < 64 ? UInt8(truncatingIfNeeded: mki.value >> shift) : 0
            }
        }
        let rtp = try SRTPSessionKeys(masterKeySalt: masterKeySalt, firstLabel: 0)
        let rtcp: SRTPSessionKeys
        do {
            rtcp = try SRTPSessionKeys(masterKeySalt: masterKeySalt, firstLabel: 3)
        } catch {
            rtp.free()
            throw error
        }
        self.suite = suite
        self.direction = direction
        self.replayWindowSize = replayWindowSize
        self.mki = mkiBytes
        self.rtpKeys = rtp
        self.rtcpKeys = rtcp
    }

    deinit {
        rtpKeys.free()
        rtcpKeys.free()
    }

    /// Creates the outbound and inbound contexts of a negotiated call.
    /// - Parameter parameters: the SDES keys from offer/answer.
    /// - Returns: the context that protects what we send (our key) and the one that unprotects what we
    ///   receive (the other side's key, with its MKI).
    public static func pair(for parameters: NegotiatedSession.SRTPParameters) throws(SRTPError) -> (
        outbound: SRTPContext, inbound: SRTPContext
    ) {
        let outbound = try SRTPContext(
            suite: parameters.suite, masterKeySalt: parameters.localKeySalt, direction: .outbound)
        let inbound = try SRTPContext(
            suite: parameters.suite, masterKeySalt: parameters.remoteKeySalt, direction: .inbound,
            mki: parameters.remoteMKI)
        return (outbound, inbound)
    }
}

/// The session keys of one protocol (SRTP or SRTCP), derived from the master key and salt (RFC 3711 §4.3.1):
/// an AES-128-CTR context keyed with the session encryption key, an HMAC-SHA1 context keyed with the 160-bit
/// session authentication key, and the 112-bit session salt as two words.
struct SRTPSessionKeys {
    /// `EVP_CIPHER_CTX *`.
    let cipher: OpaquePointer
    /// `EVP_MAC_CTX *`.
    let mac: OpaquePointer
    /// Session salt bytes 0...7, big-endian.
    let saltHigh: UInt64
    /// Session salt bytes 8...13, big-endian, shifted left 16 bits (the IV's last two bytes are the counter).
    let saltLow: UInt64

    /// Derives the keys with labels `firstLabel` (encryption), `+ 1` (authentication), `+ 2` (salt).
    init(masterKeySalt: [UInt8], firstLabel: UInt8) throws(SRTPError) {
        guard var key = SRTPKeyDerivation.derive(masterKeySalt, label: firstLabel, count: 16),
            var authenticationKey = SRTPKeyDerivation.derive(masterKeySalt, label: firstLabel + 1, count: 20),
            var salt = SRTPKeyDerivation.derive(masterKeySalt, label: firstLabel + 2, count: 14)
        else {
            ERR_clear_error()
            throw SRTPError(.libraryFailure, "AES-CM key derivation failed")
        }
        defer {
            for i in key.indices { key[i] = 0 }
            for i in authenticationKey.indices { authenticationKey[i] = 0 }
            for i in salt.indices { salt[i] = 0 }
        }
        guard let cipher = key.withUnsafeBufferPointer({ sb_aes_128_ctr_new($0.baseAddress) }) else {
            ERR_clear_error()
            throw SRTPError(.libraryFailure, "EVP_aes_128_ctr context creation failed")
        }
        guard let mac = authenticationKey.withUnsafeBufferPointer({ sb_hmac_sha1_new($0.baseAddress, $0.count) })
        else {
            EVP_CIPHER_CTX_free(cipher)
            ERR_clear_error()
            throw SRTPError(.libraryFailure, "HMAC-SHA1 context creation failed")
        }
        self.cipher = cipher
        self.mac = mac
        saltHigh = salt[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        saltLow = salt[8..<14].reduce(0) { $0 << 8 | UInt64($1) } << 16
    }

    func free() {
        EVP_CIPHER_CTX_free(cipher)
        EVP_MAC_CTX_free(mac)
    }
}

/// The AES-CM pseudo-random function of RFC 3711 §4.3.3, with key derivation rate 0.
enum SRTPKeyDerivation {
    /// `count` bytes of session key material for `label` (§4.3.1): the AES-CM keystream under the master key
    /// with IV = (master salt XOR (label || 0^48)) * 2^16. `nil` when the key and salt are not 30 bytes or
    /// OpenSSL fails.
    static func derive(_ masterKeySalt: [UInt8], label: UInt8, count: Int) -> [UInt8]? {
        guard masterKeySalt.count == 30 else { return nil }
        var iv = Array(masterKeySalt[16..<30]) + [0, 0]
        iv[7] ^= label
        var key = Array(masterKeySalt[0..<16])
        defer {
            for i in key.indices { key[i] = 0 }
            for i in iv.indices { iv[i] = 0 }
        }
        return keystream(key: key, iv: iv, count: count)
    }

    /// `count` bytes of AES-128 counter-mode keystream (RFC 3711 §4.1.1) from the 16-byte `iv`.
    static func keystream(key: [UInt8], iv: [UInt8], count: Int) -> [UInt8]? {
        guard key.count == 16, iv.count == 16, (0...Int(Int32.max)).contains(count) else { return nil }
        guard let context = key.withUnsafeBufferPointer({ sb_aes_128_ctr_new($0.baseAddress) }) else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: count)
        var written: Int32 = 0
        let ok = output.withUnsafeMutableBufferPointer { buffer in
            iv.withUnsafeBufferPointer { ivBuffer in
                EVP_EncryptInit_ex(context, nil, nil, nil, ivBuffer.baseAddress) == 1
                    && (count == 0
                        || EVP_EncryptUpdate(
                            context, buffer.baseAddress, &written, buffer.baseAddress, Int32(count)) == 1)
            }
        }
        return ok ? output : nil
    }
}
