/// How the SRTP master keys of a session are agreed: in the SDP itself (SDES, RFC 4568 `a=crypto`) or by a
/// DTLS handshake on the media path whose certificates the SDP names (DTLS-SRTP, RFC 5763 `a=fingerprint`).
///
/// A struct over a code rather than an enum, so a new way is not a breaking change: a `switch` needs a
/// `default:`.
public struct SRTPKeying: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    enum Code: String, CaseIterable {
        case sdes, dtls
    }

    let code: Code

    init(code: Code) { self.code = code }

    /// The name, spelt as the static member (`sdes`, `dtls`).
    public var rawValue: String { code.rawValue }

    /// The keying named `rawValue`, or `nil` for a name this version does not know.
    public init?(rawValue: String) {
        guard let code = Code(rawValue: rawValue) else { return nil }
        self.init(code: code)
    }

    /// SDP security descriptions (RFC 4568): each side's key in its `a=crypto`.
    public static let sdes = SRTPKeying(code: .sdes)
    /// DTLS-SRTP (RFC 5763, RFC 5764): the keys come from a DTLS handshake on the media path, each side's
    /// certificate checked against the `a=fingerprint` of its SDP.
    public static let dtls = SRTPKeying(code: .dtls)

    /// Every keying this version knows.
    public static var allCases: [SRTPKeying] { Code.allCases.map(SRTPKeying.init(code:)) }

    public var description: String { rawValue }
}

/// What a media line's transport protocol asks of its keys.
enum RTPSecurity {
    /// `RTP/AVP`, `RTP/AVPF`: plain RTP, or SRTP as RFC 8643 opportunistic SRTP (`a=crypto` or `a=fingerprint`
    /// in a plain profile).
    case plain
    /// `RTP/SAVP`, `RTP/SAVPF`: SRTP keyed by `a=crypto`.
    case sdes
    /// `UDP/TLS/RTP/SAVP`, `UDP/TLS/RTP/SAVPF`: SRTP keyed by DTLS (RFC 5764 §8).
    case dtls
}

extension TransportProtocol {
    /// What the RTP profiles this engine runs ask of the keys; `nil` for any other protocol.
    var rtpSecurity: RTPSecurity? {
        if matches(.rtpAVP) || matches(.rtpAVPF) { return .plain }
        if matches(.rtpSAVP) || matches(.rtpSAVPF) { return .sdes }
        if matches(.udpTLSRTPSAVP) || matches(.udpTLSRTPSAVPF) { return .dtls }
        return nil
    }

    /// Whether it is a feedback profile (RFC 4585 AVPF, RFC 5124 SAVPF).
    var isFeedbackProfile: Bool {
        rawValue.utf8.last.map { $0 == UInt8(ascii: "F") || $0 == UInt8(ascii: "f") } ?? false
    }
}
