import ICE
import STUN
import Testing

/// Role conflicts (RFC 8445 §7.3.1.1, §7.2.5.1), consent freshness (RFC 7675) and ICE restart (§9).
@Suite("ICE roles, consent and restart")
struct RoleConsentRestartTests {
    typealias F = Fixtures

    static func lan(a: Agent, b: Agent) -> Simulation<Agent, Agent> {
        var network = VirtualNetwork()
        network.hosts = [F.v4("10.0.0.1", 5000): 0, F.v4("10.0.0.2", 6000): 1]
        return Simulation(a: a, b: b, network: network)
    }

    static let aLocal: [ICECandidate] = [.host(address: F.v4("10.0.0.1", 5000), localPreference: 65_534)]
    static let bLocal: [ICECandidate] = [.host(address: F.v4("10.0.0.2", 6000), localPreference: 65_534)]

    /// Seeds whose agents have A's tie-breaker above B's (`aWins`) or below.
    static func seeds(aWins: Bool) -> (UInt64, UInt64) {
        for seed in UInt64(40)..<200 {
            let a = F.agent(.controlling, seed: seed).tieBreaker
            let b = F.agent(.controlling, seed: seed + 1000).tieBreaker
            if (a > b) == aWins { return (seed, seed + 1000) }
        }
        return (0, 0)
    }

    @Test(
        "role conflict: the larger tie-breaker ends controlling, by request or by 487",
        arguments: [
            (ICERole.controlling, true), (.controlling, false), (.controlled, true), (.controlled, false),
        ])
    func roleConflict(role: ICERole, aWins: Bool) throws {
        let (seedA, seedB) = Self.seeds(aWins: aWins)
        var sim = Self.lan(a: F.agent(role, seed: seedA), b: F.agent(role, seed: seedB))
        // B answers late, so A's checks reach B first: B detects the conflict on A's request.
        try sim.exchange(aLocal: Self.aLocal, bLocal: Self.bLocal, answerDelay: .milliseconds(30))
        sim.run(until: .milliseconds(10_000)) { $0.bothCompleted }
        #expect(sim.bothCompleted)
        #expect(sim.a.role == (aWins ? .controlling : .controlled))
        #expect(sim.b.role == (aWins ? .controlled : .controlling))
        #expect(
            sim.count(0) { if case .roleChanged = $0 { true } else { false } }
                + sim.count(1) { if case .roleChanged = $0 { true } else { false } } == 1)
        #expect(sim.a.selectedPair(component: 1)?.remote.address == F.v4("10.0.0.2", 6000))
        #expect(sim.b.selectedPair(component: 1)?.remote.address == F.v4("10.0.0.1", 5000))
    }

    static func completedLAN(seed: UInt64) throws -> Simulation<Agent, Agent> {
        var sim = Self.lan(a: F.agent(.controlling, seed: seed), b: F.agent(.controlled, seed: seed + 1))
        try sim.exchange(aLocal: Self.aLocal, bLocal: Self.bLocal)
        sim.run(until: .milliseconds(5_000)) { $0.bothCompleted }
        return sim
    }

    @Test("consent is kept while responses come, and lost exactly 30 s after they stop")
    func consent() throws {
        var sim = try Self.completedLAN(seed: 50)
        #expect(sim.bothCompleted)
        sim.run(until: .milliseconds(60_000))
        #expect(sim.count(0) { if case .consentLost = $0 { true } else { false } } == 0)
        #expect(sim.a.statistics.consentRequestsSent >= 10 && sim.a.statistics.consentRequestsSent <= 16)
        sim.network.silenced = [1]
        sim.run(until: .milliseconds(200_000))
        let lastA = try #require(sim.lastSuccessReceived[0])
        let lost = try #require(sim.firstTime(0) { if case .consentLost = $0 { true } else { false } })
        #expect(lost == lastA + .seconds(30))
        let lastB = try #require(sim.lastSuccessReceived[1])
        let lostB = try #require(sim.firstTime(1) { if case .consentLost = $0 { true } else { false } })
        #expect(lostB == lastB + .seconds(30))
        #expect(sim.a.selectedPair(component: 1) == nil)
        print("ICE consent: last response \(lastA), consent lost \(lost)")
    }

    @Test("consent checks are spaced 4 to 6 s apart")
    func consentJitter() throws {
        var sim = try Self.completedLAN(seed: 60)
        let start = sim.now
        var times: [STUNInstant] = []
        while sim.now < start + .seconds(60) {
            let before = sim.a.statistics.consentRequestsSent
            sim.run(until: start + .seconds(60)) { $0.a.statistics.consentRequestsSent != before }
            if sim.a.statistics.consentRequestsSent != before { times.append(sim.now) }
        }
        #expect(times.count >= 10)
        for (earlier, later) in zip(times, times.dropFirst()) {
            let gap = later.nanoseconds - earlier.nanoseconds
            #expect(gap >= 4_000_000_000 && gap <= 6_000_000_000)
        }
        #expect(Set(zip(times, times.dropFirst()).map { $1.nanoseconds - $0.nanoseconds }).count > 1)
    }

    @Test("ICE restart: new credentials, the old pair kept until a new one is selected")
    func restart() throws {
        var sim = try Self.completedLAN(seed: 70)
        #expect(sim.bothCompleted)
        sim.run(until: sim.now + .seconds(2))
        let old = try #require(sim.a.selectedPair(component: 1))
        let oldUfrag = sim.a.localCredentials.ufrag
        var generator = SplitMix64(seed: 71)
        let restartAt = sim.now
        sim.apply(sim.a.restart(credentials: .random(using: &generator), at: sim.now), from: 0)
        sim.apply(sim.b.restart(credentials: .random(using: &generator), at: sim.now), from: 1)
        #expect(sim.a.localCredentials.ufrag != oldUfrag)
        #expect(sim.a.state == .running)
        #expect(sim.a.selectedPair(component: 1) == old)
        #expect(sim.a.pairList.isEmpty)
        // The offer/answer of the restart takes a while; media keeps the old pair meanwhile.
        sim.run(until: sim.now + .milliseconds(500))
        #expect(sim.a.selectedPair(component: 1) == old)
        try sim.signalToB(Self.aLocal)
        try sim.signalToA(Self.bLocal)
        sim.run(until: sim.now + .seconds(10)) { $0.bothCompleted }
        #expect(sim.bothCompleted)
        #expect(sim.selected(0).count == 2 && sim.selected(1).count == 2)
        #expect(sim.events.contains { $0.at > restartAt && $0.endpoint == 0 && $0.event == .completed })
        #expect(sim.a.selectedPair(component: 1)?.remote.address == old.remote.address)
        sim.run(until: sim.now + .seconds(40))
        #expect(sim.count(0) { if case .consentLost = $0 { true } else { false } } == 0)
    }
}
