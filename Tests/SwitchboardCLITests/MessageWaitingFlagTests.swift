import Switchboard
import Synchronization
import Testing

@testable import SwitchboardCLI

/// `switchboard register --mwi [--mwi-uri SIPURI]` and its `mwi` event line.
@Suite("register --mwi")
struct MessageWaitingFlagTests {
    func configuration(_ arguments: [String]) throws -> CallProviderConfiguration {
        let parsed = try parseArguments(arguments, specs: RegisterCommand.flags)
        let options = try AccountOptions.resolve(parsed, environment: [:], readFile: { _ in nil })
        return try ProviderHarness.makeConfiguration(
            options, needs: .init(registers: true, defaultListen: nil, target: nil)
        ).0
    }

    @Test func theFlagsSetTheAccountsSubscription() throws {
        let base = ["--user", "alice@127.0.0.1", "--registrar", "sip:127.0.0.1:5580"]
        let plain = try #require(try configuration(base).accounts.first)
        #expect(!plain.subscribesToMessageSummary)
        let mwi = try #require(try configuration(base + ["--mwi"]).accounts.first)
        #expect(mwi.subscribesToMessageSummary)
        #expect(mwi.messageSummaryURI == nil)
        #expect(mwi.messageSummaryExpires == 3600)
        let mailbox = try #require(
            try configuration(base + ["--mwi", "--mwi-uri", "sip:*97@127.0.0.1:5581"]).accounts.first)
        #expect(mailbox.messageSummaryURI == "sip:*97@127.0.0.1:5581")
    }

    @Test func aBadMailboxURIIsAUsageError() {
        let capture = Capture()
        let status = SwitchboardCommand.run(
            ["register", "--user", "alice@127.0.0.1", "--registrar", "sip:127.0.0.1", "--mwi", "--mwi-uri", "sip:"],
            io: capture.io, environment: [:])
        #expect(status == 2)
        #expect(capture.err.first?.contains("--mwi-uri") == true)
    }

    @Test func helpMentionsTheFlagAndTheEvent() {
        let capture = Capture()
        #expect(SwitchboardCommand.run(["register", "--help"], io: capture.io) == 0)
        let help = capture.out.joined(separator: "\n")
        #expect(help.contains("--mwi"))
        #expect(help.contains("mwi waiting=yes|no voice=NEW/OLD"))
    }

    @Test func theEventLine() {
        let lines = Mutex<[String]>([])
        let printer = EventPrinter(json: false) { line in lines.withLock { $0.append(line) } }
        printMessageSummary(
            MessageSummary(messagesWaiting: true, messageAccount: "sip:*97@127.0.0.1", newMessages: 2, oldMessages: 8),
            printer: printer)
        printMessageSummary(MessageSummary(messagesWaiting: false), printer: printer)
        let out = lines.withLock { $0 }
        #expect(out[0].wholeMatch(of: #/T=\d+\.\d{3} mwi waiting=yes voice=2/8 account=sip:\*97@127\.0\.0\.1/#) != nil)
        #expect(out[1].wholeMatch(of: #/T=\d+\.\d{3} mwi waiting=no voice=0/0/#) != nil)
    }
}
