/// The SRTP crypto suite a call's media uses (RFC 4568 §6.2, RFC 7714 §14): `aes-cm-80`
/// (AES_CM_128_HMAC_SHA1_80), `aes-cm-32` (AES_CM_128_HMAC_SHA1_32) or `aes-gcm-128` (AEAD_AES_128_GCM).
///
/// A struct over a code rather than an enum, so a new suite is not a breaking change: a `switch` over a suite
/// needs a `default:`.
public struct SRTPSuite: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The suites this version knows; internal so the library's own switches stay exhaustive.
    enum Code: String, CaseIterable {
        case aesCM80 = "aes-cm-80"
        case aesCM32 = "aes-cm-32"
        case aesGCM128 = "aes-gcm-128"
    }

    /// The suite's code.
    let code: Code

    /// Wraps a known code.
    init(code: Code) { self.code = code }

    /// The short name: `aes-cm-80`, `aes-cm-32` or `aes-gcm-128`.
    public var rawValue: String { code.rawValue }

    /// The suite named `rawValue`, or `nil` for a name this version does not know.
    public init?(rawValue: String) {
        guard let code = Code(rawValue: rawValue) else { return nil }
        self.init(code: code)
    }

    /// AES_CM_128_HMAC_SHA1_80 (RFC 4568 §6.2.1; DTLS profile SRTP_AES128_CM_HMAC_SHA1_80).
    public static let aesCM80 = SRTPSuite(code: .aesCM80)
    /// AES_CM_128_HMAC_SHA1_32 (RFC 4568 §6.2.2; DTLS profile SRTP_AES128_CM_HMAC_SHA1_32).
    public static let aesCM32 = SRTPSuite(code: .aesCM32)
    /// AEAD_AES_128_GCM (RFC 7714 §14; DTLS profile SRTP_AEAD_AES_128_GCM).
    public static let aesGCM128 = SRTPSuite(code: .aesGCM128)

    /// Every suite this version knows.
    public static var allCases: [SRTPSuite] { Code.allCases.map(SRTPSuite.init(code:)) }

    /// The short name.
    public var description: String { rawValue }
}
