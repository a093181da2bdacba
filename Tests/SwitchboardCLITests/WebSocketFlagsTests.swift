import Switchboard
import Testing

@testable import SwitchboardCLI

/// `--transport ws|wss`, `--ws-url URL` and `--listen ws://ADDR:PORT/PATH` (RFC 7118): what the provider is
/// configured with, and usage errors that name the flag.
@Suite("WebSocket flags")
struct WebSocketFlagsTests {
    static func configuration(_ values: [String: String], defaultListen: String? = nil) throws(UsageError)
        -> CallProviderConfiguration
    {
        let needs = ProviderHarness.Needs(registers: false, defaultListen: defaultListen, target: nil)
        return try ProviderHarness.makeConfiguration(AccountOptions(values: values), needs: needs).0
    }

    @Test func aListenURLOpensAWebSocketListenerOnItsPathAndUDPBeside() throws {
        let listeners = try Self.configuration(["listen": "ws://127.0.0.1:5480/sip"]).listeners
        #expect(listeners == [.init(.ws, "127.0.0.1:5480", resource: "/sip"), .init(.udp, "127.0.0.1:5480")])
        let secure = try Self.configuration(["listen": "wss://127.0.0.1:0", "transport": "wss"]).listeners
        #expect(secure.first == .init(.wss, "127.0.0.1:0", resource: "/"))
    }

    @Test func transportWSOnAnAddressListensOnThePathRoot() throws {
        let listeners = try Self.configuration(["listen": "127.0.0.1:5480", "transport": "ws"]).listeners
        #expect(listeners.first?.transport == .ws && listeners.first?.resource == nil)
        // answer's default for WS is the scheme's port.
        let defaulted = try Self.configuration(["transport": "wss"], defaultListen: "0.0.0.0").listeners
        #expect(defaulted.first?.address == "0.0.0.0:443")
    }

    @Test func anAccountCarriesItsWebSocketURL() throws {
        let configuration = try Self.configuration([
            "user": "alice@example.com", "ws-url": "wss://edge.example.com:8443/ws",
        ])
        let account = try #require(configuration.accounts.first)
        #expect(account.webSocketURL == "wss://edge.example.com:8443/ws")
        #expect(account.transport == nil)
        let explicit = try Self.configuration([
            "user": "alice@example.com", "ws-url": "ws://10.0.0.2/", "transport": "ws",
        ])
        #expect(explicit.accounts.first?.transport == .ws)
    }

    @Test(arguments: [
        ["ws-url": "http://10.0.0.2/"], ["ws-url": "ws://"], ["ws-url": "ws:///path"], ["ws-url": "ws://a b/"],
        ["ws-url": "ws://10.0.0.2/", "transport": "wss"], ["ws-url": "wss://10.0.0.2/", "transport": "tls"],
        ["listen": "wss://127.0.0.1:0/", "transport": "ws"], ["listen": "ws://example.com/"],
        ["transport": "websocket"],
    ])
    func badValuesAreUsageErrors(values: [String: String]) {
        #expect(throws: UsageError.self) {
            try Self.configuration(["user": "alice@example.com"].merging(values) { $1 })
        }
    }

    /// Without `--user` there is no account for the URL to carry: a usage error, not a call over UDP.
    @Test func aWebSocketURLWithoutAUserIsAUsageError() {
        #expect(throws: UsageError.self) { try Self.configuration(["ws-url": "ws://10.0.0.2/"]) }
        let capture = Capture()
        let status = SwitchboardCommand.run(
            ["call", "sip:bob@127.0.0.1", "--listen", "127.0.0.1:0", "--ws-url", "ws://127.0.0.1:9/"], io: capture.io)
        #expect(status == 2)
        #expect(capture.err.contains { $0.contains("--ws-url needs --user") })
    }

    /// The `connected` line names the call's transport (CLI.md: a key added at the end of the line).
    @Test func theConnectedLineNamesTheWebSocketTransport() async throws {
        let bob = try await InProcessAnswer.start([
            "--listen", "ws://127.0.0.1:0/sip", "--auto-answer", "--count", "1", "--codecs", "pcmu",
        ])
        let call = Capture()
        let status = await runCommand(
            [
                "call", "sip:bob@127.0.0.1:\(bob.port)", "--user", "alice@127.0.0.1",
                "--ws-url", "ws://127.0.0.1:\(bob.port)/sip",
                "--duration", "0.5", "--codecs", "pcmu",
            ], io: call.io)
        #expect(status == 0)
        #expect(await bob.exitStatus() == 0)
        #expect(call.out.contains { $0.contains(" connected codec=PCMU srtp=no transport=ws") }, "\(call.out)")
        #expect(bob.capture.out.contains { $0.contains(" connected codec=PCMU srtp=no transport=ws") })
    }

    @Test func aBadWebSocketURLExits2AndNamesTheFlag() {
        let capture = Capture()
        let status = SwitchboardCommand.run(
            ["call", "sip:bob@127.0.0.1", "--user", "alice", "--ws-url", "tcp://127.0.0.1/"], io: capture.io)
        #expect(status == 2)
        #expect(capture.err.contains { $0.contains("--ws-url") })
    }
}
