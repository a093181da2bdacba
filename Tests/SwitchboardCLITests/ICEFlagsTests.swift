import Foundation
import Synchronization
import Testing

@testable import Switchboard
@testable import SwitchboardCLI

/// `--stun`, `--turn`, `--turn-user`, `--turn-password` and `--ice` on `call`, `answer` and `register`, and the
/// `ice=` keys of the event lines.
@Suite("ICE flags and events")
struct ICEFlagsTests {
    static func configuration(_ values: [String: String]) throws(UsageError) -> CallProviderConfiguration {
        let needs = ProviderHarness.Needs(registers: false, defaultListen: nil, target: nil)
        return try ProviderHarness.makeConfiguration(AccountOptions(values: values), needs: needs).0
    }

    @Test func flagsBecomeServersAndAPolicy() throws {
        let none = try Self.configuration([:])
        #expect(none.stunServers.isEmpty && none.turnServers.isEmpty && none.icePolicy == nil)
        let configured = try Self.configuration([
            "stun": "192.0.2.1:3478,stun.example.com", "turn": "turn:192.0.2.2:3478?transport=tcp",
            "turn-user": "alice", "turn-password": "s3cret", "ice": "relay",
        ])
        #expect(configured.stunServers == [STUNServer(host: "192.0.2.1"), STUNServer(host: "stun.example.com")])
        #expect(configured.turnServers.first?.transport == .tcp)
        #expect(configured.turnServers.first?.password == "s3cret")
        #expect(configured.icePolicy == .relayOnly)
        #expect(try Self.configuration(["ice": "off"]).icePolicy == .off)
        let secure = try Self.configuration([
            "turn": "turns:turn.example.com", "turn-user": "alice", "turn-password": "s3cret",
        ])
        #expect(secure.turnServers.first?.port == 5349)
    }

    @Test(
        arguments: [
            ["stun": "192.0.2.1:99999"], ["stun": ""], ["ice": "maybe"],
            [
                "turn": "http://x", "turn-user": "a",
                "turn-password": "b",
            ], ["turn": "turn:192.0.2.2"], ["turn": "turn:192.0.2.2", "turn-user": "a"],
            ["turn-user": "a"], ["ice": "relay"],
        ] as [[String: String]])
    func badValuesAreUsageErrors(_ values: [String: String]) {
        #expect(throws: UsageError.self) { try Self.configuration(values) }
    }

    @Test(arguments: [
        (["--stun", "nope:nope"], "--stun"), (["--ice", "always"], "--ice"),
        (["--turn", "turn:x?transport=sctp", "--turn-user", "a", "--turn-password", "b"], "--turn"),
    ])
    func badValuesExit2AndNameTheFlag(_ flags: [String], _ name: String) {
        for command in [
            ["call", "sip:bob@127.0.0.1"], ["answer"], ["register", "--user", "a@b", "--registrar", "sip:b"],
        ] {
            let capture = Capture()
            let status = SwitchboardCommand.run(command + ["--listen", "127.0.0.1:0"] + flags, io: capture.io)
            #expect(status == 2)
            #expect(capture.err.contains { $0.contains(name) })
        }
    }

    @Test func theTURNPasswordComesFromTheEnvironmentAndNeverShows() throws {
        let parsed = try parseArguments(
            ["--turn", "turn:192.0.2.2", "--turn-user", "alice"], specs: AccountOptions.flags)
        let options = try AccountOptions.resolve(
            parsed, environment: ["SWITCHBOARD_TURN_PASSWORD": "s3cret"], readFile: { _ in nil })
        let configuration = try ProviderHarness.makeConfiguration(
            options, needs: ProviderHarness.Needs(registers: false, defaultListen: nil, target: nil)
        ).0
        #expect(configuration.turnServers.first?.password == "s3cret")
        #expect(!"\(configuration.turnServers)".contains("s3cret"))
    }

    @Test func helpListsTheFlags() {
        for command in ["call", "answer", "register"] {
            let capture = Capture()
            #expect(SwitchboardCommand.run([command, "--help"], io: capture.io) == 0)
            for flag in [
                "--stun HOST:PORT", "--turn URI", "--turn-user NAME", "--turn-password SECRET", "--ice off|on|relay",
            ] {
                #expect(capture.out.contains { $0.contains(flag) })
            }
        }
    }

    @Test func connectedAndSummaryEndWithTheMediaPath() {
        let lines = Mutex<[String]>([])
        let printer = EventPrinter(json: false) { line in lines.withLock { $0.append(line) } }
        var call = Call.outgoing(
            UUID(), account: nil, local: Handle(type: .generic, value: "sip:a@b"),
            remote: Handle(type: .generic, value: "sip:c@d"), date: Date())
        call.mediaPath = CallMediaPath(
            candidateType: .relayed, localAddress: "203.0.113.9:49170",
            remoteAddress: "198.51.100.2:50000")
        CallOutput.connected(call, printer: printer)
        CallOutput.summary(call, CallEndDetails(reason: .localEnded), printer: printer)
        CallOutput.mediaPathChanged(
            CallMediaPath(candidateType: .host, localAddress: "10.0.0.1:40000", remoteAddress: "10.0.0.2:40000"),
            printer: printer)
        let text = lines.withLock { $0 }
        #expect(text[0].hasSuffix("transport=none ice=relay local=203.0.113.9:49170 remote=198.51.100.2:50000"))
        #expect(text[1].hasSuffix("mos=0.00 ice=relay local=203.0.113.9:49170 remote=198.51.100.2:50000"))
        #expect(text[2].hasSuffix(" media-path ice=host local=10.0.0.1:40000 remote=10.0.0.2:40000"))
        call.mediaPath = nil
        CallOutput.connected(call, printer: printer)
        #expect(!(lines.withLock { $0 }.last ?? "").contains("ice="))
    }
}
