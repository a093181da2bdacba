import Media
import SDP

/// The SRTP implementation a media benchmark runs (`--srtp native|libsrtp`, libsrtp by default: what MediaStream runs today).
enum SRTPBackend: String, Sendable, CaseIterable {
    /// ``SRTPContext``: RFC 3711 on OpenSSL's libcrypto, contexts made once per session.
    case native
    /// ``SRTPSession``: Debian's libsrtp2.
    case libsrtp

    /// Room to reserve after a packet for either backend's trailer.
    static let maximumTrailerLength = max(SRTPSession.maximumTrailerLength, SRTPContext.maximumTrailerLength)

    /// A one-direction AES_CM_128_HMAC_SHA1_80 session of this backend.
    func make(key: [UInt8], direction: SRTPSession.Direction) throws -> any BenchmarkSRTP {
        switch self {
        case .native: try SRTPContext(suite: .aesCM128HMACSHA1_80, masterKeySalt: key, direction: direction)
        case .libsrtp: try SRTPSession(suite: .aesCM128HMACSHA1_80, masterKeySalt: key, direction: direction)
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
