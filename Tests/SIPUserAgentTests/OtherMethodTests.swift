import SDP
import SIPMessage
import Testing

@testable import SIPUserAgent

/// INFO with dtmf-relay, MESSAGE (RFC 3428) in and outside dialogs, OPTIONS (RFC 3261 §11), method errors.
@Suite struct OtherMethodTests {
    @Test func dtmfInfoBothWays() throws {
        let net = Harness.connected()
        net.command("alice") { $0.sendDTMF(DTMFRelay(signal: "5", duration: 160).unsafelyUnwrappedForTests) }
        net.run()
        let info = try #require(net["alice"].sent(.info).first)
        #expect(info.headerFields[.contentType] == "application/dtmf-relay")
        #expect(info.bodyText == "Signal=5\r\nDuration=160\r\n")
        #expect(net["bob"].names().suffix(2) == ["dtmf 5", "info"])
        #expect(net["alice"].names().last == "INFO 200")
        net.command("bob") { $0.sendDTMF(DTMFRelay(signal: "#").unsafelyUnwrappedForTests) }
        net.run()
        #expect(net["alice"].names().suffix(3) == ["INFO 200", "dtmf #", "info"])
    }

    @Test(arguments: [
        ("Signal=5\r\nDuration=160\r\n", "5", 160), ("signal= *\nduration = 250", "*", 250), ("Signal=d", "D", 250),
        ("Signal=16\r\nDuration=2000", "16", 2000),
    ])
    func dtmfRelayParses(body: String, signal: String, duration: Int) throws {
        let relay = try #require(DTMFRelay(parsing: Array(body.utf8)))
        #expect(relay.signal == signal)
        #expect(relay.duration == duration)
    }

    @Test(arguments: ["Duration=100", "Signal=X", "Signal=5\nDuration=abc", "Signal=5\nDuration=0", ""])
    func dtmfRelayRefusesGarbage(body: String) {
        #expect(DTMFRelay(parsing: Array(body.utf8)) == nil)
    }

    @Test func messageInsideTheDialog() throws {
        let net = Harness.connected()
        net.command("bob") { $0.sendMessage(Array("hello".utf8)) }
        net.run()
        guard case .messageReceived(let message) = net["alice"].events(of: 1).last else {
            Issue.record("no message")
            return
        }
        #expect(message.bodyText == "hello")
        #expect(message.headerFields[.contentType] == "text/plain")
        #expect(net["bob"].names().last == "MESSAGE 200")
    }

    @Test func messageOutsideADialog() throws {
        let message = InstantMessage.makeRequest(
            body: Array("hi".utf8), from: try address("<sip:alice@atlanta.example>"),
            to: try address("<sip:bob@biloxi.example>"), callID: "m1", localTag: "t1")
        #expect(message.method == .message)
        #expect(message.uri.description == "sip:bob@biloxi.example")
        #expect(message.headerFields[.cseq] == "1 MESSAGE")
        #expect(!message.headerFields.contains(.contact))
        #expect(try message.from?.tag == "t1")
        let ok = InstantMessage.answer(message, toTag: "r1")
        #expect(ok.statusCode == 200)
        #expect(try ok.to?.tag == "r1")
        var html = message
        html.headerFields.set(.contentType, MediaType(type: "text", subtype: "html"))
        let refused = InstantMessage.answer(html, toTag: "r1")
        #expect(refused.statusCode == 415)
        #expect(refused.headerFields[.accept] == "text/plain")
        #expect(
            InstantMessage.answer(html, accepting: [MediaType(type: "text", subtype: "*")], toTag: nil).statusCode
                == 200)
        // Through the harness: Bob answers MESSAGEs outside dialogs.
        let net = Harness("alice", "bob")
        net["bob"].outsideDialog = { InstantMessage.answer($0, toTag: "bobmsg") }
        var delivered = message
        delivered.uri = try uri("sip:bob@bob.example")
        net.inFlight.append(
            .request(
                delivered, client: Harness.Client(agent: 0, session: 99, token: RequestToken(rawValue: 1)), to: 1,
                forkGroup: nil))
        net.run()
        #expect(net["bob"].receivedOutsideDialog.map(\.bodyText) == ["hi"])
        #expect(net["bob"].sent(status: 200).count == 1)
    }

    @Test func optionsInsideTheDialogAndTheStandaloneBuilder() throws {
        let net = Harness.connected()
        net.command("alice") { $0.sendRequest(.options) }
        net.run()
        let answer = try #require(net["bob"].sent(status: 200).last)
        #expect(answer.headerFields[.cseq] == "2 OPTIONS")
        #expect(answer.headerFields[.allow]?.contains("INVITE, ACK, CANCEL, BYE") == true)
        #expect(answer.headerFields[.accept]?.contains("application/sdp") == true)
        #expect(answer.headerFields[.supported] == "100rel, timer, replaces, norefersub")
        #expect(answer.headerFields[.acceptEncoding] == "identity")
        #expect(net["alice"].names().last == "OPTIONS 200")
        let qualify = StandaloneRequest.options(
            from: try address("<sip:alice@atlanta.example>"), to: try address("<sip:bob@biloxi.example>"),
            callID: "q1", localTag: "t", sequenceNumber: 3, routeSet: [try address("<sip:proxy.example;lr>")])
        #expect(qualify.headerFields[.route] == "<sip:proxy.example;lr>")
        #expect(qualify.headerFields[.accept] == "application/sdp")
        #expect(qualify.headerFields[.cseq] == "3 OPTIONS")
        let response = UserAgentCapabilities().optionsResponse(to: qualify, toTag: "x")
        #expect(response.statusCode == 200)
        #expect(try response.to?.tag == "x")
        #expect(response.headerFields[.acceptLanguage] == "en")
    }

    @Test func unknownAndUnsupportedMethodsIn405Or501() throws {
        let net = Harness.connected()
        var dialog = try #require(net["alice"].call?.dialog)
        var session = try #require(net["bob"].call)
        let subscribe = dialog.makeRequest(.subscribe)
        let notAllowed = session.receiveRequest(subscribe, transaction: ServerTransactionToken(rawValue: 1))
        #expect(notAllowed.responses.map(\.statusCode) == [405])
        #expect(notAllowed.responses.first?.headerFields.contains(.allow) == true)
        let unknown = dialog.makeRequest("FROBNICATE")
        let notImplemented = session.receiveRequest(unknown, transaction: ServerTransactionToken(rawValue: 2))
        #expect(notImplemented.responses.map(\.statusCode) == [501])
        // The session refuses to send the methods it runs itself.
        #expect(session.sendRequest(.bye).isEmpty)
        #expect(session.sendRequest(.invite).isEmpty)
    }

    @Test func malformedInDialogRequestsGetAnswersNotCrashes() throws {
        let net = Harness.connected()
        var dialog = try #require(net["alice"].call?.dialog)
        var session = try #require(net["bob"].call)
        // CSeq lower than the last one: 500.
        var old = dialog.makeRequest(.info)
        old.headerFields.set(.cseq, CSeq(0, .info))
        #expect(
            session.receiveRequest(old, transaction: ServerTransactionToken(rawValue: 1)).responses.map(\.statusCode)
                == [500])
        // Unparsable CSeq: 400.
        var broken = dialog.makeRequest(.info)
        broken.headerFields[.cseq] = "banana INFO"
        #expect(
            session.receiveRequest(broken, transaction: ServerTransactionToken(rawValue: 2)).responses.map(\.statusCode)
                == [400])
        // A re-INVITE with unparsable SDP: 400, the call goes on.
        var reinvite = dialog.makeRequest(.invite)
        reinvite.headerFields.append(.contact, try address("<sip:alice@alice.example>"))
        reinvite.headerFields.set(.contentType, MediaType.sdp)
        reinvite.body = Array("v=0\r\nnonsense\r\n".utf8)
        #expect(
            session.receiveRequest(reinvite, transaction: ServerTransactionToken(rawValue: 3)).responses.map(
                \.statusCode) == [400])
        #expect(session.state == .confirmed)
        #expect(session.offerAnswer.state == .stable)
        // Another Call-ID or tag: 481.
        var stranger = dialog.makeRequest(.info)
        stranger.headerFields[.callID] = "someone-else"
        #expect(
            session.receiveRequest(stranger, transaction: ServerTransactionToken(rawValue: 4)).responses.map(
                \.statusCode) == [481])
        // No headers at all.
        let empty = SIPRequest(method: .bye, uri: try uri("sip:bob@bob.example"))
        #expect(
            session.receiveRequest(empty, transaction: ServerTransactionToken(rawValue: 5)).responses.map(\.statusCode)
                == [481])
        #expect(session.state == .confirmed)
    }

    @Test func sipfragStatusLines() throws {
        let status = try #require(SipFragmentStatus(parsing: Array("SIP/2.0 180 Ringing\r\nContact: <sip:x>\r\n".utf8)))
        #expect(status.statusCode == 180)
        #expect(status.reasonPhrase == "Ringing")
        #expect(SipFragmentStatus(parsing: Array("SIP/2.0 200\r\n".utf8))?.reasonPhrase == "")
        #expect(SipFragmentStatus(parsing: Array("INVITE sip:x SIP/2.0\r\n".utf8)) == nil)
        #expect(SipFragmentStatus(parsing: Array("SIP/2.0 99 Low\r\n".utf8)) == nil)
        #expect(SipFragmentStatus(statusCode: 503).description == "SIP/2.0 503 Service Unavailable")
    }
}
