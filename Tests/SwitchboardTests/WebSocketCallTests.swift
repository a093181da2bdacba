import Foundation
import Switchboard
import SwitchboardTesting
import Synchronization
import Testing

/// Two providers over SIP over WebSocket (RFC 7118) in one virtual world: Bob listens on
/// `ws://10.0.0.2:80/sip` (or `wss://...:443/sip`); Alice's account names that URL and has no WebSocket
/// listener, so her Via and Contact name an `.invalid` host and Bob reaches her over her connection.
@Suite("SIP over WebSocket between two providers", .serialized)
struct WebSocketCallTests {
    final class Setup {
        let world = VirtualWorld(seed: 21)
        let directory: String
        let alice: CallProvider
        let bob: CallProvider
        let aliceDelegate: RecordingDelegate
        let bobDelegate: RecordingDelegate

        /// - Parameters:
        ///   - secure: WSS with a certificate for `certificateHost`, which Alice trusts.
        ///   - url: Alice's WebSocket URL.
        init(secure: Bool = false, certificateHost: String = "10.0.0.2", url: String, registers: Bool = false) throws {
            directory =
                FileManager.default.temporaryDirectory.appendingPathComponent("sb-wscall-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let certificate = try SelfSignedCertificate(host: certificateHost, directory: directory)
            aliceDelegate = RecordingDelegate(world: world)
            bobDelegate = RecordingDelegate(world: world)
            var b = CallProviderConfiguration(
                accounts: [Account(addressOfRecord: "sip:bob@10.0.0.2")],
                listeners: [try .init(url: secure ? "wss://0.0.0.0:443/sip" : "ws://0.0.0.0:80/sip")])
            b.tls = .init(certificateFile: certificate.certificateFile, privateKeyFile: certificate.privateKeyFile)
            b.t1 = .milliseconds(100)
            bob = try world.makeProvider(configuration: b, host: "10.0.0.2")
            bob.setDelegate(bobDelegate, queue: nil)
            let account = Account(
                addressOfRecord: "sip:alice@example.com", registrar: registers ? "sip:example.com" : nil,
                webSocketURL: url)
            var a = CallProviderConfiguration(accounts: [account], listeners: [.init(.udp, "0.0.0.0:5060")])
            a.tls = .init(trustedCAFile: certificate.certificateFile)
            a.t1 = .milliseconds(100)
            alice = try world.makeProvider(configuration: a, host: "10.0.0.1")
            alice.setDelegate(aliceDelegate, queue: nil)
        }

        var wire: String {
            world.network.records.map { String(decoding: $0.bytes, as: UTF8.self) }.joined(separator: "\n")
        }

        func close() {
            alice.invalidate(timeout: .seconds(2))
            bob.invalidate(timeout: .seconds(2))
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Alice calls Bob over the WebSocket, Bob answers, and Bob hangs up: his BYE goes to Alice's
    /// `.invalid` Contact over her connection.
    func callAndHangUpFromBob(_ setup: Setup, secure: Bool) async throws {
        let call = try await CallController(provider: setup.alice).startCall(
            to: Handle(type: .generic, value: "sip:bob@10.0.0.2"))
        let invite = try #require(await setup.bobDelegate.invite(), "no INVITE reached Bob: \(setup.wire)")
        let bobController = CallController(provider: setup.bob)
        try await bobController.answerCall(invite.callUUID)
        let connected = try #require(await setup.aliceDelegate.connected(call))
        let bobConnected = try #require(await setup.bobDelegate.connected(invite.callUUID))
        #expect(connected.uuid == call)
        // Each side's call names the transport its INVITE went out or came in on.
        #expect(connected.transport == (secure ? .wss : .ws))
        #expect(bobConnected.transport == (secure ? .wss : .ws))
        try await bobController.endCall(invite.callUUID)
        let ended = try #require(await setup.aliceDelegate.ended(call), "Bob's BYE did not reach Alice")
        #expect(ended.reason == .remoteEnded)
        let wire = setup.wire
        #expect(!wire.contains("INVITE sip:"), "the client masks its frames")
        if secure {
            #expect(!wire.contains("GET /sip"), "WSS: the upgrade is encrypted")
            #expect(!wire.contains("SIP/2.0 200 OK"))
        } else {
            #expect(wire.contains("GET /sip HTTP/1.1\r\nHost: 10.0.0.2\r\n"))
            // Bob's messages are not masked: his BYE names Alice's .invalid Contact and Via says WS.
            #expect(wire.contains("BYE sip:alice@") && wire.contains(".invalid;transport=ws"))
            #expect(wire.contains("Via: SIP/2.0/WS 10.0.0.2:80;"))
        }
    }

    @Test func twoProvidersCallOverWS() async throws {
        let setup = try Setup(url: "ws://10.0.0.2/sip")
        defer { setup.close() }
        try await callAndHangUpFromBob(setup, secure: false)
    }

    @Test func twoProvidersCallOverWSSWithATrustedCertificate() async throws {
        let setup = try Setup(secure: true, url: "wss://10.0.0.2/sip")
        defer { setup.close() }
        try await callAndHangUpFromBob(setup, secure: true)
    }

    @Test func wssRefusesACertificateThatNamesAnotherHost() async throws {
        let setup = try Setup(secure: true, certificateHost: "10.0.0.9", url: "wss://10.0.0.2/sip")
        defer { setup.close() }
        let call = try await CallController(provider: setup.alice).startCall(
            to: Handle(type: .generic, value: "sip:bob@10.0.0.2"))
        let ended = try #require(await setup.aliceDelegate.ended(call))
        #expect(ended.reason == .failed)
        // The made-up 503 names the fault, and the failure is there typed.
        #expect(ended.statusCode == 503)
        #expect(ended.reasonPhrase == "TLS: certificate name mismatch")
        #expect(ended.transportFailure?.kind == .certificateNameMismatch)
        #expect(ended.transportFailure?.kind.isTLS == true)
        #expect(setup.bobDelegate.invites.isEmpty)
    }

    /// A WSS registration to a server whose certificate names another host fails as `transportClosed`,
    /// with the name mismatch typed and in the reason.
    @Test func aWSSRegistrationToTheWrongNameSaysSo() async throws {
        let setup = try Setup(secure: true, certificateHost: "10.0.0.9", url: "wss://10.0.0.2/sip", registers: true)
        defer { setup.close() }
        let failure = await setup.aliceDelegate.wait(seconds: 5) { event -> RegistrationFailure? in
            guard case .failed(let failure, _)? = event.registrationState else { return nil }
            return failure
        }
        let failed = try #require(failure, "no failed registration")
        #expect(failed.kind == .transportClosed)
        #expect(failed.transportFailure?.kind == .certificateNameMismatch)
        #expect(failed.reason.hasPrefix("TLS: certificate name mismatch ("), "\(failed.reason)")
    }

    @Test func anUpgradeToAnotherPathIsRefused() async throws {
        let setup = try Setup(url: "ws://10.0.0.2/other")
        defer { setup.close() }
        let call = try await CallController(provider: setup.alice).startCall(
            to: Handle(type: .generic, value: "sip:bob@10.0.0.2"))
        let ended = try #require(await setup.aliceDelegate.ended(call))
        #expect(ended.reason == .failed)
        #expect(setup.bobDelegate.invites.isEmpty)
        #expect(setup.wire.contains("GET /other HTTP/1.1") && setup.wire.contains("HTTP/1.1 404 Not Found"))
    }

    /// An account with a registrar and a WebSocket URL registers over the WebSocket: the REGISTER reaches the
    /// server in the RFC 7118 form, with a `.invalid` Contact and Via. (Bob is no registrar: he refuses it.)
    @Test func anAccountRegistersThroughItsWebSocketURL() async throws {
        let world = VirtualWorld(seed: 8)
        var b = CallProviderConfiguration(
            accounts: [Account(addressOfRecord: "sip:bob@10.0.0.2")],
            listeners: [try .init(url: "ws://0.0.0.0:8080/sip")])
        b.t1 = .milliseconds(100)
        let bob = try world.makeProvider(configuration: b, host: "10.0.0.2")
        let received = Collected()
        let traces = bob.traces
        let tracing = Task {
            for await event in traces where event.direction == .received {
                #expect(event.transport == .ws)
                received.items.withLock { $0.append(SIPText(String(decoding: event.bytes, as: UTF8.self))) }
            }
        }
        let account = Account(
            addressOfRecord: "sip:alice@example.com", registrar: "sip:example.com",
            webSocketURL: "ws://10.0.0.2:8080/sip")
        var a = CallProviderConfiguration(accounts: [account], listeners: [.init(.udp, "0.0.0.0:5060")])
        a.t1 = .milliseconds(100)
        let alice = try world.makeProvider(configuration: a, host: "10.0.0.1")
        world.advance(by: .seconds(5))
        alice.invalidate(timeout: .seconds(2))
        bob.invalidate(timeout: .seconds(2))
        await tracing.value
        let register = try #require(received.items.withLock { $0.first { $0.startLine.hasPrefix("REGISTER ") } })
        #expect(register.startLine == "REGISTER sip:example.com;transport=ws SIP/2.0")
        let contact = register.contactURI ?? ""
        // Outbound asked for (RFC 5626 §4.2): `;ob` on the Contact, the instance and reg-id on the binding.
        #expect(contact.hasPrefix("sip:alice@") && contact.hasSuffix(".invalid;transport=ws;ob"), "\(contact)")
        #expect(register["Contact"]?.contains("reg-id=1") == true)
        let via = register["Via"] ?? ""
        #expect(via.hasPrefix("SIP/2.0/WS ") && via.contains(".invalid;"), "\(via)")
    }

    @Test func listenerURLsParse() throws {
        let ws = try CallProviderConfiguration.Listener(url: "ws://127.0.0.1:8080/sip/ws")
        #expect(ws.transport == .ws && ws.address == "127.0.0.1:8080" && ws.resource == "/sip/ws")
        let wss = try CallProviderConfiguration.Listener(url: "wss://[::1]:0")
        #expect(wss.transport == .wss && wss.address == "[::1]:0" && wss.resource == "/")
        let defaulted = try CallProviderConfiguration.Listener(url: "ws://0.0.0.0")
        #expect(defaulted.address == "0.0.0.0:80")
        let parsed = try CallProviderConfiguration.Listener(.ws, parsing: "ws://0.0.0.0:5080/sip")
        #expect(parsed.address == "0.0.0.0:5080" && parsed.resource == "/sip")
        for bad in ["http://127.0.0.1/", "ws://", "ws://example.com/", "ws://127.0.0.1:99999/", "ws://u@1.2.3.4/"] {
            #expect(throws: CallError.self) { try CallProviderConfiguration.Listener(url: bad) }
        }
        #expect(throws: CallError.self) { try CallProviderConfiguration.Listener(.ws, parsing: "wss://0.0.0.0/") }
    }

    @Test func aBadWebSocketURLIsAConfigurationError() {
        let world = VirtualWorld(seed: 1)
        let configuration = CallProviderConfiguration(
            accounts: [Account(addressOfRecord: "sip:alice@example.com", webSocketURL: "ws:/nohost")])
        #expect(throws: CallError.self) { _ = try world.makeProvider(configuration: configuration, host: "10.0.0.1") }
    }
}
