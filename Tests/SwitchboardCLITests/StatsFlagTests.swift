import Testing

@testable import SwitchboardCLI

/// `answer --stats S`: a `stats` event every S seconds (1-3600), or a usage error naming the flag.
@Suite("--stats")
struct StatsFlagTests {
    @Test func secondsBecomeTheInterval() throws {
        #expect(try StatsReporter.interval(AccountOptions(values: [:])) == nil)
        #expect(try StatsReporter.interval(AccountOptions(values: ["stats": "10"])) == 10)
        #expect(try StatsReporter.interval(AccountOptions(values: ["stats": "2.5"])) == 2.5)
    }

    @Test(arguments: ["", "0", "-1", "abc", "3601", "10s"])
    func badValuesAreUsageErrors(text: String) {
        #expect(throws: UsageError.self) { try StatsReporter.interval(AccountOptions(values: ["stats": text])) }
    }

    @Test func badValueExits2AndNamesTheFlag() {
        let capture = Capture()
        let status = SwitchboardCommand.run(["answer", "--listen", "127.0.0.1:0", "--stats", "0"], io: capture.io)
        #expect(status == 2)
        #expect(capture.err.contains { $0.contains("--stats") })
    }

    @Test func theResidentSetIsRead() {
        #expect(StatsReporter.residentKiB() > 0)
    }
}
