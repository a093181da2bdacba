import SDP
import SIPAuthentication
import SIPMessage
import Testing

@testable import SIPUserAgent

/// RFC 3261 §13.2, §9.1 and RFC 3264: the UAC's INVITE, its responses, forking, CANCEL.
@Suite struct OutgoingCallTests {
    /// The Supported values written without building the tag list say what `supportedExtensions` lists, with
    /// and without 100rel, for every mix of settings.
    @Test func supportedHeaderValuesMatchTheExtensionList() throws {
        var configuration = InviteSessionConfiguration(contact: try address("<sip:alice@192.0.2.10>"))
        for reliable in [ReliableProvisionalPolicy.disabled, .supported, .required] {
            for timer in [SessionTimerConfiguration?.none, SessionTimerConfiguration()] {
                configuration.reliableProvisionalResponses = reliable
                configuration.sessionTimer = timer
                let tags = configuration.supportedExtensions
                #expect(configuration.supportedHeaderValue == tags.joined(separator: ", "))
                #expect(
                    configuration.supportedHeaderValueWithout100rel
                        == tags.filter { $0 != "100rel" }.joined(separator: ", "))
            }
        }
    }

    @Test func lateOfferGetsTheOfferInTheOKAndAnswersInTheACK() throws {
        let net = Harness("alice", "bob")
        net.call(from: "alice", to: "bob", offersInInvite: false)
        net.run()
        let invite = try #require(net["alice"].sent(.invite).first)
        #expect(invite.body.isEmpty)
        #expect(net["bob"].names() == [])
        net.command("bob") { $0.answer() }
        net.run()
        let ok = try #require(net["bob"].sent(status: 200).first)
        #expect(ok.headerFields[.contentType] == "application/sdp")
        let ack = try #require(net["alice"].sentACKs.first)
        #expect(ack.headerFields[.contentType] == "application/sdp")
        #expect(!ack.body.isEmpty)
        #expect(net["alice"].names() == ["connected"])
        #expect(net["bob"].names() == ["connected"])
        #expect(net["bob"].call?.negotiatedSession?.remoteRTPAddress?.port == 40000)
    }

    @Test func unreliableEarlyMediaIsAnsweredAgainInTheOK() throws {
        let net = Harness("alice", "bob")
        net["alice"].configuration.reliableProvisionalResponses = .disabled
        net.call(from: "alice", to: "bob")
        net.run()
        net.command("bob") { $0.ring(status: 183, earlyMedia: true) }
        net.run()
        let progress = try #require(net["bob"].sent(status: 183).first)
        #expect(progress.headerFields[.contentType] == "application/sdp")
        #expect(!progress.headerFields.contains(.rseq))
        #expect(net["alice"].names() == ["early media", "ringing 183"])
        net.command("bob") { $0.answer() }
        net.run()
        let ok = try #require(net["bob"].sent(status: 200).first)
        #expect(ok.body == progress.body)
        #expect(net["alice"].names() == ["early media", "ringing 183", "connected"])
    }

    @Test func cancelWaitsForAProvisionalResponseAndCarriesAReason() throws {
        let net = Harness("alice", "bob")
        net.call(from: "alice", to: "bob")
        net.command("alice") { $0.cancel(reason: Reason(protocol: "SIP", cause: 487, text: "User hung up")) }
        #expect(net["alice"].sent(.cancel).isEmpty)
        #expect(net["alice"].names() == ["ended local-ended"])
        net.run()
        #expect(net["alice"].sent(.cancel).isEmpty)
        net.command("bob") { $0.ring() }
        net.run()
        let cancel = try #require(net["alice"].sent(.cancel).first)
        let invite = try #require(net["alice"].sent(.invite).first)
        #expect(cancel.headerFields[.cseq] == "1 CANCEL")
        #expect(cancel.uri == invite.uri)
        #expect(cancel.headerFields[.to] == invite.headerFields[.to])
        #expect(cancel.headerFields[.from] == invite.headerFields[.from])
        #expect(cancel.headerFields[.reason] == "SIP;cause=487;text=\"User hung up\"")
        #expect(net["bob"].sent(status: 487).count == 1)
        #expect(net["bob"].names() == ["offer", "ended cancelled-by-caller"])
        #expect(net["alice"].names() == ["ended local-ended"])
        net.advance(by: .seconds(1))
        #expect(net["alice"].finished.contains(1))
        #expect(net["bob"].finished.contains(1))
    }

    @Test func cancelCrossingTheOKIsFollowedByACKAndBye() throws {
        let net = Harness("alice", "bob")
        net.call(from: "alice", to: "bob")
        net.run()
        net.command("bob") { $0.ring() }
        net.run()
        // Both at once: the CANCEL and the 200 cross on the wire.
        net.command("alice") { $0.cancel(reason: Reason(protocol: "SIP", cause: 487)) }
        net.command("bob") { $0.answer() }
        net.run()
        #expect(net["alice"].sent(.cancel).count == 1)
        #expect(net["alice"].sentACKs.count == 1)
        let bye = try #require(net["alice"].sent(.bye).first)
        #expect(bye.headerFields[.reason] == "SIP;cause=487")
        #expect(net["alice"].names() == ["ringing 180", "ended local-ended"])
        #expect(net["bob"].names() == ["offer", "connected", "ended remote-ended"])
    }

    @Test func okRetransmissionGetsTheSameACK() throws {
        var call = try ScriptedCall()
        _ = call.receive(try call.reply(180))
        let first = call.receive(try call.reply(200, sdp: peerAnswer))
        #expect(first.names == ["connected"])
        let ack = try #require(first.acks.first)
        #expect(ack.headerFields[.cseq] == "10 ACK")
        #expect(ack.uri.description == "sip:bob@192.0.2.20")
        let again = call.receive(try call.reply(200, sdp: peerAnswer))
        #expect(again.acks == [ack])
        #expect(again.names.isEmpty)
        // The transaction ends (Timer M): nothing more to re-send; the call goes on.
        let ended = call.session.transactionEnded(call.token)
        #expect(ended.isEmpty)
        #expect(call.session.state == .confirmed)
    }

    /// A 2xx whose fields the dialog reads do not parse (the response check leaves From and Contact to whoever
    /// reads them) ends the call, its reason naming the field.
    @Test(arguments: [
        ("Contact", "<sip:bob@192.0.2.20", "Malformed Record-Route or Contact"),
        ("From", "Alice <sip:alice@atlanta.example;tag=atag", "Malformed Call-ID, From, To or CSeq"),
    ])
    func a2xxWhoseDialogFieldsDoNotParseEndsTheCall(field: String, value: String, phrase: String) throws {
        var call = try ScriptedCall()
        var ok = try call.reply(200, sdp: peerAnswer)
        ok.headerFields.set(try #require(SIPField.Name(field)), value)
        let actions = call.receive(ok)
        let reason = try #require(actions.events.compactMap(\.endReason).first)
        #expect(reason.kind == .failed && reason.statusCode == 200 && reason.reasonPhrase == phrase)
        #expect(!actions.names.contains("connected"))
    }

    @Test func theCallFinishesAtTheBYEsAnswerWhileTheINVITELingers() throws {
        var call = try ScriptedCall()
        let first = call.receive(try call.reply(200, sdp: peerAnswer))
        let ack = try #require(first.acks.first)
        let hangUp = call.session.hangUp()
        let bye = try #require(hangUp.requests.first)
        let byeToken = try #require(hangUp.tokens.first)
        // The BYE answered: the INVITE's transaction is still Accepted (Timer M), yet nothing is left to do.
        let answered = call.session.receiveResponse(try call.reply(200, to: bye), for: byeToken)
        #expect(answered.isFinished)
        #expect(call.session.isFinished)
        let lingering = call.session.lingeringACKs
        #expect(lingering.map(\.token) == [call.token])
        #expect(lingering.map(\.request) == [ack])
        // A 2xx retransmission still gets the same ACK, from the session or from what a driver kept of it.
        let retransmission = try call.reply(200, sdp: peerAnswer)
        #expect(lingering.first?.acknowledges(retransmission, for: call.token) == true)
        #expect(lingering.first?.acknowledges(retransmission, for: byeToken) == false)
        let otherFork = try call.reply(200, tag: "other", sdp: peerAnswer)
        #expect(lingering.first?.acknowledges(otherFork, for: call.token) == false)
        let again = call.receive(retransmission)
        #expect(again.acks == [ack])
        #expect(!again.isFinished)
        // Timer M: the ACK goes with the transaction.
        #expect(call.session.transactionEnded(call.token).isEmpty)
        #expect(call.session.lingeringACKs.isEmpty)
        #expect(call.session.isFinished)
    }

    @Test(arguments: [
        (486, "busy"), (600, "declined"), (603, "declined"), (404, "failed"), (480, "failed"),
        (488, "not-acceptable"), (606, "not-acceptable"), (408, "timeout"), (503, "unreachable"),
    ])
    func finalResponsesMapToEndReasons(status: Int, kind: String) throws {
        var call = try ScriptedCall()
        let actions = call.receive(try call.reply(status, extra: ["Reason: Q.850;cause=17"]))
        let reason = try #require(actions.events.compactMap(\.endReason).first)
        #expect(reason.kind.description == kind)
        #expect(reason.statusCode == status)
        #expect(reason.reasons.first?.cause == 17)
        #expect(call.session.state == .terminated)
        #expect(actions.isFinished)
        #expect(actions.acks.isEmpty)
    }

    @Test func timeoutAndTransportErrorEndTheCall() throws {
        var call = try ScriptedCall()
        let timeout = call.session.transactionFailed(call.token, .timeout)
        #expect(timeout.names == ["ended timeout 408"])
        var other = try ScriptedCall()
        let error = other.session.transactionFailed(other.token, .transportError)
        #expect(error.names == ["ended unreachable 503"])
    }

    @Test func redirectionReportsTheContacts() throws {
        var call = try ScriptedCall()
        let actions = call.receive(
            try call.reply(302, extra: ["Contact: <sip:bob@192.0.2.30>;q=0.5, <sip:bob@192.0.2.31>;q=0.9"]))
        guard case .redirected(let contacts) = actions.events.first else {
            Issue.record("no redirect event: \(actions.names)")
            return
        }
        #expect(contacts.compactMap(\.uri?.description).contains("sip:bob@192.0.2.31"))
        #expect(actions.names.last == "ended redirected 302")
    }

    @Test func provisionalWithoutTagMakesNoDialog() throws {
        var call = try ScriptedCall()
        let trying = call.receive(try call.reply(100, tag: nil))
        #expect(trying.names == ["trying"])
        let ringing = call.receive(try call.reply(180, tag: nil))
        #expect(ringing.names == ["ringing 180"])
        #expect(call.session.dialog == nil)
        #expect(call.session.state == .early)
    }

    @Test func proxyChallengeIsAnsweredWithANewCSeqAndTheACKCarriesTheCredentials() throws {
        let authenticator = DigestAuthenticator(random: SeededRandom(9)) { realm in
            realm == "atlanta.example" ? DigestCredentials(username: "alice", secret: .password("secret")) : nil
        }
        var call = try ScriptedCall(authenticator: authenticator)
        let retry = call.receive(
            try call.reply(
                407,
                extra: [
                    "Proxy-Authenticate: Digest realm=\"atlanta.example\", nonce=\"abc\", qop=\"auth\", algorithm=MD5"
                ]
            ))
        let second = try #require(retry.requests.first)
        #expect(second.headerFields[.cseq] == "11 INVITE")
        #expect(second.headerFields[.proxyAuthorization]?.contains("username=\"alice\"") == true)
        #expect(second.body == call.invite.body)
        #expect(retry.names.isEmpty)
        call.token = try #require(retry.tokens.first)
        call.invite = second
        let ok = call.receive(try call.reply(200, sdp: peerAnswer))
        let ack = try #require(ok.acks.first)
        #expect(ack.headerFields[.cseq] == "11 ACK")
        #expect(ack.headerFields[.proxyAuthorization] == second.headerFields[.proxyAuthorization])
        // A second challenge after credentials were sent fails cleanly.
        var again = try ScriptedCall(authenticator: authenticator)
        let first = again.receive(
            try again.reply(407, extra: ["Proxy-Authenticate: Digest realm=\"atlanta.example\", nonce=\"n1\""]))
        again.token = try #require(first.tokens.first)
        again.invite = try #require(first.requests.first)
        let refused = again.receive(
            try again.reply(407, extra: ["Proxy-Authenticate: Digest realm=\"atlanta.example\", nonce=\"n2\""]))
        #expect(refused.requests.isEmpty)
        #expect(refused.names == ["ended failed 407"])
    }

    @Test func challengeWithoutAuthenticatorEndsTheCall() throws {
        var call = try ScriptedCall()
        let actions = call.receive(try call.reply(401, extra: ["WWW-Authenticate: Digest realm=\"x\", nonce=\"y\""]))
        #expect(actions.names == ["ended failed 401"])
    }

    @Test func answerWithoutSDPEndsTheCallWithACKAndBye() throws {
        var call = try ScriptedCall()
        let actions = call.receive(try call.reply(200))
        #expect(actions.acks.count == 1)
        let bye = try #require(actions.requests.first)
        #expect(bye.method == .bye)
        #expect(bye.headerFields[.reason]?.hasPrefix("SIP;cause=488") == true)
        #expect(actions.names == ["ended not-acceptable 488"])
    }

    @Test func lateOfferThatCannotBeAcceptedIsACKedThenEnded() throws {
        var call = try ScriptedCall(offersInInvite: false)
        let video = peerOffer.replacingOccurrences(of: "m=audio 50000 RTP/AVP 0 101", with: "m=audio 50000 RTP/AVP 96")
            .replacingOccurrences(of: "a=rtpmap:0 PCMU/8000", with: "a=rtpmap:96 weird/8000")
        let actions = call.receive(try call.reply(200, sdp: video))
        #expect(actions.acks.count == 1)
        #expect(actions.requests.map(\.method) == [.bye])
        #expect(actions.names == ["ended not-acceptable 488"])
    }
}
