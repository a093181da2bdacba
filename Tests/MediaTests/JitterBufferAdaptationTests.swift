import Media
import Testing

@Suite("Jitter buffer adaptation in virtual time")
struct JitterBufferAdaptationTests {
    /// The acceptance figure: on a generated trace (the distribution is documented on ``JitterTrace``: 40 ms
    /// plus max(0, N(10, 4²)) ms, 3 % Pareto(5 ms, α 2.5) spikes, and every 5 s a congestion burst of
    /// U(60, 120) ms draining over U(200, 400) ms), late loss stays under 1 % and the playout delay under the
    /// trace's 99th percentile of jitter plus 40 ms.
    @Test(arguments: [UInt64(2024), 1, 7, 19])
    func aGeneratedJitterTraceKeepsLateLossUnderOnePercent(seed: UInt64) {
        let trace = JitterTrace(packets: 3000, seed: seed)
        let simulation = JitterBufferSimulation(seconds: 60) { trace.delays[$0] }
        let result = simulation.run()
        let p99 = trace.jitterPercentile(0.99)
        // Every late packet counts, the first ones too (the estimate starting from nothing).
        let late = Double(result.statistics.late) / Double(result.packetsDelivered)
        // After the first two seconds, every frame plays within the trace's 99th percentile of jitter plus
        // 40 ms (the delay is measured from the packet's earliest possible arrival: its send time plus the
        // trace's smallest delay).
        let settled = result.playoutDelays.filter { $0.sent >= 2000 }.map(\.delay)
        let worst = settled.max() ?? .infinity
        let mean = settled.reduce(0, +) / Double(max(settled.count, 1))
        print(
            "jitter trace seed \(seed): p99 \(p99) ms, late \(late * 100) %, playout delay mean \(mean)"
                + " max \(worst) ms (bound \(p99 + 40)), \(result.statistics)")
        #expect(late < 0.01)
        #expect(worst < p99 + 40)
        #expect(result.statistics.played + result.statistics.late + result.statistics.accelerations >= 2900)
    }

    @Test(arguments: [1.001, 0.999])
    func aDriftingSenderClockKeepsTheDepthBounded(_ rate: Double) throws {
        // A sender 0.1 % fast (or slow) for 60 virtual seconds with mild jitter: 40 + |N(0, 5²)| ms.
        var generator = SeededGenerator(seed: 77)
        let delays = (0..<3100).map { _ in 40 + abs(5 * generator.normal()) }
        let simulation = JitterBufferSimulation(seconds: 60, senderClockRate: rate) { delays[$0] }
        let result = simulation.run()
        let statistics = result.statistics
        let depths = result.depths.filter { $0.time > 5 && $0.time < 60 }.map(\.depth)
        let early = depths.prefix(depths.count / 4).max() ?? 0
        let lateDepth = depths.suffix(depths.count / 4).max() ?? 0
        // From 5 s to 60 s (the start-up settled, the stream not yet ended).
        let start = try #require(result.snapshots.dropFirst(5).first)
        let end = try #require(result.snapshots.dropFirst(60).first)
        let accelerations = end.accelerations - start.accelerations
        let expansions = end.expansions - start.expansions
        let settled = result.playoutDelays.filter { $0.sent > 5000 }.map(\.delay)
        let spread = (settled.max() ?? 0) - (settled.min() ?? 0)
        print(
            "drift \(rate): depth max \(depths.max() ?? 0) (early \(early), late \(lateDepth)), 5-60 s: "
                + "\(accelerations) drops, \(expansions) stretches, delay spread \(spread) ms, \(statistics)")
        // The buffer neither grows (fast sender) nor starves (slow sender): same depth at the end as at the
        // start, at most a handful of packets.
        #expect(lateDepth <= early + 1)
        #expect(depths.max() ?? 0 <= 4)
        // 55 s at 0.1 % is 55 ms: net, two or three 20 ms frames to drop (fast) or stretch (slow). Jitter
        // adds a few stretches on underruns, each later taken back by a drop, but no hunting (before the
        // hysteresis between the drop and stretch thresholds there were 175 of each).
        let net = rate > 1 ? accelerations - expansions : expansions - accelerations
        #expect((2...4).contains(net))
        #expect(accelerations + expansions <= 20)
        #expect(Double(statistics.late) / Double(result.packetsDelivered) < 0.005)
        #expect(spread < 60)
    }

    @Test func aDelaySpikeIsAbsorbedThenTheDelayComesBackDown() {
        // 40 + |N(0, 4²)| ms, then at 10 s the path stalls for 300 ms (packets queue and arrive together).
        var generator = SeededGenerator(seed: 5)
        let delays = (0..<1500).map { i -> Double in
            let base = 40 + abs(4 * generator.normal())
            let sent = Double(i) * 20
            return sent >= 10_000 && sent < 10_300 ? base + (10_300 - sent) : base
        }
        let result = JitterBufferSimulation(seconds: 30) { delays[$0] }.run()
        let before = result.playoutDelays.filter { $0.sent > 5000 && $0.sent < 10_000 }.map(\.delay)
        let after = result.playoutDelays.filter { $0.sent > 25_000 }.map(\.delay)
        print("spike: before \(before.max() ?? 0) after \(after.max() ?? 0) ms, \(result.statistics)")
        #expect(result.statistics.accelerations > 0)
        // Back to where it was before the spike (give or take a frame), not stuck at the spike's delay.
        #expect((after.max() ?? .infinity) < (before.max() ?? 0) + 20)
    }
}
