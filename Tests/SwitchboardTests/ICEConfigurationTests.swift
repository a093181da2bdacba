import Foundation
import Testing

@testable import Switchboard

/// STUN and TURN servers, the ICE policy and how a call's ICE settings follow from them.
@Suite("ICE configuration")
struct ICEConfigurationTests {
    @Test func policiesRoundTripTheirNames() {
        #expect(ICEPolicy.allCases.map(\.rawValue) == ["off", "on", "relay"])
        #expect(ICEPolicy(rawValue: "relay") == .relayOnly)
        #expect(ICEPolicy(rawValue: "auto") == nil)
        #expect(CallMediaPath.CandidateType.allCases.map(\.rawValue) == ["host", "srflx", "prflx", "relay"])
        #expect(TURNServer.Transport.allCases.map(\.rawValue) == ["udp", "tcp", "tls"])
        #expect(CallEndedReason(rawValue: "connectivityLost") == .connectivityLost)
    }

    @Test(
        arguments: [
            ("stun.example.com", "stun.example.com", 3478), ("192.0.2.1:19302", "192.0.2.1", 19302),
            ("[2001:db8::1]:3479", "2001:db8::1", 3479), ("stun:192.0.2.1", "192.0.2.1", 3478),
        ] as [(String, String, UInt16)])
    func stunServersParse(_ text: String, _ host: String, _ port: UInt16) throws {
        let server = try STUNServer(parsing: text)
        #expect(server.host == host)
        #expect(server.port == port)
    }

    @Test(arguments: ["", ":3478", "192.0.2.1:0", "192.0.2.1:99999", "a:b:c", "host/x", "[::1"])
    func badSTUNServersAreRefused(_ text: String) {
        #expect(throws: CallError.self) { try STUNServer(parsing: text) }
    }

    @Test(
        arguments: [
            ("turn:192.0.2.9", "192.0.2.9", 3478, TURNServer.Transport.udp),
            ("turn:192.0.2.9:3479?transport=udp", "192.0.2.9", 3479, .udp),
            ("turn:turn.example.com?transport=tcp", "turn.example.com", 3478, .tcp),
            ("turns:turn.example.com", "turn.example.com", 5349, .tls),
            ("turns:[2001:db8::9]:443?transport=tcp", "2001:db8::9", 443, .tls),
        ] as [(String, String, UInt16, TURNServer.Transport)])
    func turnURIsParse(_ url: String, _ host: String, _ port: UInt16, _ transport: TURNServer.Transport) throws {
        let server = try TURNServer(url: url, username: "alice", password: "s3cret")
        #expect(server.host == host)
        #expect(server.port == port)
        #expect(server.transport == transport)
    }

    @Test(arguments: ["stun:192.0.2.9", "turn:", "turn:192.0.2.9?transport=sctp", "turns:192.0.2.9?transport=udp"])
    func badTURNURIsAreRefused(_ url: String) {
        #expect(throws: CallError.self) { try TURNServer(url: url, username: "alice", password: "s3cret") }
    }

    @Test func theTURNPasswordNeverShows() throws {
        let server = try TURNServer(url: "turns:turn.example.com", username: "alice", password: "s3cret")
        var dumped = ""
        dump(server, to: &dumped)
        var account = Account(addressOfRecord: "sip:alice@example.com")
        account.turnServers = [server]
        var configuration = CallProviderConfiguration(accounts: [account])
        configuration.turnServers = [server]
        var dumpedConfiguration = ""
        dump(configuration, to: &dumpedConfiguration)
        for text in [
            server.description, server.debugDescription, "\(server)", dumped, account.description,
            "\(configuration)", dumpedConfiguration,
        ] {
            #expect(!text.contains("s3cret"))
        }
        #expect(server.description == "turns:turn.example.com:5349?transport=tcp user alice")
    }

    @Test func serversWithoutAPolicyTurnICEOn() {
        var configuration = CallProviderConfiguration()
        #expect(ICESettings.resolve(configuration, account: nil) == nil)
        configuration.stunServers = [STUNServer(host: "192.0.2.1")]
        #expect(ICESettings.resolve(configuration, account: nil)?.isRelayOnly == false)
        configuration.icePolicy = .off
        #expect(ICESettings.resolve(configuration, account: nil) == nil)
        var account = Account(addressOfRecord: "sip:alice@example.com")
        account.icePolicy = .relayOnly
        let relay = ICESettings.resolve(configuration, account: account)
        #expect(relay?.isRelayOnly == true)
        // Relay-only asks no STUN server: only relayed candidates are offered.
        #expect(relay?.stunServers == [])
        account.icePolicy = nil
        account.stunServers = []
        #expect(ICESettings.resolve(configuration, account: account) == nil)
        configuration.icePolicy = nil
        #expect(ICESettings.resolve(configuration, account: account) == nil)
        #expect(ICESettings.resolve(configuration, account: nil)?.gatheringTimeout == .seconds(3))
    }

    /// An incoming call reads its To header to find its account's ICE settings only when some account has
    /// settings of its own; otherwise every account resolves as the configuration alone does.
    @Test func onlyAccountsWithICESettingsMakeTheAccountMatter() throws {
        let alice = Account(addressOfRecord: "sip:alice@example.com")
        let plain = try AccountBook([alice, Account(addressOfRecord: "sip:bob@example.com")])
        #expect(!plain.someAccountSetsICE)
        var configuration = CallProviderConfiguration()
        configuration.stunServers = [STUNServer(host: "192.0.2.1")]
        for entry in plain.all {
            #expect(
                ICESettings.resolve(configuration, account: entry.account)
                    == ICESettings.resolve(configuration, account: nil))
        }
        var withPolicy = Account(addressOfRecord: "sip:carol@example.com")
        withPolicy.icePolicy = .off
        #expect(try AccountBook([alice, withPolicy]).someAccountSetsICE)
        var withSTUN = Account(addressOfRecord: "sip:carol@example.com")
        withSTUN.stunServers = []
        #expect(try AccountBook([withSTUN]).someAccountSetsICE)
        var withTURN = Account(addressOfRecord: "sip:carol@example.com")
        withTURN.turnServers = []
        #expect(try AccountBook([withTURN, alice]).someAccountSetsICE)
    }
}
