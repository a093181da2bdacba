import ICE
import STUN
import Testing

/// Priorities, foundations, pair priorities and pruning (RFC 8445 §5.1.1.3, §5.1.2, §6.1.2).
@Suite("ICE candidates and priorities")
struct CandidateTests {
    static func v4(_ text: String, _ port: UInt16) -> STUNTransportAddress {
        let octets = text.split(separator: ".").compactMap { UInt32($0) }
        return STUNTransportAddress(address: .v4(octets.reduce(0) { $0 << 8 | $1 }), port: port)
    }

    @Test("§5.1.2.1: host, component 1, local preference 65535 is 2130706431")
    func hostPriority() {
        #expect(ICEPriority.candidate(type: .host, localPreference: 65_535, component: 1) == 2_130_706_431)
        #expect(ICEPriority.candidate(type: .host, localPreference: 65_535, component: 2) == 2_130_706_430)
        // The srflx example of RFC 8839 §5.1: type preference 100, local preference 65535.
        #expect(ICEPriority.candidate(type: .serverReflexive, localPreference: 65_535, component: 1) == 1_694_498_815)
        #expect(ICEPriority.candidate(type: .relayed, localPreference: 65_535, component: 1) == 16_777_215)
        #expect(ICEPriority.candidate(type: .peerReflexive, localPreference: 65_535, component: 1) == 1_862_270_975)
    }

    @Test("RFC 8421: local preference interleaves IPv6 and IPv4 across interfaces")
    func localPreference() {
        let values = [
            ICEPriority.localPreference(interfaceRank: 0, isIPv6: true),
            ICEPriority.localPreference(interfaceRank: 0, isIPv6: false),
            ICEPriority.localPreference(interfaceRank: 1, isIPv6: true),
            ICEPriority.localPreference(interfaceRank: 1, isIPv6: false),
        ]
        #expect(values == [65_535, 65_534, 65_533, 65_532])
        #expect(ICEPriority.localPreference(interfaceRank: 1_000_000, isIPv6: false) == 2)
        #expect(ICEPriority.localPreference(interfaceRank: -3, isIPv6: true) == 65_535)
    }

    @Test("§6.1.2.3: pair priority from G and D")
    func pairPriority() {
        let g: UInt32 = 2_130_706_431
        let d: UInt32 = 1_694_498_815
        #expect(ICEPriority.pair(controlling: g, controlled: d) == UInt64(d) << 32 + 2 * UInt64(g) + 1)
        #expect(ICEPriority.pair(controlling: d, controlled: g) == UInt64(d) << 32 + 2 * UInt64(g))
        // The controlling side wins ties of min and max by the last bit only.
        #expect(ICEPriority.pair(controlling: g, controlled: d) - ICEPriority.pair(controlling: d, controlled: g) == 1)
        #expect(ICEPriority.pair(controlling: 5, controlled: 5) == 5 << 32 + 10)
    }

    @Test("§5.1.1.3: foundations equal exactly for the same type, base IP, server and transport")
    func foundations() {
        let base = Self.v4("10.0.0.1", 5000)
        let other = Self.v4("10.0.0.1", 6000)
        let server = STUNIPAddress.v4(0xC633_6401)
        let a = ICECandidate.serverReflexive(
            address: Self.v4("198.51.100.1", 5000), base: base, server: server, localPreference: 65_535)
        let b = ICECandidate.serverReflexive(
            address: Self.v4("198.51.100.1", 6000), base: other, server: server, localPreference: 65_535)
        let c = ICECandidate.serverReflexive(
            address: Self.v4("198.51.100.1", 5000), base: base, server: .v4(0xC633_6402), localPreference: 65_535)
        let h = ICECandidate.host(address: base, localPreference: 65_535)
        #expect(a.foundation == b.foundation)  // same base IP, port does not count
        #expect(a.foundation != c.foundation)  // another STUN server
        #expect(a.foundation != h.foundation)  // another type
        #expect(h.foundation.utf8.count <= 32 && !h.foundation.isEmpty)
        let udp = ICEFoundation.compute(type: .host, baseAddress: base.address, server: nil, transport: .udp)
        let tcp = ICEFoundation.compute(type: .host, baseAddress: base.address, server: nil, transport: .tcp)
        #expect(udp != tcp)
        #expect(h.foundation == udp)
    }

    @Test("bases: host and relay are their own, reflexive ones their related address")
    func bases() {
        let host = Self.v4("10.0.0.1", 5000)
        let srflx = ICECandidate.serverReflexive(
            address: Self.v4("198.51.100.1", 7000), base: host, server: .v4(1), localPreference: 65_535)
        let relay = ICECandidate.relayed(
            address: Self.v4("203.0.113.9", 40000), mappedAddress: Self.v4("198.51.100.1", 7001), base: host,
            server: .v4(2), localPreference: 65_535)
        #expect(srflx.base == host)
        #expect(relay.base == relay.address)
        #expect(relay.relatedAddress == Self.v4("198.51.100.1", 7001))
        #expect(ICECandidate.host(address: host, localPreference: 1).base == host)
    }

    @Test("§6.1.2.4: a srflx local candidate is pruned to its host base; families never mix")
    func pruning() throws {
        var agent = ICEAgent(
            configuration: ICEAgentConfiguration(initialRole: .controlling),
            credentials: try ICECredentials(ufrag: "aaaa", password: "aaaaaaaaaaaaaaaaaaaaaa"),
            generator: SplitMix64(seed: 1))
        let host = Self.v4("10.0.0.1", 5000)
        _ = try agent.addLocalCandidate(.host(address: host, localPreference: 65_535), at: .zero)
        _ = try agent.addLocalCandidate(
            .serverReflexive(
                address: Self.v4("198.51.100.1", 5000), base: host, server: .v4(1), localPreference: 65_535),
            at: .zero)
        let v6 = STUNTransportAddress(address: .v6(high: 0x2001_0db8_0000_0000, low: 1), port: 5002)
        _ = try agent.addLocalCandidate(.host(address: v6, localPreference: 65_535), at: .zero)
        _ = try agent.addRemoteCandidate(.host(address: Self.v4("10.0.0.2", 6000), localPreference: 65_534), at: .zero)
        _ = try agent.addRemoteCandidate(
            .serverReflexive(
                address: Self.v4("198.51.100.2", 6000), base: Self.v4("10.0.0.2", 6000), server: .v4(1),
                localPreference: 65_534),
            at: .zero)
        let pairs = agent.pairList
        // host×host and host×srflx only: the srflx local collapses onto the host, the IPv6 host has no partner.
        #expect(pairs.count == 2)
        #expect(pairs.allSatisfy { $0.local.type == .host && $0.local.address == host })
        #expect(pairs[0].priority > pairs[1].priority)
        #expect(pairs[0].remote.type == .host)
        // The highest pair of each foundation is Waiting, the rest Frozen (§6.1.2.6).
        #expect(pairs.allSatisfy { $0.state == .waiting || $0.state == .frozen })
    }

    @Test("pairs are bounded by the configured limit")
    func pairLimit() throws {
        var configuration = ICEAgentConfiguration(initialRole: .controlling)
        configuration.maximumPairs = 5
        configuration.maximumRemoteCandidates = 20
        var agent = ICEAgent(
            configuration: configuration,
            credentials: try ICECredentials(ufrag: "aaaa", password: "aaaaaaaaaaaaaaaaaaaaaa"),
            generator: SplitMix64(seed: 2))
        _ = try agent.addLocalCandidate(.host(address: Self.v4("10.0.0.1", 5000), localPreference: 65_535), at: .zero)
        for port in 0..<20 {
            _ = try agent.addRemoteCandidate(
                .host(address: Self.v4("10.0.0.2", UInt16(6000 + port)), localPreference: 65_534), at: .zero)
        }
        #expect(agent.pairList.count == 5)
        #expect(throws: ICEAgentError.self) {
            _ = try agent.addRemoteCandidate(
                .host(address: Self.v4("10.0.0.2", 6000), localPreference: 65_534), at: .zero)
        }
        var tcp = ICECandidate.host(address: Self.v4("10.0.0.3", 1), localPreference: 1)
        tcp.transport = .tcp
        #expect(throws: ICEAgentError.self) { _ = try agent.addRemoteCandidate(tcp, at: .zero) }
    }
}

/// SplitMix64: a small seeded generator, so every run draws the same numbers.
struct SplitMix64: RandomNumberGenerator, Sendable {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
