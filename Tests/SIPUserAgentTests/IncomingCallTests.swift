import SDP
import SIPMessage
import Testing

@testable import SIPUserAgent

/// RFC 3261 §13.3, §9.2 and §15: the UAS's INVITE: answer, 2xx retransmission, rejection, CANCEL.
@Suite struct IncomingCallTests {
    static let invite = """
        INVITE sip:bob@192.0.2.20 SIP/2.0
        Via: SIP/2.0/UDP 192.0.2.10;branch=z9hG4bKa1
        Max-Forwards: 70
        From: Alice <sip:alice@atlanta.example>;tag=atag
        To: <sip:bob@biloxi.example>
        Call-ID: incoming-1
        CSeq: 5 INVITE
        Contact: <sip:alice@192.0.2.10>
        Supported: timer, replaces
        Content-Type: application/sdp

        v=0
        o=alice 1 1 IN IP4 192.0.2.10
        s=-
        c=IN IP4 192.0.2.10
        t=0 0
        m=audio 40000 RTP/AVP 0 101
        a=rtpmap:0 PCMU/8000
        a=rtpmap:101 telephone-event/8000
        a=sendrecv

        """

    func incoming(
        _ text: String = IncomingCallTests.invite, configure: (inout InviteSessionConfiguration) -> Void = { _ in }
    ) throws -> (InviteSession, [SessionAction]) {
        var configuration = InviteSessionConfiguration(contact: try address("<sip:bob@192.0.2.20>"))
        configure(&configuration)
        var session = InviteSession(
            incoming: try request(text), transaction: ServerTransactionToken(rawValue: 1), localTag: "btag",
            configuration: configuration, offerAnswer: .testing(address: "192.0.2.20", port: 50000),
            random: SeededRandom(5))
        let actions = session.start()
        return (session, actions)
    }

    @Test func okIsRetransmittedFromT1DoublingToT2UntilTheACK() throws {
        let net = Harness("alice", "bob")
        net.drop = { delivery in
            if case .ack = delivery { return true }
            return false
        }
        net.call(from: "alice", to: "bob")
        net.run()
        net.command("bob") { $0.answer() }
        net.run()
        // §13.3.1.4: 0.5, 1, 2, 4, 4, 4 ... seconds apart.
        var counts: [Int] = []
        for second in [0.4, 0.6, 1.6, 3.6, 7.6, 11.6, 15.6] {
            net.advance(by: .milliseconds(Int64(second * 1000)) - net.now)
            counts.append(net["bob"].sent(status: 200).count)
        }
        #expect(counts == [1, 2, 3, 4, 5, 6, 7])
        // Each retransmission reached Alice, who ACKed each (and the ACKs were lost).
        #expect(net["alice"].sentACKs.count == 7)
        #expect(Set(net["alice"].sentACKs).count == 1)
        #expect(net["bob"].names() == ["offer"])
    }

    @Test func noACKFor64T1EndsTheCallWithBye() throws {
        let net = Harness("alice", "bob")
        net.drop = { delivery in
            if case .ack = delivery { return true }
            return false
        }
        net.call(from: "alice", to: "bob")
        net.run()
        net.command("bob") { $0.answer() }
        net.run()
        net.advance(by: .milliseconds(31_900))
        #expect(net["bob"].sent(.bye).isEmpty)
        net.advance(by: .milliseconds(200))
        #expect(net["bob"].sent(.bye).count == 1)
        #expect(net["bob"].names() == ["offer", "ended timeout"])
        #expect(net["bob"].endReason?.reasonPhrase == "No ACK")
        #expect(net["alice"].names() == ["connected", "ended remote-ended"])
        let retransmissions = net["bob"].sent(status: 200).count
        net.advance(by: .seconds(10))
        #expect(net["bob"].sent(status: 200).count == retransmissions)
        #expect(net["bob"].finished.contains(1))
    }

    @Test func rejectionCarriesItsStatusAndReason() throws {
        let net = Harness("alice", "bob")
        net.call(from: "alice", to: "bob")
        net.run()
        net.command("bob") { $0.reject(status: 486, reason: Reason(protocol: "Q.850", cause: 17, text: "User busy")) }
        net.run()
        let busy = try #require(net["bob"].sent(status: 486).first)
        #expect(busy.headerFields[.reason] == "Q.850;cause=17;text=\"User busy\"")
        #expect(net["alice"].endReason?.kind == .busy)
        #expect(net["alice"].endReason?.reasons.first?.cause == 17)
        #expect(net["bob"].endReason?.kind == .localEnded)
        #expect(net["bob"].endReason?.statusCode == 486)
        #expect(net["alice"].finished.contains(1))
        #expect(net["bob"].finished.contains(1))
    }

    @Test(arguments: [
        ("SIP;cause=200;text=\"Call completed elsewhere\"", "answered-elsewhere"),
        ("SIP;cause=603;text=\"Declined\"", "declined-elsewhere"),
        ("SIP;cause=600", "declined-elsewhere"),
        ("Q.850;cause=16", "cancelled-by-caller"),
        ("", "cancelled-by-caller"),
    ])
    func cancelGets487AndItsReasonNamesTheEnd(reason: String, kind: String) throws {
        var (session, _) = try incoming()
        _ = session.ring()
        var cancel = SIPRequest(method: .cancel, uri: try uri("sip:bob@192.0.2.20"))
        if !reason.isEmpty { cancel.headerFields.append(name: .reason, value: reason) }
        let actions = session.receiveCancel(cancel)
        #expect(actions.responses.map(\.statusCode) == [487])
        #expect(actions.responses.first?.headerFields[.cseq] == "5 INVITE")
        #expect(actions.events.compactMap(\.endReason).first?.kind.description == kind)
        #expect(actions.isFinished)
        // After the final response a CANCEL does nothing.
        var (answered, _) = try incoming()
        _ = answered.answer()
        #expect(answered.receiveCancel(cancel).isEmpty)
        #expect(answered.state == .connecting)
    }

    @Test func ringingCarriesTheDialogHeaders() throws {
        let withRoute = Self.invite.replacingOccurrences(
            of: "Contact: <sip:alice@192.0.2.10>",
            with: "Contact: <sip:alice@192.0.2.10>\nRecord-Route: <sip:p1.example;lr>")
        var (session, _) = try incoming(withRoute)
        let actions = session.ring()
        let ringing = try #require(actions.responses.first)
        #expect(ringing.statusCode == 180)
        #expect(try ringing.to?.tag == "btag")
        #expect(ringing.headerFields[.recordRoute] == "<sip:p1.example;lr>")
        #expect(ringing.headerFields[.contact] == "<sip:bob@192.0.2.20>")
        #expect(!ringing.headerFields.contains(.rseq))
        #expect(
            actions.contains {
                if case .dialogCreated(let id) = $0 { return id.localTag == "btag" && id.remoteTag == "atag" }
                return false
            })
        #expect(session.dialog?.routeSet.map(\.description) == ["<sip:p1.example;lr>"])
    }

    @Test func theOKAfterRingingCarriesTheSameDialogHeaders() throws {
        let withRoute = Self.invite.replacingOccurrences(
            of: "Contact: <sip:alice@192.0.2.10>",
            with: "Contact: <sip:alice@192.0.2.10>\nRecord-Route: <sip:p1.example;lr>")
        var (session, _) = try incoming(withRoute) { $0.userAgent = "Bob/1" }
        let ringing = try #require(session.ring().responses.first)
        let ok = try #require(session.answer().responses.first)
        #expect(ok.statusCode == 200)
        let names: [SIPField.Name] = [.via, .from, .to, .callID, .cseq, .server, .recordRoute, .contact]
        for name in names {
            #expect(ok.headerFields[values: name] == ringing.headerFields[values: name])
        }
        #expect(ok.headerFields[.server] == "Bob/1")
        #expect(Array(ok.headerFields.prefix(8)).map(\.name) == Array(ringing.headerFields.prefix(8)).map(\.name))
    }

    @Test func aContactChangedAfterRingingGoesInTheOK() throws {
        var (session, _) = try incoming { $0.userAgent = "Bob/1" }
        let ringing = try #require(session.ring().responses.first)
        session.configuration.contact = try address("<sip:bob@192.0.2.99>")
        session.configuration.userAgent = "Bob/2"
        let ok = try #require(session.answer().responses.first)
        #expect(ringing.headerFields[.contact] == "<sip:bob@192.0.2.20>")
        #expect(ok.headerFields[.contact] == "<sip:bob@192.0.2.99>")
        #expect(ok.headerFields[.server] == "Bob/2")
        #expect(try ok.to?.tag == "btag")
    }

    /// The 180 and 200 go out byte for byte as building them field by field from typed values does.
    @Test func ringingAndOKAreWhatTypedFieldsWrite() throws {
        let withRoute = Self.invite.replacingOccurrences(
            of: "Contact: <sip:alice@192.0.2.10>",
            with: "Contact: <sip:alice@192.0.2.10>\nRecord-Route: <sip:p1.example;lr>")
        let invite = try request(withRoute)
        var (session, _) = try incoming(withRoute) { $0.userAgent = "Bob/1" }
        let ringing = try #require(session.ring().responses.first)
        let ok = try #require(session.answer().responses.first)
        func typed(_ status: Int) throws -> SIPResponse {
            var response = SIPResponse(answering: invite, status: status, toTag: "btag")
            response.headerFields.append(.server, "Bob/1")
            response.headerFields.append(.recordRoute, try address("<sip:p1.example;lr>"))
            response.headerFields.append(.contact, try address("<sip:bob@192.0.2.20>"))
            return response
        }
        #expect(ringing.serialized() == (try typed(180)).serialized())
        var expected = try typed(200)
        expected.headerFields.append(.allow, InviteSessionConfiguration.defaultAllowHeaderValue)
        expected.headerFields.append(.supported, "100rel, timer, replaces, norefersub")
        expected.headerFields.append(.contentType, MediaType.sdp)
        expected.body = ok.body
        // The INVITE supports timer: the configured 1800 s, the UAC refreshing, and Require: timer.
        expected.headerFields.append(.sessionExpires, SessionExpires(deltaSeconds: 1800, refresher: .uac))
        expected.headerFields.append(.require, "timer")
        #expect(!ok.body.isEmpty)
        #expect(ok.serialized() == expected.serialized())
    }

    /// A Session-Expires the configuration did not write beforehand (the INVITE's own interval, or no timer
    /// support) is written from its value, as the configured one is.
    @Test(arguments: [
        ("Session-Expires: 2000;refresher=uas\n", "2000;refresher=uas", "timer"),
        ("Session-Expires: 1800\n", "1800;refresher=uac", "timer"),
    ])
    func sessionExpiresOfTheOKIsWhatItsValueWrites(field: String, expires: String, require: String?) throws {
        let text = Self.invite.replacingOccurrences(of: "Content-Type:", with: field + "Content-Type:")
        var (session, _) = try incoming(text)
        _ = session.ring()
        let ok = try #require(session.answer().responses.first)
        #expect(ok.headerFields[.sessionExpires] == expires)
        #expect(ok.headerFields[.require] == require)
    }

    @Test func withoutTimerSupportTheOKCarriesNoSessionExpires() throws {
        let text = Self.invite.replacingOccurrences(of: "Supported: timer, replaces", with: "Supported: replaces")
        var (session, _) = try incoming(text)
        _ = session.ring()
        let ok = try #require(session.answer().responses.first)
        #expect(ok.headerFields[.sessionExpires] == nil)
        #expect(ok.headerFields[.require] == nil)
    }

    @Test func allowAndSupportedChangedAfterRingingGoInTheOK() throws {
        var (session, _) = try incoming()
        _ = session.ring()
        session.configuration.allowedMethods = [.invite, .ack, .bye]
        session.configuration.sessionTimer = nil
        let ok = try #require(session.answer().responses.first)
        #expect(ok.headerFields[.allow] == "INVITE, ACK, BYE")
        #expect(ok.headerFields[.supported] == "100rel, replaces, norefersub")
        #expect(ok.headerFields[.contentType] == "application/sdp")
    }

    @Test func unknownRequiredExtensionGets420() throws {
        let text = Self.invite.replacingOccurrences(of: "Supported: timer, replaces", with: "Require: foo, timer")
        let (session, actions) = try incoming(text)
        let refusal = try #require(actions.responses.first)
        #expect(refusal.statusCode == 420)
        #expect(refusal.headerFields[.unsupported] == "foo")
        #expect(session.state == .terminated)
    }

    @Test func requiring100relRefusesAnInviteWithoutIt() throws {
        let (_, actions) = try incoming { $0.reliableProvisionalResponses = .required }
        let refusal = try #require(actions.responses.first)
        #expect(refusal.statusCode == 421)
        #expect(refusal.headerFields[.require] == "100rel")
        let disabled = Self.invite.replacingOccurrences(of: "Supported: timer, replaces", with: "Require: 100rel")
        let (_, refused) = try incoming(disabled) { $0.reliableProvisionalResponses = .disabled }
        #expect(refused.responses.first?.statusCode == 420)
    }

    @Test func sessionIntervalBelowMinSEGets422() throws {
        let text = Self.invite.replacingOccurrences(
            of: "Supported: timer, replaces", with: "Supported: timer\nSession-Expires: 60")
        let (_, actions) = try incoming(text)
        let refusal = try #require(actions.responses.first)
        #expect(refusal.statusCode == 422)
        #expect(refusal.headerFields[.minSE] == "90")
    }

    @Test func unacceptableOfferGets488WithWarningAndBadSDPGets400() throws {
        let text = Self.invite.replacingOccurrences(of: "m=audio 40000 RTP/AVP 0 101", with: "m=audio 40000 RTP/AVP 96")
            .replacingOccurrences(of: "a=rtpmap:0 PCMU/8000", with: "a=rtpmap:96 nothing/8000")
        let (session, actions) = try incoming(text)
        let refusal = try #require(actions.responses.first)
        #expect(refusal.statusCode == 488)
        #expect(refusal.headerFields.contains(.warning))
        #expect(session.endReason?.kind == .notAcceptable)
        let broken = Self.invite.replacingOccurrences(of: "v=0", with: "v=9")
        let (_, bad) = try incoming(broken)
        #expect(bad.responses.first?.statusCode == 400)
    }

    @Test func missingContactGets400() throws {
        let text = Self.invite.replacingOccurrences(of: "Contact: <sip:alice@192.0.2.10>\n", with: "")
        let (session, actions) = try incoming(text)
        #expect(actions.responses.first?.statusCode == 400)
        #expect(session.state == .terminated)
    }

    @Test func inviteWithoutOfferGetsAnOfferInTheOK() throws {
        let text = String(Self.invite.prefix { $0 != "v" }).replacingOccurrences(
            of: "Content-Type: application/sdp\n", with: "")
        var (session, start) = try incoming(text)
        #expect(start.names.isEmpty)
        let answer = session.answer()
        let ok = try #require(answer.responses.first)
        #expect(ok.headerFields[.contentType] == "application/sdp")
        var ack = try request(
            String(text.prefix { $0 != "\n" }).replacingOccurrences(of: "INVITE", with: "ACK") + "\n"
                + "Via: SIP/2.0/UDP 192.0.2.10;branch=z9hG4bKa2\nFrom: <sip:alice@atlanta.example>;tag=atag\n"
                + "To: <sip:bob@biloxi.example>;tag=btag\nCall-ID: incoming-1\nCSeq: 5 ACK\n\n")
        ack.setBody(try SessionDescription(parsing: peerAnswer.replacingOccurrences(of: "\n", with: "\r\n")))
        let confirmed = session.receiveACK(ack)
        #expect(confirmed.names == ["connected"])
        #expect(session.negotiatedSession?.remoteRTPAddress?.port == 50000)
    }

    @Test func hangingUpBeforeTheACKWaitsForIt() throws {
        let net = Harness("alice", "bob")
        var held: [Harness.Delivery] = []
        net.drop = { delivery in
            if case .ack = delivery {
                held.append(delivery)
                return true
            }
            return false
        }
        net.call(from: "alice", to: "bob")
        net.run()
        net.command("bob") { $0.answer() }
        net.run()
        net.command("bob") { $0.hangUp() }
        net.run()
        // §15: no BYE before the ACK.
        #expect(net["bob"].sent(.bye).isEmpty)
        #expect(net["bob"].names() == ["offer", "ended local-ended"])
        net.drop = { _ in false }
        net.inFlight.append(contentsOf: held)
        net.run()
        #expect(net["bob"].sent(.bye).count == 1)
        #expect(net["alice"].names() == ["connected", "ended remote-ended"])
    }

    @Test func byeBeforeTheAnswerGets200AndTheInvite487() throws {
        var (session, _) = try incoming()
        _ = session.ring()
        let bye = try request(
            """
            BYE sip:bob@192.0.2.20 SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.10;branch=z9hG4bKb1
            From: <sip:alice@atlanta.example>;tag=atag
            To: <sip:bob@biloxi.example>;tag=btag
            Call-ID: incoming-1
            CSeq: 6 BYE


            """)
        let actions = session.receiveRequest(bye, transaction: ServerTransactionToken(rawValue: 2))
        #expect(actions.responses.map(\.statusCode) == [200, 487])
        #expect(actions.names == ["ended remote-ended"])
    }

    @Test(
        "an in-dialog request is matched by Call-ID and tags however they are written",
        arguments: [
            ("From: <sip:alice@atlanta.example>;tag=atag", "To: <sip:bob@biloxi.example>;tag=btag", "incoming-1", 200),
            (
                "From: <sip:alice@atlanta.example> ; TAG = atag", "To: <sip:bob@biloxi.example>;tag=btag", "incoming-1",
                200
            ),
            (
                "From: <sip:alice@atlanta.example>;tag=atag", "To: \"B;o\" <sip:bob@biloxi.example>;tag=btag",
                "incoming-1", 200
            ),
            ("From: <sip:alice@atlanta.example>;tag=atag", "To: <sip:bob@biloxi.example>;tag=other", "incoming-1", 481),
            ("From: <sip:alice@atlanta.example>;tag=other", "To: <sip:bob@biloxi.example>;tag=btag", "incoming-1", 481),
            ("From: <sip:alice@atlanta.example>;tag=atag", "To: <sip:bob@biloxi.example>;tag=btag", "incoming-2", 481),
            ("From: <sip:alice@atlanta.example>;tag=atag", "To: <sip:bob@biloxi.example>", "incoming-1", 481),
        ])
    func inDialogRequestsAreMatched(from: String, to: String, callID: String, status: Int) throws {
        #expect(try statusesOfINFO(from: from, to: to, callID: callID) == [status])
    }

    @Test(
        "an in-dialog request spelling To and From as the dialog's first messages did is matched by their bytes",
        arguments: [
            (
                "From: Alice <sip:alice@atlanta.example>;tag=atag", "To: <sip:bob@biloxi.example>;tag=btag",
                "incoming-1", 200
            ),
            (
                "From: Alice <sip:alice@atlanta.example>;tag=atag", "To: <sip:bob@biloxi.example>;tag=btag",
                "incoming-2", 481
            ),
            (
                "From: Alice <sip:alice@atlanta.example>;tag=atag", "To: <sip:bob@biloxi.example>;tag=btagx",
                "incoming-1", 481
            ),
            (
                "From: Alice <sip:alice@atlanta.example>;tag=atagx", "To: <sip:bob@biloxi.example>;tag=btag",
                "incoming-1", 481
            ),
            (
                "From: Alice <sip:alice@atlanta.example>;tag=ata", "To: <sip:bob@biloxi.example>;tag=btag",
                "incoming-1", 481
            ),
            (
                "From: Alice <sip:alice@atlanta.example>;tag=atag", "To: <sip:bob@biloxi.example>;tag=bta",
                "incoming-1", 481
            ),
            // A repeated From is not compared as bytes: the general way reads the first.
            (
                "From: Alice <sip:alice@atlanta.example>;tag=atag\nFrom: Alice <sip:alice@atlanta.example>;tag=atag",
                "To: <sip:bob@biloxi.example>;tag=btag", "incoming-1", 200
            ),
        ])
    func inDialogRequestsSpelledAsTheInviteAreMatched(from: String, to: String, callID: String, status: Int) throws {
        #expect(try statusesOfINFO(from: from, to: to, callID: callID) == [status])
    }

    /// The responses an answered incoming call gives an INFO with these From, To and Call-ID lines.
    private func statusesOfINFO(from: String, to: String, callID: String) throws -> [Int] {
        var (session, _) = try incoming()
        _ = session.answer()
        let info = try request(
            """
            INFO sip:bob@192.0.2.20 SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.10;branch=z9hG4bKi1
            \(from)
            \(to)
            Call-ID: \(callID)
            CSeq: 6 INFO


            """)
        let actions = session.receiveRequest(info, transaction: ServerTransactionToken(rawValue: 2))
        return actions.responses.map(\.statusCode)
    }

    @Test("a peer without a From tag is not matched by an empty one spelled after its address")
    func emptyRemoteTagIsNotSpelledOut() throws {
        var (session, _) = try incoming(
            IncomingCallTests.invite.replacing(";tag=atag\n", with: "\n"))
        _ = session.answer()
        let info = try request(
            """
            INFO sip:bob@192.0.2.20 SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.10;branch=z9hG4bKi1
            From: Alice <sip:alice@atlanta.example>;tag=
            To: <sip:bob@biloxi.example>;tag=btag
            Call-ID: incoming-1
            CSeq: 6 INFO


            """)
        let actions = session.receiveRequest(info, transaction: ServerTransactionToken(rawValue: 2))
        #expect(actions.responses.map(\.statusCode) == [481])
    }

    @Test func hangUpBeforeAnsweringDeclines() throws {
        var (session, _) = try incoming()
        let actions = session.hangUp()
        #expect(actions.responses.map(\.statusCode) == [603])
        #expect(actions.names == ["ended local-ended 603"])
    }

    /// A call appends, moves and destroys a dozen actions: the requests they carry and the largest events are
    /// boxed, so an action is the size of its `sendResponse` payload, not of a request with its next hop.
    @Test func anActionIsTheSizeOfAResponseAndItsTransaction() {
        let response = MemoryLayout<SIPResponse>.size + MemoryLayout<ServerTransactionToken>.size
        #expect(MemoryLayout<SessionAction>.size <= response + 1)
        #expect(MemoryLayout<SessionEvent>.size < MemoryLayout<SIPRequest>.size)
    }
}
