import SDP
import SIPMessage
import Testing

@testable import SIPUserAgent

/// RFC 3515 REFER with RFC 3891 Replaces and RFC 3892 Referred-By, both roles.
@Suite struct ReferTests {
    @Test func blindTransferReportsTheTransfereesCallInSipfragNotifies() throws {
        let net = Harness("alice", "bob", "carol")
        net.call(from: "alice", to: "bob")
        net.run()
        net.command("bob") { $0.answer() }
        net.run()
        let carol = try uri("sip:carol@carol.example")
        let referrer = try address("<sip:alice@alice.example>")
        net.command("alice") { $0.refer(to: carol, referredBy: referrer) }
        net.run()
        let refer = try #require(net["alice"].sent(.refer).first)
        #expect(refer.headerFields[.referTo] == "<sip:carol@carol.example>")
        #expect(refer.headerFields[.referredBy] == "<sip:alice@alice.example>")
        guard case .referReceived(let referral) = net["bob"].events(of: 1).last else {
            Issue.record("no refer event: \(net["bob"].names())")
            return
        }
        #expect(referral.target.description == "sip:carol@carol.example")
        #expect(referral.replaces == nil)
        #expect(referral.referredBy?.uri.description == "sip:alice@alice.example")
        net.command("bob") { $0.acceptRefer(referral.id) }
        net.run()
        #expect(net["bob"].sent(status: 202).count == 1)
        let trying = try #require(net["bob"].sent(.notify).first)
        #expect(trying.headerFields[.event] == "refer")
        #expect(trying.headerFields[.subscriptionState] == "active;expires=60")
        #expect(trying.headerFields[.contentType] == "message/sipfrag;version=2.0")
        #expect(trying.bodyText == "SIP/2.0 100 Trying\r\n")
        #expect(net["alice"].names().suffix(2) == ["refer answered 202", "refer progress 100"])
        // Bob calls Carol and reports how it goes.
        let bobToCarol = net.call(
            from: "bob", to: "carol", headers: [SIPField(name: .referredBy, value: "<sip:alice@alice.example>")])
        net.run()
        net.command("carol") { $0.ring() }
        net.run()
        net.command("bob") { $0.notifyRefer(referral.id, status: 180) }
        net.command("carol") { $0.answer() }
        net.run()
        #expect(net["bob"].names(bobToCarol).last == "connected")
        net.command("bob") { $0.notifyRefer(referral.id, status: 200) }
        net.run()
        let final = try #require(net["bob"].sent(.notify).last)
        #expect(final.headerFields[.subscriptionState] == "terminated;reason=noresource")
        #expect(net["alice"].names().suffix(2) == ["refer progress 180", "refer progress 200 final"])
        #expect(net["alice"].call?.referrals.outgoing.isEmpty == true)
        // Further notifications for a finished referral are not sent.
        net.command("bob") { $0.notifyRefer(referral.id, status: 200) }
        #expect(net["bob"].sent(.notify).count == 3)
    }

    @Test func attendedTransferReplacesTheConsultationCall() throws {
        let net = Harness("alice", "bob", "carol")
        // Alice talks to Bob (held) and to Carol (consultation).
        let aliceBob = net.call(from: "alice", to: "bob")
        net.run()
        net.command("bob") { $0.answer() }
        net.run()
        let aliceCarol = net.call(from: "alice", to: "carol")
        net.run()
        net.command("carol") { $0.answer() }
        net.run()
        let consultation = try #require(net["alice"].sessions[aliceCarol]?.dialog)
        net.command("alice", session: aliceBob) {
            $0.refer(
                to: .sip(SIPURI(user: "carol", host: SIPHost("carol.example").unsafelyUnwrappedForTests)),
                replaces: consultation.replaces)
        }
        net.run()
        let refer = try #require(net["alice"].sent(.refer).first)
        #expect(
            refer.headerFields[.referTo]?.contains(
                "?Replaces=call-alice-2%40alice.example%3Bto-tag%3Dcaroltag1%3Bfrom-tag%3Dalicetag2") == true)
        guard case .referReceived(let referral) = net["bob"].events(of: 1).last else {
            Issue.record("no refer event")
            return
        }
        let replaces = try #require(referral.replaces)
        #expect(replaces.callID == "call-alice-2@alice.example")
        #expect(replaces.toTag == "caroltag1")
        #expect(replaces.fromTag == "alicetag2")
        #expect(referral.target.description == "sip:carol@carol.example")
        net.command("bob") { $0.acceptRefer(referral.id) }
        net.run()
        // Bob's INVITE to Carol carries Replaces; Carol finds the dialog it names.
        let bobToCarol = net.call(
            from: "bob", to: "carol", headers: [SIPField(name: .replaces, value: replaces.wireForm)])
        net.run()
        let carol = net["carol"]
        let incoming = try #require(carol.sessions.keys.max())
        let invite = try #require(net["bob"].sent(.invite).last)
        let named = try #require(try invite.replaces)
        let (_, replacedSession) = try #require(carol.dialogs.match(named))
        #expect(replacedSession == 1)
        #expect(carol.sessions[replacedSession]?.replacementRefusal(for: named) == nil)
        net.command("carol", session: incoming) { $0.answer() }
        net.command("carol", session: replacedSession) { $0.endReplaced() }
        net.run()
        #expect(net["bob"].names(bobToCarol).last == "connected")
        #expect(carol.names(replacedSession).last == "ended replaced")
        #expect(net["alice"].names(aliceCarol).last == "ended remote-ended")
        net.command("bob") { $0.notifyRefer(referral.id, status: 200) }
        net.run()
        #expect(net["alice"].names(aliceBob).last == "refer progress 200 final")
    }

    @Test func referSubFalseSuppressesNotificationsAndRejectionDeclines() throws {
        let net = Harness.connected()
        net.command("alice") {
            $0.refer(
                to: .sip(SIPURI(user: "carol", host: SIPHost("carol.example").unsafelyUnwrappedForTests)),
                headers: [SIPField(name: .referSub, value: "false")])
        }
        net.run()
        guard case .referReceived(let referral) = net["bob"].events(of: 1).last else {
            Issue.record("no refer")
            return
        }
        #expect(referral.suppressesNotifications)
        net.command("bob") { $0.acceptRefer(referral.id) }
        net.run()
        #expect(net["bob"].sent(status: 202).first?.headerFields[.referSub] == "false")
        #expect(net["bob"].sent(.notify).isEmpty)
        net.command("alice") {
            $0.refer(to: .sip(SIPURI(user: "dave", host: SIPHost("dave.example").unsafelyUnwrappedForTests)))
        }
        net.run()
        guard case .referReceived(let second) = net["bob"].events(of: 1).last else {
            Issue.record("no second refer")
            return
        }
        net.command("bob") { $0.rejectRefer(second.id) }
        net.run()
        #expect(net["alice"].names().last == "refer answered 603")
    }

    @Test func referWithoutReferToGets400AndStrayNotifies481Or489() throws {
        let net = Harness.connected()
        // Requests built in Alice's dialog, delivered to Bob's session by hand.
        var dialog = try #require(net["alice"].call?.dialog)
        var refer = dialog.makeRequest(.refer)
        refer.headerFields.append(.contact, try address("<sip:alice@alice.example>"))
        var session = try #require(net["bob"].call)
        let bad = session.receiveRequest(refer, transaction: ServerTransactionToken(rawValue: 900))
        #expect(bad.responses.map(\.statusCode) == [400])
        var notify = dialog.makeRequest(.notify)
        notify.headerFields.append(.event, EventHeader(package: "refer", id: "99"))
        notify.headerFields.append(.subscriptionState, SubscriptionState(state: "active"))
        let unknown = session.receiveRequest(notify, transaction: ServerTransactionToken(rawValue: 901))
        #expect(unknown.responses.map(\.statusCode) == [481])
        var presence = dialog.makeRequest(.notify)
        presence.headerFields.append(.event, EventHeader(package: "presence"))
        let badEvent = session.receiveRequest(presence, transaction: ServerTransactionToken(rawValue: 902))
        #expect(badEvent.responses.map(\.statusCode) == [489])
    }

    @Test(arguments: [
        ("confirmed", false, nil as Int?), ("confirmed", true, 486), ("terminated", false, 603),
        ("uac-early", false, nil), ("uas-early", false, 481),
    ])
    func replacesIsRefusedAsRFC3891Says(state: String, earlyOnly: Bool, expected: Int?) throws {
        let replaces = Replaces(callID: "c", toTag: "t", fromTag: "f", isEarlyOnly: earlyOnly)
        let net = Harness("alice", "bob")
        net.call(from: "alice", to: "bob")
        net.run()
        net.command("bob") { $0.ring() }
        net.run()
        switch state {
        case "uac-early":
            #expect(net["alice"].call?.replacementRefusal(for: replaces) == expected)
        case "uas-early":
            #expect(net["bob"].call?.replacementRefusal(for: replaces) == expected)
        default:
            net.command("bob") { $0.answer() }
            net.run()
            if state == "terminated" {
                net.command("bob") { $0.hangUp() }
                net.run()
            }
            #expect(net["bob"].call?.replacementRefusal(for: replaces) == expected)
        }
    }

    @Test func referToSplitsAndBuildsEmbeddedReplaces() throws {
        let replaces = Replaces(callID: "425928@bobster.example.org", toTag: "7743", fromTag: "6472", isEarlyOnly: true)
        let referTo = ReferTo.address(target: try uri("sip:carol@example.com"), replaces: replaces)
        #expect(
            referTo.wireForm
                == "<sip:carol@example.com?Replaces=425928%40bobster.example.org%3Bto-tag%3D7743%3Bfrom-tag%3D6472%3Bearly-only>"
        )
        let reparsed = try NameAddress(referTo.wireForm)
        let (target, parsed) = ReferTo.split(reparsed)
        #expect(target.description == "sip:carol@example.com")
        #expect(parsed == replaces)
        let (plain, none) = ReferTo.split(try address("<sip:carol@example.com>"))
        #expect(plain.description == "sip:carol@example.com")
        #expect(none == nil)
    }
}
