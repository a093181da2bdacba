import SIPAuthentication
import Switchboard
import Testing

@testable import SwitchboardCLI

/// `--media-timeout S`: seconds into the provider's media timeout (off without the flag), or a usage error
/// naming the flag.
@Suite("--media-timeout")
struct MediaTimeoutFlagTests {
    static func timeout(_ values: [String: String], default defaultValue: Duration? = nil) throws(UsageError)
        -> Duration?
    {
        let needs = ProviderHarness.Needs(
            registers: false, defaultListen: nil, target: nil, defaultMediaTimeout: defaultValue)
        return try ProviderHarness.makeConfiguration(AccountOptions(values: values), needs: needs).0.mediaTimeout
    }

    @Test func secondsBecomeTheTimeout() throws {
        #expect(try Self.timeout([:]) == nil)
        #expect(try Self.timeout(["media-timeout": "60"]) == .seconds(60))
        #expect(try Self.timeout(["media-timeout": "1.5"]) == .milliseconds(1500))
        #expect(try Self.timeout(["media-timeout": "0.02"]) == .milliseconds(20))
    }

    /// `answer --auto-answer` passes a 30 s default; `off` turns any default off.
    @Test func aDefaultAppliesWithoutTheFlagAndOffTurnsItOff() throws {
        #expect(try Self.timeout([:], default: .seconds(30)) == .seconds(30))
        #expect(try Self.timeout(["media-timeout": "5"], default: .seconds(30)) == .seconds(5))
        #expect(try Self.timeout(["media-timeout": "off"], default: .seconds(30)) == nil)
        #expect(try Self.timeout(["media-timeout": "off"]) == nil)
    }

    @Test func answerHelpSaysTheAutoAnswerDefault() {
        let capture = Capture()
        #expect(SwitchboardCommand.run(["answer", "--help"], io: capture.io) == 0)
        #expect(capture.out.contains { $0.contains("no RTP for 30 s ends") })
    }

    @Test(arguments: ["", "0", "-1", "abc", "nan", "inf", "1e9", "5s"])
    func badValuesAreUsageErrors(text: String) {
        #expect(throws: UsageError.self) { try Self.timeout(["media-timeout": text]) }
    }

    @Test func badValueExits2AndNamesTheFlag() {
        let capture = Capture()
        let status = SwitchboardCommand.run(
            ["call", "sip:bob@127.0.0.1", "--listen", "127.0.0.1:0", "--media-timeout", "never"], io: capture.io)
        #expect(status == 2)
        #expect(capture.err.contains { $0.contains("--media-timeout") })
    }

    @Test func helpListsTheFlag() {
        let capture = Capture()
        #expect(SwitchboardCommand.run(["answer", "--help"], io: capture.io) == 0)
        #expect(SwitchboardCommand.run(["call", "--help"], io: capture.io) == 0)
        #expect(capture.out.filter { $0.contains("--media-timeout S") }.count == 2)
    }
}
