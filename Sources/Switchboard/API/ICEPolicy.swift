/// Whether calls find their media path with ICE (RFC 8445), and with which of their candidates.
///
/// A struct over a code rather than an enum, so a new policy is not a breaking change: a `switch` over a
/// policy needs a `default:`.
public struct ICEPolicy: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The policies this version knows; internal so the library's own switches stay exhaustive.
    enum Code: String, CaseIterable {
        case off, on
        case relayOnly = "relay"
    }

    /// The policy's code.
    let code: Code

    /// Wraps a known code.
    init(code: Code) { self.code = code }

    /// The name the CLI takes: `off`, `on` or `relay`.
    public var rawValue: String { code.rawValue }

    /// The policy named `rawValue` (`off`, `on`, `relay`), or `nil` for a name this version does not know.
    public init?(rawValue: String) {
        guard let code = Code(rawValue: rawValue) else { return nil }
        self.init(code: code)
    }

    /// No ICE: the SDP carries the media socket's address, and symmetric RTP latching (RFC 4961) follows
    /// where the peer's packets come from.
    public static let off = ICEPolicy(code: .off)
    /// ICE with host, server-reflexive (STUN) and relayed (TURN) candidates (RFC 8445 §5.1.1); a peer without
    /// ICE still gets a plain call on the c=/m= address.
    public static let on = ICEPolicy(code: .on)
    /// ICE with relayed candidates only: only the TURN allocation's address is offered and paired, so the
    /// peer never learns this side's own addresses (RFC 8445 §5.1.1, "relay-only" as WebRTC's policy).
    public static let relayOnly = ICEPolicy(code: .relayOnly)

    /// Every policy this version knows, in the order `off`, `on`, `relay`.
    public static var allCases: [ICEPolicy] { Code.allCases.map(ICEPolicy.init(code:)) }

    /// The raw value.
    public var description: String { rawValue }
}
