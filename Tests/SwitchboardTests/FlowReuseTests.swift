import Foundation
import SIPTransport
import Switchboard
import SwitchboardTesting
import Testing

/// A client without a TCP/TLS listener stays reachable: its Contact and Via name the connection its
/// requests leave on, so a far end that routes to the Contact (a stock PBX, or Switchboard itself, which
/// looks for a connection to the Contact's address) reuses that connection instead of opening one to
/// 5060/5061 where nothing listens (issue 19).
@Suite("Flow reuse: a Contact that names the connection", .serialized)
struct FlowReuseTests {
    /// Alice has a UDP listener only and a TCP or TLS account; Bob listens on that transport and is the
    /// far end that routes to Alice's Contact.
    final class Setup: Sendable {
        let pair: ProviderPair
        let directory: String
        let bobPort: Int

        init(_ kind: SIPTransportKind) throws {
            let port = kind == .tls ? 5061 : 5060
            bobPort = port
            directory =
                FileManager.default.temporaryDirectory
                .appendingPathComponent("switchboard-reuse-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let certificate = try SelfSignedCertificate(host: "127.0.0.1", directory: directory)
            let tls = CallProviderConfiguration.TLS(
                trustedCAFile: certificate.certificateFile, certificateFile: certificate.certificateFile,
                privateKeyFile: certificate.privateKeyFile)
            pair = try ProviderPair(
                seed: 19,
                aliceConfiguration: {
                    $0.accounts = [Account(addressOfRecord: "sip:alice@127.0.0.1", transport: kind)]
                    $0.tls = tls
                },
                bobConfiguration: {
                    $0.listeners = [.init(.udp, "127.0.0.1:\(port)"), .init(kind, "127.0.0.1:\(port)")]
                    $0.tls = tls
                })
        }

        var bobHandle: Handle { Handle(type: .generic, value: "sip:bob@127.0.0.1:\(bobPort)") }

        func close() {
            pair.close()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Alice calls Bob over a connection she opened; Bob puts the call on hold (re-INVITE) and hangs up
    /// (BYE), both sent to Alice's Contact. Both reach her: the call ends at Bob's BYE, not at a timeout.
    @Test(arguments: [SIPTransportKind.tcp, .tls])
    func theFarEndsRequestsReachAClientWithoutAListener(kind: SIPTransportKind) async throws {
        let setup = try Setup(kind)
        defer { setup.close() }
        let pair = setup.pair
        let world = try #require(pair.world)
        let alice = try await pair.aliceController.startCall(to: setup.bobHandle)
        let invite = try #require(await pair.bobDelegate.invite())
        try await pair.bobController.answerCall(invite.callUUID)
        _ = try #require(await pair.aliceDelegate.connected(alice))
        _ = try #require(await pair.bobDelegate.connected(invite.callUUID))

        try await pair.bobController.setHeld(invite.callUUID, true)
        let held = await pair.aliceDelegate.wait(seconds: 2) { event -> Bool? in
            guard event.kind == .updated, let call = event.call, call.uuid == alice, call.isRemoteHeld else {
                return nil
            }
            return true
        }
        #expect(held == true, "Bob's hold (re-INVITE) did not reach Alice")

        let before = world.loop.elapsedTime
        try await pair.bobController.endCall(invite.callUUID)
        let details = try #require(await pair.aliceDelegate.ended(alice, seconds: 2), "Bob's BYE did not reach Alice")
        #expect(details.reason == .remoteEnded)
        #expect(world.loop.elapsedTime - before < .seconds(1))
    }
}

/// A registrar scripted over a raw TCP connection in a virtual world: it routes to the Contact the way
/// Kamailio does, over the connection whose source address the Contact names.
@Suite("Flow reuse: registration over a connection", .serialized)
struct RegistrationFlowReuseTests {
    final class Setup: Sendable {
        let world = VirtualWorld(seed: 23)
        let registrar: ScriptedListener
        let alice: CallProvider
        let delegate: RecordingDelegate

        init() throws {
            registrar = try ScriptedListener(world: world, host: "127.0.0.2", port: 5060)
            delegate = RecordingDelegate(world: world)
            var configuration = CallProviderConfiguration(
                accounts: [
                    Account(addressOfRecord: "sip:alice@127.0.0.2", registrar: "sip:127.0.0.2", transport: .tcp)
                ],
                listeners: [.init(.udp, "127.0.0.1:0")])
            configuration.t1 = .milliseconds(100)
            alice = try world.makeProvider(configuration: configuration, host: "127.0.0.1")
            alice.setDelegate(delegate, queue: nil)
        }

        func close() { alice.invalidate(timeout: .seconds(2)) }
    }

    /// The 200 for a REGISTER: its Via, From, To (tagged), Call-ID, CSeq and Contact back.
    static func ok(_ request: SIPText, extra: [String] = []) -> String {
        var lines = ["SIP/2.0 200 OK"] + extra
        for name in ["Via", "From", "Call-ID", "CSeq"] {
            for value in request.all(name) { lines.append("\(name): \(value)") }
        }
        lines.append("To: \(request["To"] ?? "");tag=reg1")
        if let contact = request["Contact"] { lines.append("Contact: \(contact);expires=600") }
        lines += ["Content-Length: 0", "", ""]
        return lines.joined(separator: "\r\n")
    }

    /// The port of a `sip:` URI or Via sent-by written as `HOST:PORT` followed by `;` or `>`.
    static func port(in text: String, after host: String) -> UInt16? {
        guard let range = text.range(of: "\(host):") else { return nil }
        return UInt16(text[range.upperBound...].prefix { $0.isNumber })
    }

    /// Alice registers with no TCP listener: the REGISTER's Contact and Via name the connection's own
    /// address (with `;alias` in the Via, RFC 5923), and a call the registrar sends over that connection to
    /// the Contact arrives.
    @Test func anIncomingCallToTheBindingArrivesOverTheRegistrationsConnection() async throws {
        let setup = try Setup()
        defer { setup.close() }
        let connection = try #require(setup.registrar.accept(within: .seconds(5)))
        let source = try #require(connection.remoteAddress)
        let register = SIPText(try #require(connection.message(within: .seconds(5))))
        #expect(register.startLine.hasPrefix("REGISTER "))
        let contact = try #require(register.contactURI)
        #expect(Self.port(in: contact, after: "127.0.0.1") == source.port, "Contact \(contact), source \(source)")
        #expect(contact.contains("transport=tcp"))
        let via = try #require(register["Via"])
        #expect(Self.port(in: via, after: "127.0.0.1") == source.port, "Via \(via)")
        #expect(via.contains(";alias"), "Via \(via)")
        connection.send(Self.ok(register))
        let registered = await setup.delegate.wait(seconds: 5) { event -> Bool? in
            guard case .registered? = event.registrationState else { return nil }
            return true
        }
        #expect(registered == true)

        let sdp = [
            "v=0", "o=- 1 1 IN IP4 127.0.0.2", "s=-", "c=IN IP4 127.0.0.2", "t=0 0", "m=audio 17000 RTP/AVP 0",
            "a=rtpmap:0 PCMU/8000", "",
        ].joined(separator: "\r\n")
        let invite = [
            "INVITE \(contact) SIP/2.0", "Via: SIP/2.0/TCP 127.0.0.2:5060;branch=z9hG4bK-reuse-1",
            "Max-Forwards: 70", "From: <sip:carol@127.0.0.2>;tag=c1", "To: <sip:alice@127.0.0.2>",
            "Call-ID: reuse-invite-1", "CSeq: 1 INVITE", "Contact: <sip:carol@127.0.0.2:5060;transport=tcp>",
            "Content-Type: application/sdp", "Content-Length: \(sdp.utf8.count)", "", sdp,
        ].joined(separator: "\r\n")
        connection.send(invite)
        let arrived = try #require(await setup.delegate.invite(seconds: 5), "the INVITE did not arrive")
        #expect(arrived.from.value.contains("carol"))
    }

    /// The registrar closes the registration's connection: Alice registers again over a new one, and the
    /// new REGISTER's Contact names the new connection.
    @Test func aBrokenConnectionIsReplacedAndTheContactFollows() async throws {
        let setup = try Setup()
        defer { setup.close() }
        let first = try #require(setup.registrar.accept(within: .seconds(5)))
        let register = SIPText(try #require(first.message(within: .seconds(5))))
        first.send(Self.ok(register))
        let registered = await setup.delegate.wait(seconds: 5) { event -> Bool? in
            guard case .registered? = event.registrationState else { return nil }
            return true
        }
        #expect(registered == true)
        first.close()
        let second = try #require(setup.registrar.accept(within: .seconds(30)), "no new connection")
        let source = try #require(second.remoteAddress)
        #expect(source != first.remoteAddress)
        let again = SIPText(try #require(second.message(within: .seconds(5))))
        #expect(again.startLine.hasPrefix("REGISTER "))
        let contact = try #require(again.contactURI)
        #expect(Self.port(in: contact, after: "127.0.0.1") == source.port, "Contact \(contact), source \(source)")
        #expect(again["Call-ID"] == register["Call-ID"])
    }

    /// A registrar that confirms outbound (`Require: outbound`, `Flow-Timer: 10`): Alice's REGISTER asked for
    /// it (`;ob`, reg-id, a `urn:uuid:` instance), she pings the flow (CRLFCRLF) before the Flow-Timer runs
    /// out, and when the registrar closes the flow she registers over a new one at once (RFC 5626 §4.5), the
    /// same instance and reg-id naming the new connection.
    @Test func anOutboundFlowIsPingedAndReplacedAtOnce() async throws {
        let setup = try Setup()
        defer { setup.close() }
        let first = try #require(setup.registrar.accept(within: .seconds(5)))
        let register = SIPText(try #require(first.message(within: .seconds(5))))
        let binding = try #require(register["Contact"])
        #expect(binding.contains(";ob"), "Contact \(binding)")
        #expect(binding.contains("reg-id=1") && binding.contains("+sip.instance=\"<urn:uuid:"), "Contact \(binding)")
        #expect(register["Supported"]?.contains("outbound") == true)
        first.send(Self.ok(register, extra: ["Require: outbound", "Flow-Timer: 10"]))
        let registered = await setup.delegate.wait(seconds: 5) { event -> Bool? in
            guard case .registered? = event.registrationState else { return nil }
            return true
        }
        #expect(registered == true)
        _ = first.takeBytes()
        setup.world.advance(by: .seconds(10))
        let ping = first.takeBytes()
        #expect(ping.starts(with: [13, 10, 13, 10]), "no CRLFCRLF ping within the Flow-Timer: \(ping)")
        first.send("\r\n")

        first.close()
        let second = try #require(setup.registrar.accept(within: .seconds(1)), "no new flow at once")
        let again = SIPText(try #require(second.message(within: .seconds(2))))
        let source = try #require(second.remoteAddress)
        let contact = try #require(again.contactURI)
        #expect(Self.port(in: contact, after: "127.0.0.1") == source.port, "Contact \(contact), source \(source)")
        let instance = { (text: String) in text.components(separatedBy: "+sip.instance=").last }
        #expect(instance(try #require(again["Contact"])) == instance(binding))
    }
}
