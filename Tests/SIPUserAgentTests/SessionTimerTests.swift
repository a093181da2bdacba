import SDP
import SIPMessage
import Testing

@testable import SIPUserAgent

/// RFC 4028: session timer negotiation, refresh by UPDATE or re-INVITE, 422 with Min-SE, BYE on expiry.
@Suite struct SessionTimerTests {
    @Test func sessionExpires90IsRefreshedByUpdateEvery45Seconds() throws {
        let net = Harness.connected { net in
            net["alice"].configuration.sessionTimer = SessionTimerConfiguration(interval: 90)
        }
        let invite = try #require(net["alice"].sent(.invite).first)
        #expect(invite.headerFields[.sessionExpires] == "90")
        let ok = try #require(net["bob"].sent(status: 200).first)
        #expect(ok.headerFields[.sessionExpires] == "90;refresher=uac")
        #expect(ok.headerFields[.require] == "timer")
        net.advance(by: .milliseconds(44_900))
        #expect(net["alice"].sent(.update).isEmpty)
        net.advance(by: .milliseconds(200))
        let refresh = try #require(net["alice"].sent(.update).first)
        #expect(refresh.body.isEmpty)
        #expect(refresh.headerFields[.sessionExpires] == "90;refresher=uac")
        #expect(refresh.headerFields[.minSE] == "90")
        #expect(net["alice"].names().last == "refreshed 90")
        #expect(net["bob"].names().last == "refreshed 90")
        // Five minutes later the call is still up, refreshed every 45 s.
        net.advance(by: .seconds(300))
        #expect(net["alice"].sent(.update).count == 7)
        #expect(net["alice"].call?.state == .confirmed)
        #expect(net["bob"].call?.state == .confirmed)
        #expect(net.count(.bye, from: "bob") == 0)
    }

    @Test func refreshByReinviteKeepsTheSDPVersion() throws {
        let net = Harness.connected { net in
            net["alice"].configuration.sessionTimer = SessionTimerConfiguration(interval: 90, refreshMethod: .invite)
        }
        net.advance(by: .seconds(46))
        let invites = net["alice"].sent(.invite)
        #expect(invites.count == 2)
        let first = try SessionDescription(parsing: try #require(invites.first).body)
        let refresh = try SessionDescription(parsing: try #require(invites.last).body)
        #expect(refresh.origin.sessionVersion == first.origin.sessionVersion)
        #expect(net["alice"].names().last == "refreshed 90")
        #expect(net["bob"].names().last == "refreshed 90")
    }

    @Test func noRefreshMeansByeAtTheIntervalMinusAThird() throws {
        let net = Harness.connected { net in
            net["alice"].configuration.sessionTimer = SessionTimerConfiguration(interval: 90)
        }
        // Alice's refreshes never arrive.
        net.drop = { delivery in
            if case .request(let request, _, _, _) = delivery { return request.method == .update }
            return false
        }
        net.advance(by: .milliseconds(59_900))
        #expect(net.count(.bye, from: "bob") == 0)
        net.advance(by: .milliseconds(200))
        // 90 - min(32, 90/3) = 60 s.
        let bye = try #require(net["bob"].sent(.bye).first)
        #expect(bye.headerFields[.reason] == "SIP;cause=408;text=\"Session expired\"")
        #expect(net["bob"].endReason?.kind == .timeout)
        #expect(net["alice"].endReason?.kind == .remoteEnded)
    }

    @Test func intervalTooSmallGets422AndTheRetryAsksForMinSE() throws {
        let net = Harness("alice", "bob")
        net["alice"].configuration.sessionTimer = SessionTimerConfiguration(interval: 90)
        net["bob"].configuration.sessionTimer = SessionTimerConfiguration(interval: 1800, minimumInterval: 300)
        net.call(from: "alice", to: "bob")
        net.run()
        let refusal = try #require(net["bob"].sent(status: 422).first)
        #expect(refusal.headerFields[.minSE] == "300")
        let invites = net["alice"].sent(.invite)
        #expect(invites.count == 2)
        #expect(invites.last?.headerFields[.sessionExpires] == "300")
        #expect(invites.last?.headerFields[.minSE] == "300")
        #expect(invites.last?.headerFields[.cseq] == "2 INVITE")
        #expect(net["alice"].names().isEmpty)
        // The first attempt's UAS session ended with the 422; the second one rings.
        let second = try #require(net["bob"].sessions.keys.max())
        net.command("bob", session: second) { $0.answer() }
        net.run()
        #expect(net["alice"].names() == ["connected"])
        #expect(net["alice"].call?.sessionTimer?.interval == 300)
    }

    @Test func uasCanBeTheRefresher() throws {
        let net = Harness.connected { net in
            net["alice"].configuration.sessionTimer = SessionTimerConfiguration(interval: 120)
            net["bob"].configuration.sessionTimer = SessionTimerConfiguration(preferredRefresher: .local)
        }
        let ok = try #require(net["bob"].sent(status: 200).first)
        #expect(ok.headerFields[.sessionExpires] == "120;refresher=uas")
        net.advance(by: .seconds(61))
        #expect(net["bob"].sent(.update).count == 1)
        #expect(net["alice"].sent(.update).isEmpty)
        #expect(try net["bob"].sent(.update).first?.sessionExpires?.refresher == .uac)
        #expect(net["alice"].names().last == "refreshed 120")
    }

    @Test func peerWithoutTimerSupportLeavesTheRefreshToTheUAS() throws {
        let invite = IncomingCallTests.invite.replacingOccurrences(
            of: "Supported: timer, replaces", with: "Supported: replaces\nSession-Expires: 1000;refresher=uac")
        var configuration = InviteSessionConfiguration(contact: try address("<sip:bob@192.0.2.20>"))
        configuration.sessionTimer = SessionTimerConfiguration()
        var session = InviteSession(
            incoming: try request(invite), transaction: ServerTransactionToken(rawValue: 1), localTag: "btag",
            configuration: configuration, offerAnswer: .testing(address: "192.0.2.20", port: 50000),
            random: SeededRandom(5))
        _ = session.start()
        let answer = session.answer()
        let ok = try #require(answer.responses.first)
        #expect(ok.headerFields[.sessionExpires] == "1000;refresher=uas")
        #expect(!ok.headerFields.contains(.require))
        #expect(answer.timer(.sessionRefresh)?.1 == .seconds(500))
    }

    @Test func okWithoutSessionExpiresMeansNoTimer() throws {
        var call = try ScriptedCall()
        let actions = call.receive(try call.reply(200, sdp: peerAnswer))
        #expect(actions.timer(.sessionRefresh) == nil)
        #expect(actions.timer(.sessionExpiry) == nil)
        #expect(call.session.sessionTimer == nil)
    }

    /// Issue 4 §7: Asterisk answers with `Supported: 100rel, timer, replaces, norefersub`,
    /// `Session-Expires: 1800` (it refreshes) and `Min-SE: 90`, then refreshes by re-INVITE.
    @Test func asteriskStyleRefresherReinvitesAreAnsweredAndResetTheExpiry() throws {
        var call = try ScriptedCall()
        let connected = call.receive(
            try call.reply(
                200,
                extra: [
                    "Supported: 100rel, timer, replaces, norefersub", "Session-Expires: 1800;refresher=uas",
                    "Min-SE: 90", "Require: timer",
                    "Allow: OPTIONS, REGISTER, SUBSCRIBE, NOTIFY, PUBLISH, INVITE, ACK, BYE, CANCEL, UPDATE, PRACK, REFER, MESSAGE",
                ], sdp: peerAnswer))
        #expect(connected.names == ["connected"])
        #expect(connected.timer(.sessionRefresh) == nil)
        #expect(connected.timer(.sessionExpiry)?.1 == .seconds(1768))
        var reinvite = try request(
            """
            INVITE sip:alice@192.0.2.10 SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.20;branch=z9hG4bKast1
            From: <sip:bob@biloxi.example>;tag=btag
            To: <sip:alice@atlanta.example>;tag=atag
            Call-ID: scripted-call
            CSeq: 102 INVITE
            Contact: <sip:bob@192.0.2.20>
            Supported: 100rel, timer, replaces, norefersub
            Session-Expires: 1800;refresher=uac
            Min-SE: 90


            """)
        reinvite.setBody(try SessionDescription(parsing: peerAnswer.replacingOccurrences(of: "\n", with: "\r\n")))
        let refreshed = call.session.receiveRequest(reinvite, transaction: ServerTransactionToken(rawValue: 5))
        let ok = try #require(refreshed.responses.first)
        #expect(ok.statusCode == 200)
        #expect(ok.headerFields[.sessionExpires] == "1800;refresher=uac")
        #expect(ok.headerFields[.require] == "timer")
        #expect(ok.headerFields[.contentType] == "application/sdp")
        #expect(refreshed.names == ["refreshed 1800"])
        #expect(refreshed.timer(.sessionExpiry)?.1 == .seconds(1768))
    }
}
