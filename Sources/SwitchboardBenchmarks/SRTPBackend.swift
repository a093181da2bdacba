import Media
import SDP

/// The SRTP implementation a media benchmark runs (`--srtp native|libsrtp`). MediaSession runs ``SRTPContext`` for
/// every suite and keying; libsrtp stays the default of SDES-keyed runs so their figures compare with earlier ones.
enum SRTPBackend: String, Sendable, CaseIterable {
    /// ``SRTPContext``: RFC 3711 on OpenSSL's libcrypto, contexts made once per session.
    case native
    /// ``SRTPSession``: Debian's libsrtp2.
    case libsrtp

    /// Room to reserve after a packet for either backend's trailer.
    static let maximumTrailerLength = max(SRTPSession.maximumTrailerLength, SRTPContext.maximumTrailerLength)

    /// A one-direction session of this backend, AES_CM_128_HMAC_SHA1_80 unless `suite` names another.
    func make(suite: CryptoSuite = .aesCM128HMACSHA1_80, key: [UInt8], direction: SRTPSession.Direction) throws
        -> any BenchmarkSRTP
    {
        switch self {
        case .native: try SRTPContext(suite: suite, masterKeySalt: key, direction: direction)
        case .libsrtp: try SRTPSession(suite: suite, masterKeySalt: key, direction: direction)
        }
    }
}

/// What the media benchmarks call on either backend.
protocol BenchmarkSRTP: AnyObject {
    func protect(_ packet: inout [UInt8]) throws(SRTPError)
    func unprotect(_ packet: inout [UInt8]) throws(SRTPError)
    var rtpStatistics: SRTPStatistics { get }
}

extension SRTPSession: BenchmarkSRTP {}
extension SRTPContext: BenchmarkSRTP {}
