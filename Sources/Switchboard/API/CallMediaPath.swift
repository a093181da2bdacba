/// The candidate pair that carries a call's media, once ICE selected it (RFC 8445 §8.1.1): what the CLI prints
/// as `ice=relay local=ADDR:PORT remote=ADDR:PORT`.
public struct CallMediaPath: Sendable, Hashable, CustomStringConvertible {
    /// How the pair reaches the peer: the candidate type that matters most for the path, relay first, then
    /// peer-reflexive, server-reflexive, host (RFC 8445 §5.1.1).
    ///
    /// A struct over a code rather than an enum, so a new type is not a breaking change.
    public struct CandidateType: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        enum Code: String, CaseIterable {
            case host
            case serverReflexive = "srflx"
            case peerReflexive = "prflx"
            case relayed = "relay"
        }

        let code: Code

        init(code: Code) { self.code = code }

        /// The SDP token (RFC 8839 §5.1): `host`, `srflx`, `prflx` or `relay`.
        public var rawValue: String { code.rawValue }

        /// The type named by its SDP token, or `nil` for one this version does not know.
        public init?(rawValue: String) {
            guard let code = Code(rawValue: rawValue) else { return nil }
            self.init(code: code)
        }

        /// Both candidates are interface addresses: the peers reach each other directly.
        public static let host = CandidateType(code: .host)
        /// A NAT's mapping that a STUN server saw is on the path (RFC 8445 §5.1.1.2).
        public static let serverReflexive = CandidateType(code: .serverReflexive)
        /// A NAT's mapping learned from a connectivity check is on the path (RFC 8445 §7.2.5.3.1).
        public static let peerReflexive = CandidateType(code: .peerReflexive)
        /// The media goes through a TURN server's relay (RFC 8656).
        public static let relayed = CandidateType(code: .relayed)

        /// Every type this version knows: `host`, `srflx`, `prflx`, `relay`.
        public static var allCases: [CandidateType] { Code.allCases.map(CandidateType.init(code:)) }

        /// The raw value.
        public var description: String { rawValue }
    }

    /// How the pair reaches the peer.
    public var candidateType: CandidateType
    /// This side's candidate, `ADDR:PORT` (`[ADDR]:PORT` for IPv6): for a relayed pair, the relayed address.
    public var localAddress: String
    /// The peer's candidate, `ADDR:PORT`.
    public var remoteAddress: String

    /// - Parameters:
    ///   - candidateType: how the pair reaches the peer.
    ///   - localAddress: this side's candidate.
    ///   - remoteAddress: the peer's candidate.
    public init(candidateType: CandidateType, localAddress: String, remoteAddress: String) {
        self.candidateType = candidateType
        self.localAddress = localAddress
        self.remoteAddress = remoteAddress
    }

    /// `ice=relay local=203.0.113.9:49170 remote=198.51.100.2:3478`.
    public var description: String { "ice=\(candidateType) local=\(localAddress) remote=\(remoteAddress)" }
}
