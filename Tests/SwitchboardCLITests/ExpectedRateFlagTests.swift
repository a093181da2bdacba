import Switchboard
import Testing

@testable import SwitchboardCLI

/// `answer --expected-rate CPS`: the calls per second the provider's transaction tables are sized for up
/// front (none without the flag), or a usage error naming the flag.
@Suite("--expected-rate")
struct ExpectedRateFlagTests {
    static func configuration(_ values: [String: String]) throws(UsageError) -> CallProviderConfiguration {
        let needs = ProviderHarness.Needs(registers: false, defaultListen: nil, target: nil)
        return try ProviderHarness.makeConfiguration(AccountOptions(values: values), needs: needs).0
    }

    @Test func callsPerSecondBecomeTheExpectedRate() throws {
        #expect(try Self.configuration([:]).expectedCallRate == 0)
        #expect(try Self.configuration(["expected-rate": "2700"]).expectedCallRate == 2_700)
        #expect(try Self.configuration(["expected-rate": "0"]).expectedCallRate == 0)
    }

    @Test(arguments: ["", "-1", "abc", "1.5", "100001", "5cps"])
    func badValuesAreUsageErrors(text: String) {
        #expect(throws: UsageError.self) { try Self.configuration(["expected-rate": text]) }
    }

    @Test func badValueExits2AndNamesTheFlag() {
        let capture = Capture()
        let status = SwitchboardCommand.run(
            ["answer", "--listen", "127.0.0.1:0", "--expected-rate", "lots"], io: capture.io)
        #expect(status == 2)
        #expect(capture.err.contains { $0.contains("--expected-rate") })
    }

    @Test func helpListsTheFlag() {
        let capture = Capture()
        #expect(SwitchboardCommand.run(["answer", "--help"], io: capture.io) == 0)
        #expect(capture.out.contains { $0.contains("--expected-rate CPS") })
    }
}
