import Foundation
import Switchboard
import SwitchboardTesting
import Synchronization
import Testing

/// A voicemail server on a raw UDP socket of a virtual world: reads SUBSCRIBEs, answers them and sends NOTIFYs
/// (RFC 6665 notifier, RFC 3842 bodies), checking what the provider sends.
final class LoopbackNotifier: Sendable {
    let peer: SilentUDPPeer
    let tag = "vm\(UInt32.random(in: 0...UInt32.max))"
    /// The Via branches of the requests taken: retransmissions (T1 is 100 ms here) are skipped.
    let seen = Mutex<Set<String>>([])

    /// The world the notifier's clock is.
    let world: VirtualWorld

    init(world: VirtualWorld) throws {
        self.world = world
        peer = try SilentUDPPeer(world: world)
    }

    var port: UInt16 { peer.port }

    func close() { peer.close() }

    /// Messages received while waiting for another kind, in order.
    let backlog = Mutex<[SIPText]>([])

    /// The first message, from the backlog or the socket within `seconds`, that `accept` takes; the others
    /// wait in the backlog. Retransmitted requests (T1 is 100 ms here) are dropped.
    func take(seconds: Double, _ accept: (SIPText) -> Bool) async -> SIPText? {
        let early = backlog.withLock { queue -> SIPText? in
            guard let index = queue.firstIndex(where: accept) else { return nil }
            return queue.remove(at: index)
        }
        if let early { return early }
        let deadline = world.date.addingTimeInterval(seconds)
        while world.date < deadline {
            guard let text = await peer.receive(seconds: deadline.timeIntervalSince(world.date)) else { return nil }
            let message = SIPText(text)
            if !message.isResponse {
                let isNew = seen.withLock { $0.insert(message["Via"] ?? "").inserted }
                guard isNew else { continue }
            }
            if accept(message) { return message }
            backlog.withLock { $0.append(message) }
        }
        return nil
    }

    /// The next request of `method` within `seconds`.
    func next(_ method: String, seconds: Double = 10) async -> SIPText? {
        await take(seconds: seconds) { $0.startLine.hasPrefix(method + " ") }
    }

    /// The next request of any method within `seconds`.
    func nextRequest(seconds: Double = 10) async -> SIPText? {
        await take(seconds: seconds) { !$0.isResponse }
    }

    /// The next response within `seconds`.
    func nextResponse(seconds: Double = 10) async -> SIPText? {
        await take(seconds: seconds) { $0.isResponse }
    }

    /// Answers `request` (a To tag is added when it has none).
    func answer(_ request: SIPText, _ status: String, extra: [String] = [], to port: UInt16) {
        peer.send(
            request.response(status, tag: tag, contact: "sip:vm@127.0.0.1:\(self.port)", extra: extra), toPort: port)
    }

    /// Sends a NOTIFY in the dialog `subscribe` made.
    func notify(
        _ subscribe: SIPText, cseq: Int, state: String, body: String? = nil, to port: UInt16, toTag: String? = nil
    ) {
        let mailbox = (subscribe["To"] ?? "").components(separatedBy: ";tag=")[0]
        let contact = subscribe.contactURI ?? "sip:alice@127.0.0.1:\(port)"
        var lines = [
            "NOTIFY \(contact) SIP/2.0",
            "Via: SIP/2.0/UDP 127.0.0.1:\(self.port);branch=z9hG4bK-n\(UInt32.random(in: 0...UInt32.max))",
            "Max-Forwards: 70", "From: \(mailbox);tag=\(tag)",
            "To: \(toTag.map { "<sip:alice@127.0.0.1>;tag=\($0)" } ?? subscribe["From"] ?? "")",
            "Call-ID: \(subscribe["Call-ID"] ?? "")", "CSeq: \(cseq) NOTIFY",
            "Contact: <sip:vm@127.0.0.1:\(self.port)>",
            "Event: message-summary", "Subscription-State: \(state)",
        ]
        if let body {
            lines += [
                "Content-Type: application/simple-message-summary", "Content-Length: \(body.utf8.count)", "", body,
            ]
        } else {
            lines += ["Content-Length: 0", "", ""]
        }
        peer.send(lines.joined(separator: "\r\n"), toPort: port)
    }
}

/// Just enough SIP parsing for the notifier: the start line and header values by name.
struct SIPText: Sendable {
    let startLine: String
    let headers: [(String, String)]
    /// What follows the blank line.
    let body: String

    init(_ text: String) {
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts[0]
        body = parts.dropFirst().joined(separator: "\r\n\r\n")
        var lines = head.components(separatedBy: "\r\n")
        startLine = lines.isEmpty ? "" : lines.removeFirst()
        headers = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (
                String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            )
        }
    }

    subscript(_ name: String) -> String? { all(name).first }

    func all(_ name: String) -> [String] {
        headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
    }

    var contactURI: String? {
        guard let contact = self["Contact"], let start = contact.firstIndex(of: "<"),
            let end = contact.firstIndex(of: ">")
        else { return nil }
        return String(contact[contact.index(after: start)..<end])
    }

    var isResponse: Bool { startLine.hasPrefix("SIP/2.0 ") }

    var toTag: String? { self["To"]?.components(separatedBy: "tag=").dropFirst().first }
    var fromTag: String? { self["From"]?.components(separatedBy: "tag=").dropFirst().first }

    /// A response to this request, as a raw peer sends it: its Via, From, Call-ID and CSeq, its To with `tag`
    /// added unless it has a tag (or `tag` is nil), Contact `contact`, the `extra` lines, and `sdp` as the body.
    func response(_ status: String, tag: String?, contact: String, extra: [String] = [], sdp: String? = nil)
        -> String
    {
        var to = self["To"] ?? ""
        if let tag, !to.contains("tag=") { to += ";tag=\(tag)" }
        var lines = ["SIP/2.0 \(status)"]
        lines += all("Via").map { "Via: \($0)" }
        lines += ["From: \(self["From"] ?? "")", "To: \(to)", "Call-ID: \(self["Call-ID"] ?? "")"]
        lines += ["CSeq: \(self["CSeq"] ?? "")", "Contact: <\(contact)>"]
        lines += extra
        if let sdp {
            lines += ["Content-Type: application/sdp", "Content-Length: \(sdp.utf8.count)", "", sdp]
        } else {
            lines += ["Content-Length: 0", "", ""]
        }
        return lines.joined(separator: "\r\n")
    }
}

/// Solicited message-waiting (RFC 6665 SUBSCRIBE to message-summary, RFC 3842) between a provider and a
/// loopback notifier: subscribe, NOTIFYs reported, refresh, termination and resubscription, unsubscribe.
@Suite("Solicited message waiting", .serialized)
struct SolicitedMessageWaitingTests {
    struct Setup {
        let world = VirtualWorld()
        let provider: CallProvider
        let delegate: RecordingDelegate
        let notifier: LoopbackNotifier
        let port: UInt16

        init(expires: UInt32 = 60, configure: (inout Account) -> Void = { _ in }) throws {
            notifier = try LoopbackNotifier(world: world)
            delegate = RecordingDelegate(world: world)
            var account = Account(
                addressOfRecord: "sip:alice@127.0.0.1", credentials: .password("alicepw"),
                subscribesToMessageSummary: true, messageSummaryURI: "sip:alice@127.0.0.1:\(notifier.port)",
                messageSummaryExpires: expires)
            configure(&account)
            var configuration = CallProviderConfiguration(
                accounts: [account], listeners: [.init(.udp, "127.0.0.1:0")])
            configuration.t1 = .milliseconds(100)
            provider = try world.makeProvider(configuration: configuration, host: "127.0.0.1")
            provider.setDelegate(delegate, queue: nil)
            let address = provider.listeners.first { $0.transport == .udp }?.address ?? ""
            port = UInt16(address.split(separator: ":").last ?? "") ?? 0
        }

        func summaries() -> [MessageSummary] {
            delegate.events.withLock {
                $0.compactMap(\.messageSummary)
            }
        }

        func waitForSummaries(_ count: Int) async -> [MessageSummary]? {
            await delegate.wait(seconds: 10) { _ in summaries().count >= count ? summaries() : nil }
        }

        /// Invalidates the provider (up to 2 s of virtual time while it unsubscribes).
        func close() async {
            provider.invalidate(timeout: .seconds(2))
            notifier.close()
        }
    }

    static func body(_ new: Int, _ old: Int) -> String {
        "Messages-Waiting: \(new > 0 ? "yes" : "no")\r\nMessage-Account: sip:*97@127.0.0.1\r\nVoice-Message: \(new)/\(old) (0/0)\r\n"
    }

    @Test func subscribesReportsRefreshesResubscribesAndUnsubscribes() async throws {
        let setup = try Setup(expires: 60)
        defer { setup.notifier.close() }
        let notifier = setup.notifier
        // SUBSCRIBE: Event, Accept, Expires; challenged, then sent with credentials.
        let first = try #require(await notifier.next("SUBSCRIBE"))
        #expect(first.startLine == "SUBSCRIBE sip:alice@127.0.0.1:\(notifier.port) SIP/2.0")
        #expect(first["Event"] == "message-summary")
        #expect(first["Accept"] == "application/simple-message-summary")
        #expect(first["Expires"] == "60")
        #expect(first.toTag == nil)
        notifier.answer(
            first, "401 Unauthorized", extra: [#"WWW-Authenticate: Digest realm="vm", nonce="abc123", qop="auth""#],
            to: setup.port)
        // On a busy machine the first SUBSCRIBE may be retransmitted (Timer E) before the 401 reaches the
        // client: those copies are skipped.
        var authorized = try #require(await notifier.next("SUBSCRIBE"))
        while authorized["CSeq"] == first["CSeq"], authorized["Authorization"] == nil {
            authorized = try #require(await notifier.next("SUBSCRIBE"))
        }
        #expect(authorized["Authorization"]?.contains(#"username="alice""#) == true)
        #expect(authorized["CSeq"] == "2 SUBSCRIBE")
        // The initial NOTIFY beats the 2xx; both are taken.
        notifier.notify(authorized, cseq: 1, state: "active;expires=4", body: Self.body(2, 8), to: setup.port)
        let notifyAnswer = try #require(await notifier.nextResponse())
        #expect(notifyAnswer.startLine == "SIP/2.0 200 OK")
        notifier.answer(authorized, "200 OK", extra: ["Expires: 4"], to: setup.port)
        let acceptedAt = setup.world.date
        let initial = try #require(await setup.waitForSummaries(1))
        #expect(
            initial[0]
                == MessageSummary(
                    messagesWaiting: true, messageAccount: "sip:*97@127.0.0.1", newMessages: 2, oldMessages: 8))
        // A later NOTIFY in the dialog.
        notifier.notify(authorized, cseq: 2, state: "active;expires=4", body: Self.body(3, 8), to: setup.port)
        #expect(await notifier.nextResponse()?.startLine == "SIP/2.0 200 OK")
        let later = try #require(await setup.waitForSummaries(2))
        #expect(later[1].newMessages == 3)
        // The refresh comes in the dialog halfway through the 4 s, counted from the 2xx (the NOTIFY exchange
        // above may take a good part of that on a busy machine).
        // (A late retransmission of the authorized SUBSCRIBE is not the refresh.)
        var refresh = try #require(await notifier.next("SUBSCRIBE", seconds: 5))
        while refresh["CSeq"] == authorized["CSeq"] {
            refresh = try #require(await notifier.next("SUBSCRIBE", seconds: 5))
        }
        #expect(setup.world.date.timeIntervalSince(acceptedAt) > 1)
        #expect(refresh.toTag == notifier.tag)
        #expect(refresh["Call-ID"] == authorized["Call-ID"])
        #expect(refresh["Expires"] == "60")
        notifier.answer(refresh, "200 OK", extra: ["Expires: 60"], to: setup.port)
        // The notifier ends the subscription with a reason that allows a retry: a new SUBSCRIBE at once.
        notifier.notify(authorized, cseq: 3, state: "terminated;reason=deactivated", to: setup.port)
        #expect(await notifier.nextResponse()?.startLine == "SIP/2.0 200 OK")
        let again = try #require(await notifier.next("SUBSCRIBE", seconds: 3))
        #expect(again.toTag == nil)
        #expect(again.fromTag != authorized.fromTag)
        if again["Authorization"] == nil {
            notifier.answer(
                again, "401 Unauthorized", extra: [#"WWW-Authenticate: Digest realm="vm", nonce="def456", qop="auth""#],
                to: setup.port)
        }
        let renewed = again["Authorization"] == nil ? try #require(await notifier.next("SUBSCRIBE")) : again
        notifier.answer(renewed, "200 OK", extra: ["Expires: 60"], to: setup.port)
        notifier.notify(renewed, cseq: 1, state: "active;expires=60", body: Self.body(0, 10), to: setup.port)
        #expect(await notifier.nextResponse()?.startLine == "SIP/2.0 200 OK")
        let third = try #require(await setup.waitForSummaries(3))
        #expect(
            third[2]
                == MessageSummary(
                    messagesWaiting: false, messageAccount: "sip:*97@127.0.0.1", newMessages: 0, oldMessages: 10))
        // A NOTIFY of the old dialog is unknown now: 481.
        notifier.notify(authorized, cseq: 4, state: "active;expires=60", body: Self.body(1, 1), to: setup.port)
        #expect(await notifier.nextResponse()?.startLine.hasPrefix("SIP/2.0 481") == true)
        // Invalidate unsubscribes: Expires 0 in the dialog; the final NOTIFY is answered.
        // The notifier answers from the loop while invalidate drives the clock.
        let left = Mutex<[SIPText]>([])
        notifier.peer.scripted?.onReceive { text in
            let message = SIPText(text)
            guard message.startLine.hasPrefix("SUBSCRIBE ") else {
                left.withLock { $0.append(message) }
                return
            }
            left.withLock { $0.append(message) }
            // The final NOTIFY first: the provider may be gone once its unsubscription is answered.
            notifier.notify(renewed, cseq: 2, state: "terminated;reason=timeout", to: setup.port)
            notifier.answer(message, "200 OK", extra: ["Expires: 0"], to: setup.port)
        }
        setup.provider.invalidate(timeout: .seconds(3))
        setup.world.advance(by: .milliseconds(10))
        let heard = left.withLock { $0 }
        let leave = try #require(heard.first { $0.startLine.hasPrefix("SUBSCRIBE ") })
        #expect(leave["Expires"] == "0")
        #expect(leave.toTag == notifier.tag)
        #expect(leave["Call-ID"] == renewed["Call-ID"])
        #expect(heard.contains { $0.startLine == "SIP/2.0 200 OK" })
        #expect(setup.summaries().count == 3)
    }

    @Test func subscribesOnceRegisteredAndUnsubscribesBeforeUnregistering() async throws {
        // The notifier is the registrar too.
        let setup = try Setup {
            $0.registrar = "sip:127.0.0.1:\($0.messageSummaryURI?.split(separator: ":").last ?? "")"
        }
        let notifier = setup.notifier
        let register = try #require(await notifier.nextRequest())
        #expect(register.startLine.hasPrefix("REGISTER "))
        notifier.answer(register, "200 OK", extra: ["Contact: \(register["Contact"] ?? "");expires=60"], to: setup.port)
        let subscribe = try #require(await notifier.nextRequest())
        #expect(subscribe.startLine.hasPrefix("SUBSCRIBE "))
        notifier.answer(subscribe, "200 OK", extra: ["Expires: 60"], to: setup.port)
        notifier.notify(subscribe, cseq: 1, state: "active;expires=60", body: Self.body(1, 0), to: setup.port)
        #expect(await notifier.nextResponse()?.startLine == "SIP/2.0 200 OK")
        #expect(await setup.waitForSummaries(1)?.first?.newMessages == 1)
        try setup.provider.unregister(account: "sip:alice@127.0.0.1")
        let first = try #require(await notifier.nextRequest())
        #expect(first.startLine.hasPrefix("SUBSCRIBE "))
        #expect(first["Expires"] == "0")
        let second = try #require(await notifier.nextRequest())
        #expect(second.startLine.hasPrefix("REGISTER "))
        await setup.close()
    }

    @Test func aRefusalStopsTheSubscription() async throws {
        let setup = try Setup()
        let first = try #require(await setup.notifier.next("SUBSCRIBE"))
        setup.notifier.answer(first, "489 Bad Event", to: setup.port)
        // With T1 = 100 ms a retry would come after 1 s.
        #expect(await setup.notifier.next("SUBSCRIBE", seconds: 2.5) == nil)
        await setup.close()
    }

    @Test func aRefusalIsNotRetriedWhenTheRegistrationIsRefreshed() async throws {
        let setup = try Setup {
            $0.registrar = "sip:127.0.0.1:\($0.messageSummaryURI?.split(separator: ":").last ?? "")"
        }
        let notifier = setup.notifier
        let register = try #require(await notifier.next("REGISTER"))
        // Granted 2 s: refreshed after 1 s.
        notifier.answer(register, "200 OK", extra: ["Contact: \(register["Contact"] ?? "");expires=2"], to: setup.port)
        let subscribe = try #require(await notifier.next("SUBSCRIBE"))
        notifier.answer(subscribe, "403 Forbidden", to: setup.port)
        let refresh = try #require(await notifier.nextRequest(seconds: 3))
        #expect(refresh.startLine.hasPrefix("REGISTER "))
        notifier.answer(refresh, "200 OK", extra: ["Contact: \(register["Contact"] ?? "");expires=60"], to: setup.port)
        #expect(await notifier.nextRequest(seconds: 1.5) == nil)
        await setup.close()
    }

    @Test func aServerErrorIsRetriedAfterTheBackOff() async throws {
        let setup = try Setup()
        let first = try #require(await setup.notifier.next("SUBSCRIBE"))
        let failedAt = setup.world.date
        setup.notifier.answer(first, "503 Service Unavailable", to: setup.port)
        let second = try #require(await setup.notifier.next("SUBSCRIBE", seconds: 5))
        // The first back-off is 10*T1 = 1 s.
        #expect(setup.world.date.timeIntervalSince(failedAt) > 0.8)
        #expect(second.toTag == nil)
        #expect(second["CSeq"] == "1 SUBSCRIBE")
        await setup.close()
    }

    @Test func anUnsubscribedAccountDoesNotSubscribe() async throws {
        let setup = try Setup { $0.subscribesToMessageSummary = false }
        #expect(await setup.notifier.next("SUBSCRIBE", seconds: 1) == nil)
        await setup.close()
    }
}
