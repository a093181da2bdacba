import Foundation
import SIPTransport
import SwitchboardTesting
import Synchronization
import Testing

@testable import Switchboard

/// A call reported from a VoIP push before its INVITE (issue 18), in virtual time: a suspended app (no
/// registration) is handed the push payload, reports the call at once, registers again, and the INVITE
/// the proxy then forwards is bound to the same call UUID. The proxy and caller is a scripted peer.
@Suite("CallProvider: calls reported from a push")
struct PushWakeTests {
    private struct App {
        let world: VirtualWorld
        let provider: CallProvider
        let delegate: RecordingDelegate
        let proxy: ScriptedPeer
        let address: SocketAddress

        init(
            push: PushRegistration? = nil, registersOnStart: Bool = false,
            _ configure: (inout CallProviderConfiguration) -> Void = { _ in }
        ) throws {
            world = VirtualWorld()
            delegate = RecordingDelegate(world: world)
            proxy = try ScriptedPeer(world: world, host: "127.0.0.2")
            let account = Account(
                addressOfRecord: "sip:bob@127.0.0.2", id: "bob", registrar: "sip:127.0.0.2:\(proxy.address.port)",
                registersOnStart: registersOnStart, push: push)
            var configuration = CallProviderConfiguration(
                accounts: [account], listeners: [.init(.udp, "127.0.0.1:5060")])
            configure(&configuration)
            provider = try world.makeProvider(configuration: configuration, host: "127.0.0.1")
            provider.setDelegate(delegate, queue: nil)
            address = try #require(SocketAddress(ip: "127.0.0.1", port: 5060))
        }

        func close() {
            provider.invalidate(timeout: .seconds(2))
            proxy.close()
        }

        /// Runs the world until `condition` holds (at most `limit` of virtual time).
        @discardableResult
        func run(within limit: Duration = .seconds(2), until condition: () -> Bool) -> Bool {
            world.run(until: condition, within: limit)
        }

        func events(_ kind: CallProviderEvent.Kind) -> [CallProviderEvent] {
            delegate.events.withLock { $0.filter { $0.kind == kind } }
        }

        /// The next message the proxy receives that starts with `prefix` (skipping others).
        func next(_ prefix: String, within limit: Duration = .seconds(3)) -> String? {
            for _ in 0..<16 {
                guard let text = proxy.receive(within: limit) else { return nil }
                if text.hasPrefix(prefix) { return text }
            }
            return nil
        }

        /// Answers the REGISTER the push caused with 200, and returns it.
        func acceptRegistration() throws -> String {
            let register = try #require(next("REGISTER "))
            proxy.send(
                PushWakeTests.ok(
                    register,
                    extra: "Contact: \(PushWakeTests.field("Contact", of: register) ?? "")\r\nExpires: 600\r\n"),
                to: address)
            return register
        }

        func sendInvite(callID: String, from caller: String = "sip:alice@127.0.0.2") {
            let body =
                "v=0\r\no=- 1 1 IN IP4 127.0.0.2\r\ns=-\r\nc=IN IP4 127.0.0.2\r\nt=0 0\r\n"
                + "m=audio 6000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n"
            let port = proxy.address.port
            proxy.send(
                "INVITE sip:bob@127.0.0.1:5060 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.2:\(port);branch=z9hG4bK-\(callID)\r\n"
                    + "Max-Forwards: 70\r\nTo: <sip:bob@127.0.0.2>\r\nFrom: \"Alice\" <\(caller)>;tag=a-\(callID)\r\n"
                    + "Call-ID: \(callID)\r\nCSeq: 1 INVITE\r\nContact: <sip:alice@127.0.0.2:\(port)>\r\n"
                    + "Content-Type: application/sdp\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)",
                to: address)
        }

        /// The first final response to `callID`'s INVITE.
        func finalResponse(to callID: String) -> String? {
            for _ in 0..<16 {
                guard let text = proxy.receive(within: .seconds(3)) else { return nil }
                if text.hasPrefix("SIP/2.0 "), !text.hasPrefix("SIP/2.0 1"), text.contains("Call-ID: \(callID)\r\n") {
                    return text
                }
            }
            return nil
        }

        func answer(_ uuid: UUID) {
            CallController(provider: provider).request(CallTransaction(action: AnswerCallAction(call: uuid))) { _ in }
        }

        func decline(_ uuid: UUID) {
            CallController(provider: provider).request(CallTransaction(action: EndCallAction(call: uuid))) { _ in }
        }
    }

    static func isRegistered(_ state: RegistrationState?) -> Bool {
        if case .registered? = state { true } else { false }
    }

    static func field(_ name: String, of message: String) -> String? {
        message.split(separator: "\r\n").first { $0.hasPrefix("\(name): ") }.map {
            String($0.dropFirst(name.count + 2))
        }
    }

    /// A 200 for `request`, with its Via, From, To (tagged), Call-ID and CSeq.
    static func ok(_ request: String, extra: String = "") -> String {
        let lines = request.split(separator: "\r\n")
        let copied = lines.filter { line in
            ["Via: ", "From: ", "Call-ID: ", "CSeq: "].contains { line.hasPrefix($0) }
        }
        let to = lines.first { $0.hasPrefix("To: ") } ?? "To: <sip:bob@127.0.0.2>"
        return "SIP/2.0 200 OK\r\n" + copied.joined(separator: "\r\n") + "\r\n\(to);tag=proxy\r\n" + extra
            + "Content-Length: 0\r\n\r\n"
    }

    @Test func aPushReportsTheCallAtOnceAndItsInviteIsBoundToTheSameUUID() throws {
        let app = try App()
        defer { app.close() }
        let uuid = app.provider.reportPushPayload([
            "call-id": "push-1", "from": "sip:alice@127.0.0.2", "caller-name": "Alice",
        ])
        #expect(app.run { !app.events(.invite).isEmpty })
        let invite = try #require(app.events(.invite).first?.invite)
        #expect(invite.callUUID == uuid)
        #expect(invite.callID == "push-1")
        #expect(invite.from.value == "sip:alice@127.0.0.2")
        #expect(invite.callerName == "Alice")
        #expect(invite.account == "bob")
        #expect(app.provider.call(with: uuid)?.state == .ringing)

        // The push woke the account: it registers again, so the proxy can forward the INVITE.
        _ = try app.acceptRegistration()
        app.sendInvite(callID: "push-1")
        #expect(app.run { !app.events(.inviteArrived).isEmpty })
        let arrived = try #require(app.events(.inviteArrived).first?.invite)
        #expect(arrived.callUUID == uuid)
        #expect(arrived.offeredCodecs == ["PCMU"])
        #expect(arrived.header("CSeq") == "1 INVITE")
        #expect(app.events(.invite).count == 1)
        #expect(app.provider.calls.count == 1)

        app.answer(uuid)
        let ok = try #require(app.finalResponse(to: "push-1"))
        #expect(ok.hasPrefix("SIP/2.0 200"))
    }

    @Test func anAnswerGivenBeforeTheInviteGoesOutTheMomentItArrives() throws {
        let app = try App()
        defer { app.close() }
        let uuid = app.provider.reportPushPayload(["call-id": "early-answer"])
        _ = try app.acceptRegistration()
        app.answer(uuid)
        #expect(app.run { app.provider.call(with: uuid)?.state == .answering })

        app.sendInvite(callID: "early-answer")
        let ok = try #require(app.finalResponse(to: "early-answer"))
        #expect(ok.hasPrefix("SIP/2.0 200"))
        #expect(app.events(.invite).count == 1)
    }

    @Test func aSecondPushForTheSameCallReportsNothingTwice() throws {
        let app = try App()
        defer { app.close() }
        let first = app.provider.reportPushPayload(["call-id": "twice"])
        let second = app.provider.reportPushPayload(["call-id": "twice"])
        #expect(first == second)
        app.world.advance(by: .seconds(1))
        #expect(app.events(.invite).count == 1)
        #expect(app.provider.calls.count == 1)
        // And a push that comes after its INVITE names the call the INVITE made.
        app.sendInvite(callID: "invite-first")
        #expect(app.run { app.events(.invite).count == 2 })
        let ringing = try #require(app.events(.invite).last?.invite)
        #expect(app.provider.reportPushPayload(["call-id": "invite-first"]) == ringing.callUUID)
    }

    @Test(arguments: [
        (["type": "cancel", "call-id": "c"], CallEndedReason.unanswered),
        (["type": "cancel", "call-id": "c", "reason": "answered-elsewhere"], .answeredElsewhere),
        (["type": "cancel", "call-id": "c", "reason": "declined-elsewhere"], .declinedElsewhere),
    ])
    func aCancelPushBeforeTheInviteCancelsTheInviteWithItsReason(cancel: [String: String], reason: CallEndedReason)
        throws
    {
        let app = try App()
        defer { app.close() }
        let uuid = app.provider.reportPushPayload(["call-id": "c"])
        #expect(app.provider.reportPushPayload(cancel) == uuid)
        #expect(app.run { !app.events(.inviteCancelled).isEmpty })
        let cancelled = try #require(app.events(.inviteCancelled).first?.cancelledInvite)
        #expect(cancelled.callUUID == uuid)
        #expect(cancelled.reason == reason)
        #expect(app.provider.call(with: uuid) == nil)
    }

    @Test func aCancelPushForACallNeverReportedIsReportedThenCancelled() throws {
        let app = try App()
        defer { app.close() }
        let uuid = app.provider.reportPushPayload(["type": "cancel", "call-id": "unknown"])
        #expect(app.run { !app.events(.inviteCancelled).isEmpty })
        #expect(app.events(.invite).first?.invite?.callUUID == uuid)
        #expect(app.events(.inviteCancelled).first?.cancelledInvite?.callUUID == uuid)
    }

    @Test func noInviteInTimeFailsTheReportedCall() throws {
        let app = try App { $0.pushInviteTimeout = .seconds(15) }
        defer { app.close() }
        let pushedAt = app.world.loop.now
        let uuid = app.provider.reportPushPayload(["call-id": "never"])
        #expect(app.run(within: .seconds(20)) { !app.events(.ended).isEmpty })
        let waited = app.world.loop.now - pushedAt
        #expect(waited >= .seconds(15) && waited < .seconds(16))
        let ended = try #require(app.events(.ended).first)
        #expect(ended.callUUID == uuid)
        #expect(ended.endDetails?.reason == .failed)
        #expect(app.events(.inviteCancelled).isEmpty)
    }

    @Test func aCallDeclinedBeforeItsInviteHasTheInviteRefusedWith603() throws {
        let app = try App()
        defer { app.close() }
        let uuid = app.provider.reportPushPayload(["call-id": "declined"])
        app.decline(uuid)
        #expect(app.run { !app.events(.ended).isEmpty })
        #expect(app.events(.ended).first?.endDetails?.reason == .localEnded)
        app.sendInvite(callID: "declined")
        #expect(try #require(app.finalResponse(to: "declined")).hasPrefix("SIP/2.0 603"))
        #expect(app.events(.invite).count == 1)
    }

    @Test func withoutACallIDTheInviteFromTheNamedCallerIsTheOne() throws {
        let app = try App()
        defer { app.close() }
        let uuid = app.provider.reportPushPayload(["from": "sip:carol@127.0.0.2"])
        // Someone else calls first: a call of its own.
        app.sendInvite(callID: "from-dave", from: "sip:dave@127.0.0.2")
        #expect(app.run { app.events(.invite).count == 2 })
        #expect(app.events(.invite).last?.invite?.callUUID != uuid)
        // Carol's INVITE is the pushed call.
        app.sendInvite(callID: "from-carol", from: "sip:Carol@127.0.0.2")
        #expect(app.run { !app.events(.inviteArrived).isEmpty })
        #expect(app.events(.inviteArrived).first?.invite?.callUUID == uuid)
        #expect(app.provider.call(with: uuid)?.callID == "from-carol")
    }

    @Test func pastTheLimitTheOldestWaitingCallFails() throws {
        let app = try App { $0.maximumPendingPushedCalls = 2 }
        defer { app.close() }
        let oldest = app.provider.reportPushPayload(["call-id": "p1"])
        app.provider.reportPushPayload(["call-id": "p2"])
        app.provider.reportPushPayload(["call-id": "p3"])
        #expect(app.run { !app.events(.ended).isEmpty })
        #expect(app.events(.ended).map(\.callUUID) == [oldest])
        #expect(app.provider.calls.count == 2)
    }

    @Test func payloadValuesAreReadAndBounded() {
        let payload = PushPayload([
            "type": "CANCEL", "call-id": " abc ", "from": "tel:+15551234", "reason": "answered-elsewhere",
            "caller-name": String(repeating: "x", count: 5000), "unknown": "kept out",
        ])
        #expect(payload.kind == .cancel)
        #expect(payload.callID == "abc")
        #expect(payload.from == Handle(type: .phoneNumber, value: "+15551234"))
        #expect(payload.cancelReason == .answeredElsewhere)
        #expect(payload.callerName?.count == PushPayload.maximumValueLength)
        let empty = PushPayload([:])
        #expect(empty.kind == .call && empty.callID == nil && empty.from == nil && empty.cancelReason == .unanswered)
        #expect(PushPayload(["from": "not a uri"]).from == Handle(type: .generic, value: "not a uri"))
    }

    @Test func theRegisterCarriesThePushParametersAndTracesHideTheToken() async throws {
        let push = PushRegistration(provider: .apns, deviceToken: "00fc13adff78512", parameter: "TEAM.com.example.voip")
        let app = try App(push: push, registersOnStart: true)
        let traces = Mutex<[String]>([])
        let stream = app.provider.traces
        let reader = Task {
            for await trace in stream {
                traces.withLock { $0.append(String(decoding: trace.bytes, as: UTF8.self)) }
            }
        }
        let register = try app.acceptRegistration()
        let contact = try #require(Self.field("Contact", of: register))
        #expect(contact.contains(";pn-provider=apns;pn-param=TEAM.com.example.voip;pn-prid=00fc13adff78512"))
        #expect(app.run { Self.isRegistered(app.provider.registrationState(for: "bob")) })
        guard case .registered(_, let shown)? = app.provider.registrationState(for: "bob") else {
            Issue.record("not registered")
            app.close()
            return
        }
        #expect(shown.contains("pn-prid=redacted") && !shown.contains("00fc13adff78512"))
        #expect(!push.description.contains("00fc13adff78512"))
        // Closing the provider ends the trace stream.
        app.close()
        await reader.value
        let seen = traces.withLock { $0 }
        #expect(seen.contains { $0.hasPrefix("REGISTER ") && $0.contains("pn-prid=redacted") })
        #expect(!seen.contains { $0.contains("00fc13adff78512") })
    }

    @Test func aRotatedTokenReplacesTheBindingInOneRegister() throws {
        let push = PushRegistration(provider: .fcm, deviceToken: "old-token")
        let app = try App(push: push, registersOnStart: true)
        defer { app.close() }
        _ = try app.acceptRegistration()
        #expect(app.run { Self.isRegistered(app.provider.registrationState(for: "bob")) })
        try app.provider.updatePushToken(PushRegistration(provider: .fcm, deviceToken: "new-token"), for: "bob")
        let register = try #require(app.next("REGISTER "))
        let contacts = register.split(separator: "\r\n").filter { $0.hasPrefix("Contact: ") }
        #expect(contacts.count == 2)
        #expect(
            contacts.first?.contains("pn-prid=old-token") == true && contacts.first?.hasSuffix(";expires=0") == true)
        #expect(contacts.last?.contains("pn-prid=new-token") == true)
        #expect(throws: CallError.self) { try app.provider.updatePushToken(push, for: "nobody") }
    }

    @Test func streamsAskedForAfterInvalidationEndAtOnce() async throws {
        let app = try App()
        app.close()
        for await _ in app.provider.traces { Issue.record("a trace after invalidation") }
        for await _ in app.provider.events { Issue.record("an event after invalidation") }
    }

    @Test func tokensAreRedactedWhereverTheyStand() {
        let text = "Contact: <sip:a@h;pn-provider=apns;PN-PRID=abc:def;pn-param=x>\r\nX: ;pn-prid=zz\r\n"
        let redacted = PushTokenRedaction.redact(text)
        #expect(
            redacted == "Contact: <sip:a@h;pn-provider=apns;PN-PRID=redacted;pn-param=x>\r\nX: ;pn-prid=redacted\r\n")
        #expect(PushTokenRedaction.redact("no token here") == "no token here")
        #expect(PushRegistration.escaped("a b;c") == "a%20b%3Bc")
    }

    /// A registrar over TCP for `suspendAndResume`: a scripted listener that answers REGISTERs with 200.
    private static func acceptOverStream(_ connection: ScriptedConnection) throws -> String {
        let register = try #require(connection.message(within: .seconds(3)))
        #expect(register.hasPrefix("REGISTER "))
        connection.send(
            Self.ok(register, extra: "Contact: \(Self.field("Contact", of: register) ?? "")\r\nExpires: 600\r\n"))
        return register
    }

    @Test func suspendClosesTheFlowWithoutUnregisteringAndResumeRegistersAgain() throws {
        let world = VirtualWorld()
        let registrar = try ScriptedListener(world: world, host: "127.0.0.2")
        let account = Account(
            addressOfRecord: "sip:bob@127.0.0.2", id: "bob",
            registrar: "sip:127.0.0.2:\(registrar.address.port);transport=tcp", transport: .tcp,
            push: PushRegistration(provider: .apns, deviceToken: "tok"))
        let provider = try world.makeProvider(
            configuration: CallProviderConfiguration(accounts: [account], listeners: [.init(.udp, "127.0.0.1:5060")]),
            host: "127.0.0.1")
        defer {
            provider.invalidate(timeout: .seconds(2))
            registrar.close()
        }
        let connection = try #require(registrar.accept(within: .seconds(3)))
        _ = try Self.acceptOverStream(connection)
        #expect(world.run(until: { Self.isRegistered(provider.registrationState(for: "bob")) }, within: .seconds(2)))

        provider.suspend()
        // The connection closes, and nothing is sent on it first: no REGISTER with Expires: 0.
        #expect(world.run(until: { connection.isClosed }, within: .seconds(2)))
        #expect(connection.message(within: .seconds(1)) == nil)
        // Past the refresh time (540 s of 600) no REGISTER comes: the binding is left to the push parameters.
        #expect(registrar.accept(within: .seconds(700)) == nil)

        provider.resume()
        let again = try #require(registrar.accept(within: .seconds(3)))
        let register = try Self.acceptOverStream(again)
        #expect(register.contains("pn-prid=tok"))
        #expect(!register.contains("Expires: 0"))
    }
}
