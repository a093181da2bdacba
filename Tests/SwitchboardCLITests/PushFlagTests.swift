import Switchboard
import Testing

@testable import SwitchboardCLI

/// `--pn-provider`, `--pn-prid`, `--pn-param` (RFC 8599): the account's push registration, or a usage error
/// naming the flag that never repeats the token.
@Suite("--pn-provider, --pn-prid, --pn-param")
struct PushFlagTests {
    static func configuration(_ values: [String: String]) throws(UsageError) -> CallProviderConfiguration {
        let needs = ProviderHarness.Needs(registers: true, defaultListen: nil, target: nil)
        return try ProviderHarness.makeConfiguration(AccountOptions(values: values), needs: needs).0
    }

    static let account = ["user": "alice@example.com", "registrar": "sip:example.com"]

    @Test func theFlagsBecomeTheAccountsPushRegistration() throws {
        let values = Self.account.merging(
            ["pn-provider": "APNS", "pn-prid": "00fc13adff", "pn-param": "TEAM.com.example.voip"]) { $1 }
        let push = try #require(try Self.configuration(values).accounts.first?.push)
        #expect(push.provider == .apns)
        #expect(push.deviceToken == "00fc13adff")
        #expect(push.parameter == "TEAM.com.example.voip")
        #expect(try Self.configuration(Self.account).accounts.first?.push == nil)
    }

    @Test(arguments: [
        ["pn-provider": "apns"], ["pn-prid": "abc"], ["pn-param": "x"],
        ["pn-provider": "ap ns", "pn-prid": "abc"], ["pn-provider": "apns", "pn-prid": "a;b"],
        ["pn-provider": "apns", "pn-prid": ""],
    ])
    func incompleteOrBadValuesAreUsageErrors(values: [String: String]) {
        #expect(throws: UsageError.self) { try Self.configuration(Self.account.merging(values) { $1 }) }
    }

    @Test func aBadTokenIsNotRepeatedInTheMessage() {
        do {
            _ = try Self.configuration(Self.account.merging(["pn-provider": "fcm", "pn-prid": "secret token"]) { $1 })
            Issue.record("accepted")
        } catch {
            #expect(error.message.contains("--pn-prid"))
            #expect(!error.message.contains("secret"))
        }
    }

    @Test func withoutAnAccountTheFlagsAreAUsageError() {
        let capture = Capture()
        let status = SwitchboardCommand.run(
            ["answer", "--listen", "127.0.0.1:0", "--pn-provider", "apns", "--pn-prid", "abc"], io: capture.io)
        #expect(status == 2)
        #expect(capture.err.contains { $0.contains("--pn-provider") })
    }
}
