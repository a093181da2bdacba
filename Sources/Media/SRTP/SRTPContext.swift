import COpenSSL
public import SDP

/// One direction of SRTP and SRTCP (RFC 3711) on OpenSSL's libcrypto, for AES_CM_128_HMAC_SHA1_80 and
/// AES_CM_128_HMAC_SHA1_32 (RFC 4568 §6.2) and AEAD_AES_128_GCM (RFC 7714), keyed by SDES or DTLS-SRTP: the
/// same operations as ``SRTPSession``, without libsrtp2.
///
/// The session keys are derived once (RFC 3711 §4.3, key derivation rate 0) into OpenSSL contexts per
/// protocol that every packet reuses: for AES-CM an AES-128-CTR context and an HMAC-SHA1 context, for AES-GCM
/// one AES-128-GCM context. A packet costs an IV reset, one cipher pass (and one HMAC pass for AES-CM), and one
/// dictionary lookup of its SSRC's rollover and replay state, whatever the number of contexts alive. Each SSRC
/// keeps its own 48-bit index (ROC and SEQ, §3.3.1) and replay window (§3.3.2), for SRTP and SRTCP apart;
/// state changes only for packets that were protected or that authenticated.
///
/// Not `Sendable`: the OpenSSL contexts must not be used from two threads at once, so a context stays on its
/// media loop. The contexts are freed in `deinit`. Failures are counted and thrown as ``SRTPError``, never trap.
public final class SRTPContext {
    /// Which way the context works: outbound protects what we send, inbound unprotects what we receive.
    public typealias Direction = SRTPSession.Direction

    /// The most bytes protecting adds to a packet (the SRTCP E flag and index, a 128-byte MKI, a 16-byte tag).
    public static let maximumTrailerLength = 4 + 128 + 16

    /// The crypto suite.
    public let suite: CryptoSuite
    /// The direction.
    public let direction: Direction
    /// Whether outbound SRTCP is encrypted (E flag set, RFC 3711 §3.4); inbound SRTCP is read either way.
    public let encryptsRTCP: Bool
    /// SRTP counts.
    public var rtpStatistics: SRTPStatistics { rtpStatisticsStorage }
    /// SRTCP counts.
    public var rtcpStatistics: SRTPStatistics { rtcpStatisticsStorage }

    var rtpStatisticsStorage = SRTPStatistics()
    var rtcpStatisticsStorage = SRTPStatistics()
    /// The session keys of both protocols, for the suite's transform.
    let transform: SRTPTransform
    /// The MKI every packet carries (RFC 3711 §3.1), empty for none.
    let mki: [UInt8]
    let replayWindowSize: Int
    /// Index and replay state per SSRC.
    var rtpStreams: [UInt32: SRTPReplayWindow] = [:]
    var rtcpStreams: [UInt32: SRTPReplayWindow] = [:]

    /// Creates a context.
    /// - Parameters:
    ///   - suite: AES_CM_128_HMAC_SHA1_80, AES_CM_128_HMAC_SHA1_32 (SRTCP keeps an 80-bit tag with both) or
    ///     AEAD_AES_128_GCM (a 16-byte tag on both).
    ///   - masterKeySalt: the 16-byte master key followed by the master salt: 14 bytes for the AES-CM suites,
    ///     12 for AEAD_AES_128_GCM (RFC 7714 §12).
    ///   - direction: outbound or inbound.
    ///   - replayWindowSize: the replay window in packets, 64...128, 128 by default (RFC 3711 §3.3.2).
    ///   - mki: the master key identifier (RFC 3711 §3.1) that inbound packets must carry or outbound packets
    ///     get, 1...128 bytes on the wire.
    ///   - encryptsRTCP: whether outbound SRTCP is encrypted (true by default; false sends it authenticated
    ///     only, with the E flag clear, as RFC 4568's `UNENCRYPTED_SRTCP` asks).
    /// - Throws: ``SRTPError`` with `.unsupportedSuite`, `.badKey` (key, salt or MKI length) or
    ///   `.libraryFailure` (OpenSSL could not make a context; a window outside 64...128).
    public convenience init(
        suite: CryptoSuite, masterKeySalt: [UInt8], direction: Direction, replayWindowSize: Int = 128,
        mki: SRTPKeyParameters.MasterKeyIdentifier? = nil, encryptsRTCP: Bool = true
    ) throws(SRTPError) {
        let kind = try SRTPTransform.Kind(suite)
        guard masterKeySalt.count == kind.keySaltLength else {
            throw SRTPError(
                .badKey, "\(masterKeySalt.count) bytes of key and salt, \(suite) needs \(kind.keySaltLength)")
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
        self.init(
            transform: try SRTPTransform(kind, masterKeySalt: masterKeySalt, isEncrypting: direction == .outbound),
            suite: suite, direction: direction, replayWindowSize: replayWindowSize, mki: mkiBytes,
            encryptsRTCP: encryptsRTCP)
    }

    /// A context over session keys already made (the RFCs' vectors give session keys).
    init(
        transform: SRTPTransform, suite: CryptoSuite, direction: Direction, replayWindowSize: Int = 128,
        mki: [UInt8] = [], encryptsRTCP: Bool = true
    ) {
        self.transform = transform
        self.suite = suite
        self.direction = direction
        self.encryptsRTCP = encryptsRTCP
        self.replayWindowSize = replayWindowSize
        self.mki = mki
    }

    deinit { transform.free() }

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

/// The session keys of SRTP and SRTCP for one suite's transform.
enum SRTPTransform {
    /// The transforms this implementation runs.
    enum Kind {
        /// AES-128 counter mode with HMAC-SHA1, an SRTP tag of `tagLength` bytes (10 or 4; SRTCP's is 10).
        case counterMode(tagLength: Int)
        /// AES-128 in Galois/Counter Mode with a 16-byte tag (RFC 7714).
        case galoisCounterMode

        init(_ suite: CryptoSuite) throws(SRTPError) {
            if suite.matches(.aesCM128HMACSHA1_80) {
                self = .counterMode(tagLength: 10)
            } else if suite.matches(.aesCM128HMACSHA1_32) {
                self = .counterMode(tagLength: 4)
            } else if suite.matches(.aeadAES128GCM) {
                self = .galoisCounterMode
            } else {
                throw SRTPError(
                    .unsupportedSuite,
                    "\(suite) is not supported (AES_CM_128_HMAC_SHA1_80 and _32 and AEAD_AES_128_GCM are)")
            }
        }

        /// The master key and salt length: 16 + 14, or 16 + 12 for AES-GCM.
        var keySaltLength: Int {
            if case .galoisCounterMode = self { return 28 }
            return 30
        }
    }

    case counterMode(rtp: SRTPSessionKeys, rtcp: SRTPSessionKeys, tagLength: Int)
    case galoisCounterMode(rtp: SRTPGCMKeys, rtcp: SRTPGCMKeys)

    /// Derives both protocols' keys: SRTP with labels 0...2, SRTCP with 3...5 (RFC 3711 §4.3.1).
    init(_ kind: Kind, masterKeySalt: [UInt8], isEncrypting: Bool) throws(SRTPError) {
        var masterKey = Array(masterKeySalt[0..<16])
        var masterSalt = Array(masterKeySalt[16...])
        defer {
            for i in masterKey.indices { masterKey[i] = 0 }
            for i in masterSalt.indices { masterSalt[i] = 0 }
        }
        switch kind {
        case .counterMode(let tagLength):
            let rtp = try SRTPSessionKeys(masterKeySalt: masterKeySalt, firstLabel: 0)
            do {
                self = .counterMode(
                    rtp: rtp, rtcp: try SRTPSessionKeys(masterKeySalt: masterKeySalt, firstLabel: 3),
                    tagLength: tagLength)
            } catch {
                rtp.free()
                throw error
            }
        case .galoisCounterMode:
            let rtp = try SRTPGCMKeys(
                masterKey: masterKey, masterSalt: masterSalt, firstLabel: 0, isEncrypting: isEncrypting)
            do {
                self = .galoisCounterMode(
                    rtp: rtp,
                    rtcp: try SRTPGCMKeys(
                        masterKey: masterKey, masterSalt: masterSalt, firstLabel: 3, isEncrypting: isEncrypting))
            } catch {
                rtp.free()
                throw error
            }
        }
    }

    /// The SRTP tag length in bytes.
    var rtpTagLength: Int {
        switch self {
        case .counterMode(_, _, let tagLength): tagLength
        case .galoisCounterMode: SRTPGCMKeys.tagLength
        }
    }

    /// The SRTCP tag length in bytes.
    var rtcpTagLength: Int {
        switch self {
        case .counterMode: 10
        case .galoisCounterMode: SRTPGCMKeys.tagLength
        }
    }

    func free() {
        switch self {
        case .counterMode(let rtp, let rtcp, _):
            rtp.free()
            rtcp.free()
        case .galoisCounterMode(let rtp, let rtcp):
            rtp.free()
            rtcp.free()
        }
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
    /// `count` bytes of session key material for `label` (§4.3.1) from a 30-byte master key and salt.
    static func derive(_ masterKeySalt: [UInt8], label: UInt8, count: Int) -> [UInt8]? {
        guard masterKeySalt.count == 30 else { return nil }
        return derive(
            masterKey: Array(masterKeySalt[0..<16]), masterSalt: Array(masterKeySalt[16...]), label: label,
            count: count)
    }

    /// `count` bytes of session key material for `label` (§4.3.1): the AES-CM keystream under the master key
    /// with IV = (master salt XOR (label || 0^48)) * 2^16. A 12-byte salt (RFC 7714 §11) fills the first
    /// 12 of the 14 salt bytes, the last two zero, as libsrtp2 does. `nil` for other lengths or when OpenSSL
    /// fails.
    static func derive(masterKey: [UInt8], masterSalt: [UInt8], label: UInt8, count: Int) -> [UInt8]? {
        guard masterKey.count == 16, masterSalt.count == 14 || masterSalt.count == 12 else { return nil }
        var iv = masterSalt + [UInt8](repeating: 0, count: 16 - masterSalt.count)
        iv[7] ^= label
        defer { for i in iv.indices { iv[i] = 0 } }
        return keystream(key: masterKey, iv: iv, count: count)
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
