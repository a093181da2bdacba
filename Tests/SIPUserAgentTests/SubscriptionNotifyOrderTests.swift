import SIPMessage
import Testing

@testable import SIPUserAgent

extension VirtualSubscriber {
    /// A NOTIFY for the current attempt, routed as a driver routes it: through a `DialogTable` of the dialogs
    /// the subscription announced. One that matches none is answered 481 there and never reaches the
    /// subscription.
    mutating func routeNotify(_ state: String, cseq: Int, toTag: String? = nil) throws {
        let body = "Messages-Waiting: yes\r\nVoice-Message: 1/0\r\n"
        let notify = try request(
            """
            NOTIFY sip:alice@192.0.2.10 SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.50;branch=z9hG4bKorder\(cseq)-\(sent.count)
            From: <sip:alice@atlanta.example>;tag=vm
            To: <sip:alice@atlanta.example>;tag=\(toTag ?? subscription.localTag)
            Call-ID: mwi-v
            CSeq: \(cseq) NOTIFY
            Contact: <sip:vm@192.0.2.50>
            Event: message-summary
            Subscription-State: \(state)
            Content-Type: application/simple-message-summary
            Content-Length: \(body.utf8.count)

            \(body)
            """)
        var table = DialogTable<Int>()
        for id in dialogs { table.insert(1, for: id) }
        guard case .dialog = table.match(notify) else {
            responses.append(481)
            return
        }
        apply(subscription.receiveRequest(notify, transaction: ServerTransactionToken(rawValue: UInt64(cseq))))
    }

    /// The dialogs announced with a notifier's tag.
    var establishedDialogs: [DialogID] { dialogs.filter { !$0.remoteTag.isEmpty } }
}

/// The NOTIFY that beats the SUBSCRIBE's 2xx (RFC 6665 §4.1.2.4): taken in every ordering, one dialog made.
@Suite struct SubscriptionNotifyOrderTests {
    @Test func aNotifyBeforeThe2xxIsRoutedAndThe2xxJoinsItsDialog() throws {
        var v = try VirtualSubscriber()
        let subscribe = try #require(v.sent.first)
        try v.routeNotify("active;expires=600", cseq: 1)
        #expect(v.responses == [200])
        #expect(v.subscription.state == .active)
        let made = try #require(v.subscription.dialog?.id)
        #expect(v.establishedDialogs == [made])
        // The 2xx comes afterwards: the same dialog, not a second one.
        v.answer(subscribe.request, token: subscribe.token, 200, expires: 600)
        #expect(v.subscription.dialog?.id == made)
        #expect(Array(v.dialogs) == [made])
        #expect(v.subscription.grantedExpires == 600)
        // Later NOTIFYs reach it in that dialog.
        try v.routeNotify("active;expires=600", cseq: 2)
        #expect(v.responses == [200, 200])
    }

    @Test func aNotifyAfterTheInitialSubscribeTimedOutIsTheSubscription() throws {
        // The SUBSCRIBE's transaction timed out (no 2xx reached us in 64*T1) but the notifier took it: its
        // NOTIFY is accepted, not answered 481, and no second subscription goes out.
        var v = try VirtualSubscriber(retry: .init(initialDelay: .seconds(5)))
        let subscribe = try #require(v.sent.first)
        v.apply(v.subscription.transactionFailed(subscribe.token, .timeout))
        #expect(v.retryDelays == [.seconds(5)])
        try v.routeNotify("active;expires=600", cseq: 1)
        #expect(v.responses == [200])
        #expect(v.subscription.state == .active)
        #expect(v.establishedDialogs.count == 1)
        #expect(v.dialogs.count == 1)
        v.advance(by: .seconds(60))
        #expect(v.sent.count == 1)
        #expect(v.events.contains { if case .active = $0 { true } else { false } })
    }

    @Test func theRetryAfterATimeoutDropsTheOldAttemptsRoute() throws {
        var v = try VirtualSubscriber(retry: .init(initialDelay: .seconds(5)))
        let subscribe = try #require(v.sent.first)
        let oldTag = v.subscription.localTag
        v.apply(v.subscription.transactionFailed(subscribe.token, .timeout))
        v.advance(by: .seconds(5))
        #expect(v.sent.count == 2)
        #expect(v.subscription.localTag != oldTag)
        // Only the new attempt is routed: a NOTIFY of the old one is unknown now.
        #expect(v.dialogs.map(\.localTag) == [v.subscription.localTag])
        try v.routeNotify("active;expires=600", cseq: 1, toTag: oldTag)
        #expect(v.responses == [481])
    }

    @Test func aRefusedSubscribeDropsItsRouteAtOnce() throws {
        // A final answer says the notifier did not take it: nothing of it stays routed during the back-off.
        var v = try VirtualSubscriber(retry: .init(initialDelay: .seconds(5)))
        v.answerLast(503)
        #expect(v.dialogs.isEmpty)
        try v.routeNotify("active;expires=600", cseq: 1)
        #expect(v.responses == [481])
    }
}
