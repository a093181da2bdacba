public import SDP

/// An SRTP protection profile of the DTLS `use_srtp` extension (RFC 5764 §4.1.2, RFC 7714 §14.2), with the
/// SRTP crypto suite and the key and salt lengths its keying material has.
public struct DTLSSRTPProfile: Hashable, Sendable, CustomStringConvertible {
    /// The IANA identifier (RFC 5764 §9).
    public let identifier: UInt16
    /// OpenSSL's name for it, as in `SSL_set_tlsext_use_srtp`.
    public let name: String
    /// The SRTP crypto suite it keys.
    public let cryptoSuite: CryptoSuite
    /// The master key length in bytes.
    public let keyLength: Int
    /// The master salt length in bytes.
    public let saltLength: Int

    private init(identifier: UInt16, name: String, cryptoSuite: CryptoSuite, keyLength: Int, saltLength: Int) {
        self.identifier = identifier
        self.name = name
        self.cryptoSuite = cryptoSuite
        self.keyLength = keyLength
        self.saltLength = saltLength
    }

    /// SRTP_AES128_CM_HMAC_SHA1_80 = {0x00, 0x01} (RFC 5764 §4.1.2).
    public static let aes128CMSHA1_80 = DTLSSRTPProfile(
        identifier: 0x0001, name: "SRTP_AES128_CM_SHA1_80", cryptoSuite: .aesCM128HMACSHA1_80, keyLength: 16,
        saltLength: 14)
    /// SRTP_AES128_CM_HMAC_SHA1_32 = {0x00, 0x02} (RFC 5764 §4.1.2).
    public static let aes128CMSHA1_32 = DTLSSRTPProfile(
        identifier: 0x0002, name: "SRTP_AES128_CM_SHA1_32", cryptoSuite: .aesCM128HMACSHA1_32, keyLength: 16,
        saltLength: 14)
    /// SRTP_AEAD_AES_128_GCM = {0x00, 0x07} (RFC 7714 §14.2).
    public static let aeadAES128GCM = DTLSSRTPProfile(
        identifier: 0x0007, name: "SRTP_AEAD_AES_128_GCM", cryptoSuite: .aeadAES128GCM, keyLength: 16,
        saltLength: 12)

    /// Every profile the engine negotiates.
    public static let all: [DTLSSRTPProfile] = [.aeadAES128GCM, .aes128CMSHA1_80, .aes128CMSHA1_32]

    /// The preference order by default: AES-GCM first, as browsers offer, then the AES-CM profiles.
    public static let defaultPreference: [DTLSSRTPProfile] = all

    /// The profile with an IANA identifier, `nil` for one the engine does not negotiate.
    public init?(identifier: UInt16) {
        guard let profile = Self.all.first(where: { $0.identifier == identifier }) else { return nil }
        self = profile
    }

    /// OpenSSL's name.
    public var description: String { name }
}
