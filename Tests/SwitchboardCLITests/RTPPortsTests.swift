import Switchboard
import Testing

@testable import SwitchboardCLI

/// `--rtp-ports LOW-HIGH`: parsed into the provider's media port range, or a usage error naming the flag.
@Suite("--rtp-ports")
struct RTPPortsTests {
    static func configuration(_ values: [String: String]) throws(UsageError) -> ClosedRange<UInt16> {
        let needs = ProviderHarness.Needs(registers: false, defaultListen: nil, target: nil)
        return try ProviderHarness.makeConfiguration(AccountOptions(values: values), needs: needs).0.mediaPorts
    }

    @Test func rangeBecomesTheMediaPorts() throws {
        #expect(try Self.configuration(["rtp-ports": "20000-60999"]) == 20_000...60_999)
        #expect(try Self.configuration(["rtp-ports": "1024-1025"]) == 1024...1025)
        #expect(try Self.configuration(["rtp-ports": "30000-65535"]) == 30_000...65_535)
        #expect(try Self.configuration([:]) == 40_000...49_999)
    }

    @Test(arguments: [
        "", "20000", "20000-", "-20000", "20001-21000", "21000-20000", "20000-20000", "1000-2000", "20000-70000",
        "a-b", "20000-30000-40000", "20000:30000",
    ])
    func badRangesAreUsageErrors(text: String) {
        #expect(throws: UsageError.self) { try Self.configuration(["rtp-ports": text]) }
    }

    @Test func badRangeExits2AndNamesTheFlag() {
        let capture = Capture()
        let status = SwitchboardCommand.run(
            ["answer", "--listen", "127.0.0.1:0", "--rtp-ports", "20001-20010"], io: capture.io)
        #expect(status == 2)
        #expect(capture.err.contains { $0.contains("--rtp-ports") })
    }

    @Test func helpListsTheFlag() {
        let capture = Capture()
        #expect(SwitchboardCommand.run(["answer", "--help"], io: capture.io) == 0)
        #expect(SwitchboardCommand.run(["call", "--help"], io: capture.io) == 0)
        #expect(capture.out.filter { $0.contains("--rtp-ports LOW-HIGH") }.count == 2)
    }
}
