/// How a NAT maps and filters UDP (RFC 4787 §4.1, §5), and how long its mappings live (§4.3).
public struct NATBehavior: Sendable, Hashable {
    /// On what a mapping or a filter depends (RFC 4787 §4.1, §5): the three behaviours the RFC defines.
    public enum Dependence: Sendable, Hashable, CaseIterable {
        /// One mapping per inside address and port, whatever the destination; a filter that admits any remote.
        case endpointIndependent
        /// One mapping per destination IP address; a filter that admits the IP addresses the mapping sent to.
        case addressDependent
        /// One mapping per destination address and port; a filter that admits only the exact addresses and
        /// ports the mapping sent to.
        case addressAndPortDependent
    }

    /// When a host behind the NAT reuses a mapping (RFC 4787 §4.1).
    public var mapping: Dependence
    /// Which remotes may send through a mapping to the host behind it (RFC 4787 §5).
    public var filtering: Dependence
    /// How long a UDP mapping lives after the last datagram out through it (RFC 4787 §4.3: at least 2 minutes
    /// is REQ-5). Only outbound traffic refreshes it.
    public var mappingLifetime: Duration
    /// Whether a new mapping keeps the inside port when that port is free on the public address (RFC 4787 §4.2.1);
    /// otherwise, and when it is taken, the port is drawn from the network's seeded generator.
    public var preservesPorts: Bool

    /// - Parameters:
    ///   - mapping: when a mapping is reused.
    ///   - filtering: which remotes are let in.
    ///   - mappingLifetime: the UDP idle timeout; 120 s by default.
    ///   - preservesPorts: whether new mappings keep the inside port when it is free.
    public init(
        mapping: Dependence, filtering: Dependence, mappingLifetime: Duration = .seconds(120),
        preservesPorts: Bool = false
    ) {
        self.mapping = mapping
        self.filtering = filtering
        self.mappingLifetime = mappingLifetime
        self.preservesPorts = preservesPorts
    }

    /// A home router, or Linux nftables `masquerade` without `random`: endpoint-independent mapping that keeps
    /// the source port when it is free, address-and-port-dependent filtering. Server-reflexive candidates work
    /// through it once the host behind it has sent to the remote.
    public static let portPreserving = NATBehavior(
        mapping: .endpointIndependent, filtering: .addressAndPortDependent, preservesPorts: true)

    /// Linux nftables `masquerade random`: a new random port for every destination address and port, and
    /// address-and-port-dependent filtering. Only a relay gets through two of these.
    public static let symmetric = NATBehavior(
        mapping: .addressAndPortDependent, filtering: .addressAndPortDependent, preservesPorts: false)
}
