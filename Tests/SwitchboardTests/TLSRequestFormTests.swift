import Foundation
import Switchboard
import SwitchboardTesting
import Synchronization
import Testing

/// Messages a trace stream collected.
final class Collected: Sendable {
    let items = Mutex<[SIPText]>([])
}

/// Every request a TLS account builds goes to a `sips:` Request-URI with a `sips:` Contact and never says
/// `transport=tls` (RFC 3261 §8.1.1.8, RFC 5630), whatever its kind: one rule for all of them. The same rule
/// gives WS accounts `transport=ws` and WSS accounts `sips:` with `transport=ws` (RFC 7118 §5.2).
@Suite("TLS and WebSocket accounts: the form of every request", .serialized)
struct TLSRequestFormTests {
    /// The secure and WebSocket transports, with Bob's and Alice's ports for each.
    enum Flow: String, CaseIterable, Sendable, CustomStringConvertible {
        case tls, ws, wss

        var kind: SIPTransportKind {
            switch self {
            case .tls: .tls
            case .ws: .ws
            case .wss: .wss
            }
        }

        var bobPort: Int {
            switch self {
            case .tls: 5061
            case .ws: 5080
            case .wss: 5443
            }
        }

        /// How the Request-URI and the Contact start, and what they end with.
        var scheme: String { self == .ws ? "sip:" : "sips:" }
        var parameter: String? { self == .tls ? nil : ";transport=ws" }
        var description: String { rawValue }
    }

    /// The requests an account builds.
    enum Kind: String, CaseIterable, Sendable, CustomStringConvertible {
        case register, invite, subscribe, message, options
        /// The INVITE a REFER asks for, to a `sip:` Refer-To as a PBX writes it.
        case referredInvite

        var method: String {
            switch self {
            case .register: "REGISTER"
            case .invite, .referredInvite: "INVITE"
            case .subscribe: "SUBSCRIBE"
            case .message: "MESSAGE"
            case .options: "OPTIONS"
            }
        }

        /// MESSAGE makes no dialog and carries no Contact (RFC 3428).
        var hasContact: Bool { self != .message }

        var description: String { rawValue }
    }

    /// Bob listens on TLS and keeps every message he receives (his trace is open before Alice exists, so
    /// the REGISTER and SUBSCRIBE she sends at start are in it); Alice's account uses TLS. Both run in one
    /// virtual world: the TLS handshakes and the requests take virtual time only.
    final class Setup: Sendable {
        let directory: String
        let world = VirtualWorld(seed: 5)
        let bob: CallProvider
        let bobDelegate: RecordingDelegate
        let alice: CallProvider
        let aliceDelegate: RecordingDelegate
        let received = Collected()
        let tracing: Task<Void, Never>
        let bobPort: Int

        init(_ kind: Kind, flow: Flow = .tls) throws {
            bobPort = flow.bobPort
            directory =
                FileManager.default.temporaryDirectory
                .appendingPathComponent("switchboard-tlsform-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let certificate = try SelfSignedCertificate(host: "127.0.0.1", directory: directory)
            let tls = CallProviderConfiguration.TLS(
                trustedCAFile: certificate.certificateFile, certificateFile: certificate.certificateFile,
                privateKeyFile: certificate.privateKeyFile)
            bobDelegate = RecordingDelegate(world: world)
            aliceDelegate = RecordingDelegate(world: world)
            var b = CallProviderConfiguration(
                accounts: [Account(addressOfRecord: "sip:bob@127.0.0.1")],
                listeners: [.init(.udp, "127.0.0.1:5060"), .init(flow.kind, "127.0.0.1:\(bobPort)")], tls: tls)
            b.t1 = .milliseconds(100)
            bob = try world.makeProvider(configuration: b, host: "127.0.0.1")
            bob.setDelegate(bobDelegate, queue: nil)
            let traces = bob.traces
            let received = self.received
            tracing = Task {
                for await event in traces where event.direction == .received {
                    received.items.withLock { $0.append(SIPText(String(decoding: event.bytes, as: UTF8.self))) }
                }
            }
            let account = Account(
                addressOfRecord: "sip:alice@127.0.0.1",
                registrar: kind == .register ? "sip:127.0.0.1:\(bobPort)" : nil, transport: flow.kind,
                subscribesToMessageSummary: kind == .subscribe,
                messageSummaryURI: kind == .subscribe ? "sip:bob@127.0.0.1:\(bobPort)" : nil)
            var a = CallProviderConfiguration(
                accounts: [account],
                listeners: [.init(.udp, "127.0.0.1:5070"), .init(flow.kind, "127.0.0.1:\(bobPort + 10)")], tls: tls)
            a.t1 = .milliseconds(100)
            alice = try world.makeProvider(configuration: a, host: "127.0.0.1")
            alice.setDelegate(aliceDelegate, queue: nil)
        }

        var bobHandle: Handle { Handle(type: .generic, value: "sip:bob@127.0.0.1:\(bobPort)") }

        /// Lets 5 s of virtual time pass, ends both providers (which finishes Bob's trace) and returns the
        /// first request Bob received that `match` takes.
        func receivedRequest(_ match: @escaping @Sendable (SIPText) -> Bool) async -> SIPText? {
            world.advance(by: .seconds(5))
            close()
            await tracing.value
            return received.items.withLock { $0.first(where: match) }
        }

        func close() {
            alice.invalidate(timeout: .seconds(2))
            bob.invalidate(timeout: .seconds(2))
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Makes Alice send the request of `kind` (REGISTER and SUBSCRIBE leave as she starts); returns a
    /// matcher for it.
    func start(_ kind: Kind, _ setup: Setup) async throws -> @Sendable (SIPText) -> Bool {
        let method = kind.method
        let controller = CallController(provider: setup.alice)
        switch kind {
        case .register, .subscribe:
            break
        case .invite:
            _ = try await controller.startCall(to: setup.bobHandle)
        case .message:
            let message = TextMessage(
                from: Handle(type: .generic, value: "sip:alice@127.0.0.1"), to: setup.bobHandle, body: Array("hi".utf8))
            let alice = setup.alice
            _ = try await setup.world.run(within: .seconds(10)) { try await alice.send(message) }
        case .options:
            let (alice, bob) = (setup.alice, setup.bobHandle)
            #expect(try await setup.world.run(within: .seconds(10)) { try await alice.sendOptions(to: bob) } == 200)
        case .referredInvite:
            let call = try await controller.startCall(to: setup.bobHandle)
            let invite = try #require(await setup.bobDelegate.invite())
            let bobController = CallController(provider: setup.bob)
            try await bobController.answerCall(invite.callUUID)
            _ = try #require(await setup.aliceDelegate.connected(call))
            _ = try #require(await setup.bobDelegate.connected(invite.callUUID))
            try await bobController.transfer(
                invite.callUUID, to: Handle(type: .generic, value: "sip:carol@127.0.0.1:\(setup.bobPort)"))
            return { $0.startLine.hasPrefix("INVITE ") && $0.startLine.contains("carol@") }
        }
        return { $0.startLine.hasPrefix(method + " ") }
    }

    @Test(arguments: Kind.allCases)
    func requestsOfATLSAccountUseSIPS(kind: Kind) async throws {
        let setup = try Setup(kind)
        let request: SIPText?
        do {
            let match = try await start(kind, setup)
            request = await setup.receivedRequest(match)
        } catch {
            setup.close()
            throw error
        }
        let sent = try #require(request, "no \(kind.method) arrived")
        #expect(sent.startLine.hasPrefix("\(kind.method) sips:"), "\(sent.startLine)")
        if kind.hasContact {
            #expect(sent.contactURI?.hasPrefix("sips:") == true, "Contact: \(sent["Contact"] ?? "none")")
        } else {
            #expect(sent["Contact"] == nil)
        }
        let text = ([sent.startLine] + sent.headers.map { "\($0.0): \($0.1)" }).joined(separator: "\n")
        #expect(!text.lowercased().contains("transport=tls"), "\(text)")
    }

    @Test(arguments: [Flow.ws, .wss], Kind.allCases)
    func requestsOfAWebSocketAccountSayWS(flow: Flow, kind: Kind) async throws {
        let setup = try Setup(kind, flow: flow)
        let request: SIPText?
        do {
            let match = try await start(kind, setup)
            request = await setup.receivedRequest(match)
        } catch {
            setup.close()
            throw error
        }
        let sent = try #require(request, "no \(kind.method) arrived over \(flow)")
        let parameter = try #require(flow.parameter)
        #expect(sent.startLine.hasPrefix("\(kind.method) \(flow.scheme)"), "\(sent.startLine)")
        #expect(sent.startLine.contains(parameter), "\(sent.startLine)")
        if kind.hasContact {
            let contact = sent.contactURI ?? ""
            #expect(contact.hasPrefix(flow.scheme) && contact.contains(parameter), "Contact: \(contact)")
        }
        #expect(sent["Via"]?.hasPrefix("SIP/2.0/\(flow.rawValue.uppercased()) ") == true, "\(sent["Via"] ?? "")")
        let text = ([sent.startLine] + sent.headers.map { "\($0.0): \($0.1)" }).joined(separator: "\n")
        #expect(!text.lowercased().contains("transport=wss"), "\(text)")
    }
}
