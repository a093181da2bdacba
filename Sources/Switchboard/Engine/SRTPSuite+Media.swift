import DTLS
import SDP

// The API's SRTP suites as the SDP and DTLS layers name them: an `a=crypto` suite (RFC 4568 §6.2, RFC 7714
// §14.1) and a `use_srtp` profile (RFC 5764 §4.1.2, RFC 7714 §14.2).
extension SRTPSuite {
    /// The API's suite for an SDP crypto suite; `nil` for one the media engine does not run.
    init?(_ suite: CryptoSuite) {
        guard let known = Self.allCases.first(where: { suite.matches($0.cryptoSuite) }) else { return nil }
        self = known
    }

    /// The `a=crypto` suite.
    var cryptoSuite: CryptoSuite {
        switch code {
        case .aesCM80: .aesCM128HMACSHA1_80
        case .aesCM32: .aesCM128HMACSHA1_32
        case .aesGCM128: .aeadAES128GCM
        }
    }

    /// The DTLS-SRTP protection profile.
    var dtlsProfile: DTLSSRTPProfile {
        switch code {
        case .aesCM80: .aes128CMSHA1_80
        case .aesCM32: .aes128CMSHA1_32
        case .aesGCM128: .aeadAES128GCM
        }
    }
}
