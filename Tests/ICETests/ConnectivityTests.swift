import ICE
import STUN
import Testing

/// Two agents through the virtual network: host, server-reflexive, relayed and peer-reflexive paths, loss.
@Suite("ICE connectivity between two agents")
struct ConnectivityTests {
    typealias F = Fixtures

    @Test("host pair on one LAN")
    func hostPair() throws {
        var network = VirtualNetwork()
        let aHost = F.v4("10.0.0.1", 5000)
        let bHost = F.v4("10.0.0.2", 6000)
        network.hosts = [aHost: 0, bHost: 1]
        var sim = Simulation(a: F.agent(.controlling, seed: 1), b: F.agent(.controlled, seed: 2), network: network)
        try sim.exchange(
            aLocal: [.host(address: aHost, localPreference: 65_534)],
            bLocal: [.host(address: bHost, localPreference: 65_534)])
        sim.run(until: .milliseconds(10_000)) { $0.bothCompleted }
        #expect(sim.bothCompleted)
        let a = try #require(sim.a.selectedPair(component: 1))
        let b = try #require(sim.b.selectedPair(component: 1))
        #expect(a.local.address == aHost && a.remote.address == bHost)
        #expect(b.local.address == bHost && b.remote.address == aHost)
        #expect(a.local.type == .host && a.remote.type == .host)
        #expect(sim.nominationsSent == [1, 0])
        #expect(sim.a.remoteCandidatesAttribute == [ICERemoteCandidate(component: 1, address: bHost)])
        #expect(sim.b.remoteCandidatesAttribute == nil)
        #expect(try #require(sim.selectionTime) <= 60)
        print(sim.summary("host"))
    }

    @Test("two components (rtcp-mux off) both select")
    func twoComponents() throws {
        var network = VirtualNetwork()
        let hosts = [F.v4("10.0.0.1", 5000), F.v4("10.0.0.1", 5001), F.v4("10.0.0.2", 6000), F.v4("10.0.0.2", 6001)]
        network.hosts = [hosts[0]: 0, hosts[1]: 0, hosts[2]: 1, hosts[3]: 1]
        var sim = Simulation(a: F.agent(.controlling, seed: 3), b: F.agent(.controlled, seed: 4), network: network)
        try sim.exchange(
            aLocal: [
                .host(address: hosts[0], component: 1, localPreference: 65_534),
                .host(address: hosts[1], component: 2, localPreference: 65_534),
            ],
            bLocal: [
                .host(address: hosts[2], component: 1, localPreference: 65_534),
                .host(address: hosts[3], component: 2, localPreference: 65_534),
            ])
        sim.run(until: .milliseconds(10_000)) { $0.bothCompleted }
        #expect(sim.bothCompleted)
        #expect(sim.a.selectedPair(component: 1)?.remote.address == hosts[2])
        #expect(sim.a.selectedPair(component: 2)?.remote.address == hosts[3])
        #expect(sim.b.selectedPair(component: 2)?.remote.address == hosts[1])
        #expect(sim.count(0) { $0 == .completed } == 1)
        #expect(sim.a.remoteCandidatesAttribute?.count == 2)
    }

    /// A and B on different LANs behind port-preserving NATs, with server-reflexive candidates.
    static func natted(kind: VirtualNetwork.NATKind, loss: Double = 0, relays: Bool = false, seed: UInt64 = 5)
        throws -> Simulation<Agent, Agent>
    {
        var network = VirtualNetwork()
        network.loss = loss
        network.random = SplitMix64(seed: seed &+ 77)
        let aHost = F.v4("10.0.0.1", 5000)
        let bHost = F.v4("10.1.0.2", 6000)
        network.hosts = [aHost: 0, bHost: 1]
        let natA = network.addNAT(publicIP: F.ip("198.51.100.1"), kind: kind)
        let natB = network.addNAT(publicIP: F.ip("203.0.113.2"), kind: kind)
        network.natOf = [0: natA, 1: natB]
        let aMapped = network.translate(aHost, nat: natA, to: F.stunServer)
        let bMapped = network.translate(bHost, nat: natB, to: F.stunServer)
        var aLocal: [ICECandidate] = [
            .host(address: aHost, localPreference: 65_534),
            .serverReflexive(
                address: aMapped, base: aHost, server: F.stunServer.address, localPreference: 65_534),
        ]
        var bLocal: [ICECandidate] = [
            .host(address: bHost, localPreference: 65_534),
            .serverReflexive(
                address: bMapped, base: bHost, server: F.stunServer.address, localPreference: 65_534),
        ]
        if relays {
            let aRelay = F.v4("192.0.2.100", 40_000)
            let bRelay = F.v4("192.0.2.100", 40_001)
            network.relays = [aRelay: 0, bRelay: 1]
            aLocal.append(
                .relayed(
                    address: aRelay, mappedAddress: aMapped, base: aHost, server: F.turnServer, localPreference: 65_534)
            )
            bLocal.append(
                .relayed(
                    address: bRelay, mappedAddress: bMapped, base: bHost, server: F.turnServer, localPreference: 65_534)
            )
        }
        var sim = Simulation(
            a: F.agent(.controlling, seed: seed), b: F.agent(.controlled, seed: seed + 1), network: network)
        try sim.exchange(aLocal: aLocal, bLocal: bLocal)
        return sim
    }

    @Test("server-reflexive pair through port-preserving NATs")
    func serverReflexive() throws {
        var sim = try Self.natted(kind: .portPreserving)
        sim.run(until: .milliseconds(60_000)) { $0.bothCompleted }
        #expect(sim.bothCompleted)
        let a = try #require(sim.a.selectedPair(component: 1))
        let b = try #require(sim.b.selectedPair(component: 1))
        #expect(a.local.type == .serverReflexive && a.remote.type == .serverReflexive)
        #expect(a.local.base == F.v4("10.0.0.1", 5000))
        #expect(a.remote.address == F.v4("203.0.113.2", 6000))
        #expect(b.remote.address == F.v4("198.51.100.1", 5000))
        print(sim.summary("srflx"))
    }

    @Test("both behind symmetric NATs: the relayed candidate carries the call")
    func relayNeeded() throws {
        var sim = try Self.natted(kind: .symmetric, relays: true)
        sim.run(until: .milliseconds(60_000)) { $0.bothCompleted }
        #expect(sim.bothCompleted)
        let a = try #require(sim.a.selectedPair(component: 1))
        let b = try #require(sim.b.selectedPair(component: 1))
        #expect(a.local.type == .relayed || a.remote.type == .relayed)
        #expect(b.local.type == .relayed || b.remote.type == .relayed)
        // The two ends agree on the path: what A sends to arrives where B takes it, and back.
        #expect(a.remote.address == b.local.address || b.local.type == .peerReflexive)
        print(sim.summary("relay") + " (A \(a), B \(b))")
    }

    @Test("without relays, two symmetric NATs fail")
    func symmetricFails() throws {
        var sim = try Self.natted(kind: .symmetric)
        sim.run(until: .milliseconds(120_000)) { $0.a.state == .failed && $0.b.state == .failed }
        #expect(sim.a.state == .failed && sim.b.state == .failed)
        #expect(sim.count(0) { $0 == .failed } == 1)
        #expect(sim.a.selectedPair(component: 1) == nil)
    }

    @Test("peer-reflexive candidates on both sides: symmetric NAT to a public host")
    func peerReflexive() throws {
        var network = VirtualNetwork()
        let aHost = F.v4("10.0.0.1", 5000)
        let bHost = F.v4("192.0.2.50", 6000)
        network.hosts = [aHost: 0, bHost: 1]
        let nat = network.addNAT(publicIP: F.ip("198.51.100.1"), kind: .symmetric)
        network.natOf = [0: nat]
        let aMapped = network.translate(aHost, nat: nat, to: F.stunServer)
        var sim = Simulation(a: F.agent(.controlling, seed: 11), b: F.agent(.controlled, seed: 12), network: network)
        try sim.exchange(
            aLocal: [
                .host(address: aHost, localPreference: 65_534),
                .serverReflexive(address: aMapped, base: aHost, server: F.stunServer.address, localPreference: 65_534),
            ],
            bLocal: [.host(address: bHost, localPreference: 65_534)])
        sim.run(until: .milliseconds(60_000)) { $0.bothCompleted }
        #expect(sim.bothCompleted)
        let a = try #require(sim.a.selectedPair(component: 1))
        let b = try #require(sim.b.selectedPair(component: 1))
        #expect(a.local.type == .peerReflexive && a.local.base == aHost && a.local.address != aMapped)
        #expect(b.remote.type == .peerReflexive && b.remote.address == a.local.address)
        #expect(sim.a.localCandidates.contains { $0.type == .peerReflexive })
        #expect(sim.b.remoteCandidates.contains { $0.type == .peerReflexive })
        print(sim.summary("prflx"))
    }

    @Test("20% loss each way still completes (seeded)", arguments: [21, 22, 23] as [UInt64])
    func loss(seed: UInt64) throws {
        var sim = try Self.natted(kind: .portPreserving, loss: 0.2, seed: seed)
        sim.run(until: .milliseconds(120_000)) { $0.bothCompleted }
        #expect(sim.bothCompleted)
        #expect(sim.network.dropped > 0)
        let a = try #require(sim.a.selectedPair(component: 1))
        #expect(a.local.type == .serverReflexive)
        print(sim.summary("srflx, 20% loss, seed \(seed)"))
    }

    @Test("an ice-lite peer: the full agent becomes controlling and nominates")
    func litePeer() throws {
        var network = VirtualNetwork()
        let aHost = F.v4("10.0.0.1", 5000)
        let bHost = F.v4("192.0.2.60", 6000)
        network.hosts = [aHost: 0, bHost: 1]
        var generator = SplitMix64(seed: 31)
        let lite = LitePeer(credentials: ICECredentials.random(using: &generator))
        var sim = Simulation(a: F.agent(.controlled, seed: 30), b: lite, network: network)
        sim.apply(try sim.a.addLocalCandidate(.host(address: aHost, localPreference: 65_534), at: .zero), from: 0)
        sim.apply(sim.a.setRemoteParameters(credentials: lite.credentials, isLite: true, at: .zero), from: 0)
        sim.apply(try sim.a.addRemoteCandidate(.host(address: bHost, localPreference: 65_535), at: .zero), from: 0)
        #expect(sim.a.role == .controlling)
        #expect(sim.count(0) { $0 == .roleChanged(.controlling) } == 1)
        sim.run(until: .milliseconds(10_000)) { $0.a.state == .completed }
        #expect(sim.a.state == .completed)
        #expect(sim.b.nominated == aHost)
        #expect(sim.a.selectedPair(component: 1)?.remote.address == bHost)
    }
}

/// The nomination's retransmissions (RFC 8445 §8.1.1, regular nomination) under loss.
@Suite("ICE nomination retransmissions")
struct NominationRetransmissionTests {
    typealias F = Fixtures

    /// Nineteen unreachable candidates keep the pacing term of the RTO (§14.3) at 50 ms × the pairs in
    /// progress, about a second; the nomination, on a pair already valid, retransmits at the 500 ms floor.
    @Test func aLostNominationIsRetransmittedAtTheRTOFloor() throws {
        var network = VirtualNetwork()
        let aHost = F.v4("10.0.0.1", 5000)
        let bHost = F.v4("10.0.0.2", 6000)
        network.hosts = [aHost: 0, bHost: 1]
        var sim = Simulation(a: F.agent(.controlling, seed: 11), b: F.agent(.controlled, seed: 12), network: network)
        sim.dropsNominations = true
        let unreachable = (1...19).map { ICECandidate.host(address: F.v4("10.0.9.\($0)", 7000), localPreference: 100) }
        try sim.exchange(
            aLocal: [.host(address: aHost, localPreference: 65_534)],
            bLocal: [.host(address: bHost, localPreference: 65_534)] + unreachable)
        sim.run(until: .milliseconds(6_000))
        let times = sim.nominationTimes[0]
        #expect(times.count >= 3)
        #expect(sim.selected(0).isEmpty)
        if times.count >= 3 {
            #expect(times[1].nanoseconds - times[0].nanoseconds == 500_000_000)
            #expect(times[2].nanoseconds - times[1].nanoseconds == 1_000_000_000)
        }
    }
}
