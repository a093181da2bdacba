/// The type of an ICE candidate (RFC 8445 §5.1.1, RFC 8839 §5.1 `cand-type`).
///
/// The SDP grammar admits types beyond the four of RFC 8445, so this is a struct with the known ones as static
/// members; a candidate of an unknown type parses, and the agent ignores it.
public struct ICECandidateType: Hashable, Sendable, CustomStringConvertible {
    /// The token as written after `typ` in SDP.
    public let name: String

    /// A type from its SDP token; the four RFC 8445 types are matched without regard to case.
    public init(name: String) {
        let lower = name.lowercased()
        self.name = ["host", "srflx", "prflx", "relay"].contains(lower) ? lower : name
    }

    /// A host candidate: an address on a local interface.
    public static let host = ICECandidateType(name: "host")
    /// A server-reflexive candidate: the address a STUN server saw.
    public static let serverReflexive = ICECandidateType(name: "srflx")
    /// A peer-reflexive candidate: an address learned from a connectivity check.
    public static let peerReflexive = ICECandidateType(name: "prflx")
    /// A relayed candidate: an address allocated on a TURN server.
    public static let relayed = ICECandidateType(name: "relay")

    /// Whether this is one of the four types of RFC 8445.
    public var isKnown: Bool { typePreference != nil }

    /// The recommended type preference of RFC 8445 §5.1.2.2 (host 126, prflx 110, srflx 100, relay 0); `nil` for
    /// types the RFC does not define.
    public var typePreference: UInt32? {
        switch name {
        case "host": 126
        case "prflx": 110
        case "srflx": 100
        case "relay": 0
        default: nil
        }
    }

    public var description: String { name }
}

/// The transport of an ICE candidate (RFC 8839 §5.1 `transport`).
///
/// RFC 8445 agents use UDP; RFC 6544 adds TCP and other documents may add more, so this is a struct. The agent
/// pairs only UDP candidates; candidates of other transports parse and print.
public struct ICETransportProtocol: Hashable, Sendable, CustomStringConvertible {
    /// The token as written in SDP, upper case for the known ones.
    public let name: String

    /// A transport from its SDP token; `udp` and `tcp` are matched without regard to case.
    public init(name: String) {
        let upper = name.uppercased()
        self.name = upper == "UDP" || upper == "TCP" ? upper : name
    }

    /// UDP, the transport of RFC 8445.
    public static let udp = ICETransportProtocol(name: "UDP")
    /// TCP (RFC 6544): parsed and printed, not paired.
    public static let tcp = ICETransportProtocol(name: "TCP")

    public var description: String { name }
}
