public import STUN

/// An ICE candidate (RFC 8445 §5.1): a transport address an agent can receive on, with what SDP says of it
/// (RFC 8839 §5.1).
///
/// The base (§5.1.1) is not carried on the wire; for a local candidate the agent takes it from the type: a host
/// or relayed candidate is its own base, a server- or peer-reflexive candidate's base is its related address.
public struct ICECandidate: Hashable, Sendable {
    /// Candidates with the same type, base IP, server and transport share it (§5.1.1.3); 1 to 32 ice-chars.
    public var foundation: String
    /// The component, 1 (RTP) to 256; 2 is RTCP when rtcp-mux is off.
    public var component: Int
    /// The transport.
    public var transport: ICETransportProtocol
    /// The priority (§5.1.2).
    public var priority: UInt32
    /// The transport address.
    public var address: STUNTransportAddress
    /// The type.
    public var type: ICECandidateType
    /// `raddr`/`rport`: the base of a reflexive candidate, the mapped address of a relayed one.
    public var relatedAddress: STUNTransportAddress?
    /// The `generation` extension many agents send; `nil` when absent.
    public var generation: Int?
    /// The other extension attributes (`name value`), in order, as received.
    public var extensions: [ICECandidateExtension]

    /// - Parameters:
    ///   - foundation: the foundation.
    ///   - component: the component ID.
    ///   - transport: the transport, UDP by default.
    ///   - priority: the priority.
    ///   - address: the transport address.
    ///   - type: the candidate type.
    ///   - relatedAddress: the related address, if any.
    ///   - generation: the `generation` extension, if any.
    ///   - extensions: other extension attributes.
    public init(
        foundation: String, component: Int, transport: ICETransportProtocol = .udp, priority: UInt32,
        address: STUNTransportAddress, type: ICECandidateType, relatedAddress: STUNTransportAddress? = nil,
        generation: Int? = nil, extensions: [ICECandidateExtension] = []
    ) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.type = type
        self.relatedAddress = relatedAddress
        self.generation = generation
        self.extensions = extensions
    }

    /// The base when this is a local candidate (§5.1.1): the address itself for host and relayed candidates, the
    /// related address for reflexive ones.
    public var base: STUNTransportAddress {
        switch type {
        case .serverReflexive, .peerReflexive: relatedAddress ?? address
        default: address
        }
    }

    /// A host candidate with its priority and foundation computed (§5.1.1.1, §5.1.2.1, §5.1.1.3).
    /// - Parameters:
    ///   - address: the interface address and port.
    ///   - component: the component ID.
    ///   - localPreference: see ``ICEPriority/localPreference(interfaceRank:isIPv6:)``.
    public static func host(address: STUNTransportAddress, component: Int = 1, localPreference: UInt16)
        -> ICECandidate
    {
        make(.host, address: address, base: address, server: nil, related: nil, component, localPreference)
    }

    /// A server-reflexive candidate learned from `server` for `base`.
    /// - Parameters:
    ///   - address: the mapped address the STUN server returned.
    ///   - base: the host candidate the request left from.
    ///   - server: the STUN server's IP address (part of the foundation).
    ///   - component: the component ID.
    ///   - localPreference: the base's local preference.
    public static func serverReflexive(
        address: STUNTransportAddress, base: STUNTransportAddress, server: STUNIPAddress, component: Int = 1,
        localPreference: UInt16
    ) -> ICECandidate {
        make(.serverReflexive, address: address, base: base, server: server, related: base, component, localPreference)
    }

    /// A relayed candidate allocated on the TURN server `server`.
    /// - Parameters:
    ///   - address: the relayed transport address.
    ///   - mappedAddress: the server-reflexive address the TURN server saw (the related address).
    ///   - base: the host candidate the allocation was made from (part of the foundation).
    ///   - server: the TURN server's IP address.
    ///   - component: the component ID.
    ///   - localPreference: the local preference.
    public static func relayed(
        address: STUNTransportAddress, mappedAddress: STUNTransportAddress, base: STUNTransportAddress,
        server: STUNIPAddress, component: Int = 1, localPreference: UInt16
    ) -> ICECandidate {
        make(.relayed, address: address, base: base, server: server, related: mappedAddress, component, localPreference)
    }

    private static func make(
        _ type: ICECandidateType, address: STUNTransportAddress, base: STUNTransportAddress, server: STUNIPAddress?,
        related: STUNTransportAddress?, _ component: Int, _ localPreference: UInt16
    ) -> ICECandidate {
        ICECandidate(
            foundation: ICEFoundation.compute(type: type, baseAddress: base.address, server: server, transport: .udp),
            component: component,
            priority: ICEPriority.candidate(type: type, localPreference: localPreference, component: component),
            address: address, type: type, relatedAddress: related)
    }
}

/// An extension attribute of a candidate line (RFC 8839 §5.1 `cand-extension`): a name and a value.
public struct ICECandidateExtension: Hashable, Sendable {
    /// The name (a token).
    public var name: String
    /// The value (a byte-string: no space, CR, LF or NUL).
    public var value: String

    /// - Parameters:
    ///   - name: the name.
    ///   - value: the value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Candidate and pair priorities (RFC 8445 §5.1.2, §6.1.2.3).
public enum ICEPriority {
    /// `2^24 × type preference + 2^8 × local preference + (256 − component ID)` (§5.1.2.1); types the RFC does not
    /// define get type preference 0, and a component outside 1...256 is clamped.
    public static func candidate(type: ICECandidateType, localPreference: UInt16, component: Int) -> UInt32 {
        candidate(typePreference: type.typePreference ?? 0, localPreference: localPreference, component: component)
    }

    /// The same formula with an explicit type preference (0...126; larger values are clamped).
    public static func candidate(typePreference: UInt32, localPreference: UInt16, component: Int) -> UInt32 {
        let clamped = UInt32(min(max(component, 1), 256))
        return min(typePreference, 126) << 24 | UInt32(localPreference) << 8 | (256 - clamped)
    }

    /// A local preference (§5.1.2.1) that orders interfaces by rank (0 the most preferred) and, on each, IPv6
    /// before IPv4, interleaving the families across interfaces as RFC 8421 §4 recommends: rank 0 IPv6 65535,
    /// rank 0 IPv4 65534, rank 1 IPv6 65533, ... Ranks above 32,766 count as 32,766.
    public static func localPreference(interfaceRank: Int, isIPv6: Bool) -> UInt16 {
        let rank = min(max(interfaceRank, 0), 32_766)
        return UInt16(65_535 - 2 * rank - (isIPv6 ? 0 : 1))
    }

    /// The pair priority `2^32 × min(G, D) + 2 × max(G, D) + (G > D ? 1 : 0)` (§6.1.2.3), where G is the
    /// controlling agent's candidate priority and D the controlled agent's.
    public static func pair(controlling g: UInt32, controlled d: UInt32) -> UInt64 {
        UInt64(min(g, d)) << 32 + 2 * UInt64(max(g, d)) + (g > d ? 1 : 0)
    }
}

/// Foundations (RFC 8445 §5.1.1.3).
public enum ICEFoundation {
    /// A foundation equal for candidates with the same type, base IP address, server IP address and transport,
    /// and different otherwise but for hash collisions: the decimal FNV-1a hash of those four, 1 to 10 digits.
    /// A collision only makes two foundations unfreeze together; it never breaks a check.
    public static func compute(
        type: ICECandidateType, baseAddress: STUNIPAddress, server: STUNIPAddress?, transport: ICETransportProtocol
    ) -> String {
        var hash: UInt32 = 0x811C_9DC5
        func mix(_ bytes: some Sequence<UInt8>) {
            for byte in bytes {
                hash ^= UInt32(byte)
                hash = hash &* 0x0100_0193
            }
            hash ^= 0xFF
            hash = hash &* 0x0100_0193
        }
        mix(type.name.utf8)
        mix(baseAddress.bytes)
        mix(server?.bytes ?? [])
        mix(transport.name.utf8)
        return String(hash)
    }
}
