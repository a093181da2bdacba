/// How calls agree on SRTP keys when they use SRTP: in the SDP (SDES, RFC 4568 `a=crypto`) or by a DTLS
/// handshake on the media path whose certificates the SDP names (DTLS-SRTP, RFC 5763, RFC 5764). Answers take
/// whichever an offer uses.
///
/// A struct over a code rather than an enum, so a new way is not a breaking change: a `switch` over a keying
/// needs a `default:`.
public struct SRTPKeying: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The keyings this version knows; internal so the library's own switches stay exhaustive.
    enum Code: String, CaseIterable {
        case sdes, dtls
    }

    /// The keying's code.
    let code: Code

    /// Wraps a known code.
    init(code: Code) { self.code = code }

    /// The lower-case name: `sdes` or `dtls`.
    public var rawValue: String { code.rawValue }

    /// The keying named `rawValue` (lower case), or `nil` for a name this version does not know.
    public init?(rawValue: String) {
        guard let code = Code(rawValue: rawValue) else { return nil }
        self.init(code: code)
    }

    /// Keys in the SDP's `a=crypto` (RFC 4568).
    public static let sdes = SRTPKeying(code: .sdes)
    /// Keys from a DTLS handshake on the media path (RFC 5764 §4.2), each side's certificate checked against
    /// the `a=fingerprint` of its SDP (RFC 5763 §5).
    public static let dtls = SRTPKeying(code: .dtls)

    /// Every keying this version knows: `sdes`, `dtls`.
    public static var allCases: [SRTPKeying] { Code.allCases.map(SRTPKeying.init(code:)) }

    /// The raw value.
    public var description: String { rawValue }
}
