import Foundation
import Switchboard
import Testing

@testable import SwitchboardCLI

/// `switchboard load URI`: bad flags exit 2 naming the flag; a short run against `answer` on loopback
/// counts its calls exactly; refused calls are failures by status and fail the run past --max-failures.
@Suite("switchboard load")
struct LoadCommandTests {
    @Test(arguments: [
        ["--rate", "0"], ["--rate", "fast"], ["--calls", "0"], ["--concurrent", "-1"], ["--ramp", "-2"],
        ["--media", "none"], ["--media", "file"], ["--max-failures", "x"], ["--stats", "0"], ["--duration", "-1"],
        ["--answer-timeout", "0"], ["--answer-timeout", "soon"],
    ])
    func badFlagsExit2AndNameTheFlag(flag: [String]) {
        let capture = Capture()
        let status = SwitchboardCommand.run(["load", "sip:bob@127.0.0.1:5999"] + flag, io: capture.io)
        #expect(status == 2)
        #expect(capture.err.contains { $0.contains(flag[0]) })
    }

    @Test func aTargetIsRequired() {
        let capture = Capture()
        #expect(SwitchboardCommand.run(["load", "--calls", "3"], io: capture.io) == 2)
        #expect(capture.err.contains { $0.contains("target URI") })
    }

    @Test func theProviderCarriesTheConcurrentCallsUnlessMaxCallsSaysOtherwise() throws {
        func configuration(_ values: [String: String]) throws -> (calls: Int, answerTimeout: Duration?, rate: Int) {
            let options = AccountOptions(values: values)
            let plan = try LoadCommand.Plan(options, target: "sip:bob@127.0.0.1")
            let made = try ProviderHarness.makeConfiguration(options, needs: plan.harnessNeeds(registers: false)).0
            return (made.maximumCalls, made.outgoingAnswerTimeout, made.expectedCallRate)
        }
        // The provider's default limit (1,000) would refuse the 1,001st of 20,000 calls meant to be up at once.
        #expect(try configuration(["concurrent": "20000"]).calls == 20_000)
        #expect(try configuration(["concurrent": "10"]).calls == 1_000)
        #expect(try configuration(["concurrent": "20000", "max-calls": "50"]).calls == 50)
        #expect(try configuration([:]).answerTimeout == .seconds(180))
        #expect(try configuration(["answer-timeout": "2.5"]).answerTimeout == .milliseconds(2_500))
        #expect(try configuration(["answer-timeout": "off"]).answerTimeout == nil)
        // The rate is the provider's expected rate, which raises the transaction limit to what it keeps alive:
        // at 8,000 calls/s each call's INVITE and BYE linger 32 s, more than the default 262,144 hold.
        #expect(try configuration(["rate": "8000"]).rate == 8_000)
        #expect(try configuration(["rate": "12.5"]).rate == 13)
    }

    @Test func theRampReachesTheRateLinearly() throws {
        let plan = try LoadCommand.Plan(
            AccountOptions(values: ["rate": "100", "calls": "1000", "ramp": "2"]), target: "x")
        #expect(plan.due(after: 0) == 1)
        #expect(plan.due(after: 1) == 26)  // 100 × 1² / (2 × 2) = 25 started, the 26th due
        #expect(plan.due(after: 2) == 101)  // the ramp's area: 100 × 2 / 2
        #expect(plan.due(after: 3) == 201)  // then the full rate
        #expect(plan.due(after: 100) == 1000)
    }

    @Test func startsWaitForALoopThatFellBehind() throws {
        let plan = try LoadCommand.Plan(
            AccountOptions(values: ["rate": "8000", "calls": "100000", "concurrent": "500"]), target: "x")
        #expect(plan.maximumQueued == 80)  // 10 ms of the rate
        // A loop keeping up: all that is due starts.
        #expect(plan.allowed(due: 40, started: 0, live: 0, queued: 0) == 40)
        // A loop that has not taken the last 70 requests gets 10 more at most, then none.
        #expect(plan.allowed(due: 400, started: 70, live: 70, queued: 70) == 10)
        #expect(plan.allowed(due: 400, started: 80, live: 80, queued: 80) == 0)
        // Once it took them, the calls still due start (up to the bound), within --concurrent.
        #expect(plan.allowed(due: 400, started: 80, live: 80, queued: 0) == 80)
        #expect(plan.allowed(due: 400, started: 380, live: 450, queued: 0) == 20)
        #expect(plan.allowed(due: 400, started: 400, live: 10, queued: 0) == 0)
        // A slow rate still lets a few wait at once.
        let slow = try LoadCommand.Plan(AccountOptions(values: ["rate": "10"]), target: "x")
        #expect(slow.maximumQueued == 16)
    }

    @Test func aShortRunAgainstAnswerCountsItsCallsExactly() async throws {
        let answer = try await InProcessAnswer.start([
            "--listen", "127.0.0.1:0", "--auto-answer", "--quiet", "--count", "12", "--rtp-ports", "18200-18299",
        ])
        let capture = Capture()
        let status = await runCommand(
            [
                "load", "sip:bob@127.0.0.1:\(answer.port)", "--calls", "12", "--rate", "40", "--concurrent", "4",
                "--duration", "0.2", "--rtp-ports", "18300-18399",
            ], io: capture.io)
        #expect(status == 0)
        let summary = try #require(capture.out.first { $0.contains(" load-summary ") })
        #expect(summary.contains(" started=12 connected=12 ended=12 failed=0 live=0 "))
        #expect(await answer.exitStatus() == 0)
        #expect(answer.capture.out.contains { $0.contains("totals calls=12 failed=0") })
    }

    @Test func refusedCallsAreFailuresByStatus() async throws {
        // One call at a time: while the first lasts its 3 s, the next two (50 and 100 ms on) get 486.
        let answer = try await InProcessAnswer.start([
            "--listen", "127.0.0.1:0", "--auto-answer", "--quiet", "--max-calls", "1", "--count", "1",
            "--rtp-ports", "18400-18499",
        ])
        let capture = Capture()
        let status = await runCommand(
            [
                "load", "sip:bob@127.0.0.1:\(answer.port)", "--calls", "3", "--rate", "20", "--duration", "3",
                "--max-failures", "1", "--rtp-ports", "18500-18599",
            ], io: capture.io)
        #expect(status == 1)
        let summary = try #require(capture.out.first { $0.contains(" load-summary ") })
        #expect(summary.contains(" started=3 connected=1 ended=3 failed=2 "))
        // Each refusal is 486 (one call at a time), or 503 when the answerer's loop was so far behind that the
        // INVITE waited over `backlogDelay` in its socket (a machine busy enough to stall it half a second):
        // both are refusals, tallied by status.
        let failures = try #require(summary.split(separator: " ").first { $0.hasPrefix("failures=") })
        let tally = failures.dropFirst("failures=".count).split(separator: ",").map { $0.split(separator: ":") }
        #expect(tally.allSatisfy { $0.count == 2 && ["486", "503"].contains($0[0]) }, "\(failures)")
        #expect(tally.reduce(0) { $0 + (Int($1.last ?? "") ?? 0) } == 2, "\(failures)")
        #expect(await answer.exitStatus() == 0)
    }
}

/// `load`'s setup-time percentiles come from a fixed histogram: within 0.6 % of the exact order statistic,
/// whatever the number of calls.
@Suite("switchboard load: setup-time histogram")
struct SetupHistogramTests {
    @Test func percentilesAreWithinTheBucketWidthOfTheExactOnes() {
        var histogram = SetupHistogram()
        var random = SystemRandomNumberGenerator()
        // Setup times from 0.05 ms to 5 s, spread over five decades.
        let times = (0..<20_000).map { _ in 0.05 * pow(10, Double.random(in: 0..<5, using: &random)) }
        for time in times { histogram.record(milliseconds: time) }
        let sorted = times.sorted()
        for p in [0.0, 0.01, 0.5, 0.9, 0.95, 0.99, 0.999, 1.0] {
            let exact = sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
            let read = histogram.percentile(p)
            #expect(abs(read - exact) / exact < 0.006, "p\(p): \(read) against \(exact)")
        }
        #expect(histogram.total == 20_000)
    }

    @Test func emptyExtremeAndRepeatedTimes() {
        var histogram = SetupHistogram()
        #expect(histogram.percentile(0.5) == 0)
        histogram.record(milliseconds: 0)
        histogram.record(milliseconds: -3)
        #expect(histogram.percentile(1) < 0.0011)
        for _ in 0..<10 { histogram.record(milliseconds: 12.5) }
        #expect(abs(histogram.percentile(0.5) - 12.5) / 12.5 < 0.006)
        histogram.record(milliseconds: 1e12)
        #expect(histogram.percentile(1) > 1_000_000)
        #expect(histogram.total == 13)
    }
}
