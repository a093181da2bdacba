import SIPMessage
import Testing

@testable import SIPUserAgent

/// RFC 6665 subscriber state with message-summary (RFC 3842).
@Suite struct SubscriptionTests {
    static let summary = """
        Messages-Waiting: yes
        Message-Account: sip:alice@vmail.example.com
        Voice-Message: 4/8 (1/2)
        Fax-Message: 0/1

        To: <alice@atlanta.example.com>
        Subject: carpool

        """

    @Test func messageSummaryParsesAndRoundTrips() throws {
        let summary = try #require(MessageSummary(parsing: Array(Self.summary.utf8)))
        #expect(summary.messagesWaiting)
        #expect(summary.account == "sip:alice@vmail.example.com")
        #expect(summary.voice == MessageSummary.Counts(new: 4, old: 8, urgentNew: 1, urgentOld: 2))
        #expect(summary.counts["fax-message"] == MessageSummary.Counts(new: 0, old: 1))
        #expect(summary.counts.count == 2)
        let text = String(decoding: summary.body, as: UTF8.self)
        #expect(
            text
                == "Messages-Waiting: yes\r\nMessage-Account: sip:alice@vmail.example.com\r\nVoice-Message: 4/8 (1/2)\r\nFax-Message: 0/1\r\n"
        )
        #expect(MessageSummary(parsing: summary.body) == summary)
        #expect(MessageSummary(parsing: Array("Messages-Waiting: no\r\n".utf8))?.messagesWaiting == false)
    }

    @Test(arguments: ["", "Voice-Message: 1/2", "Messages-Waiting: maybe", "Messages-Waiting yes"])
    func messageSummaryNeedsMessagesWaiting(body: String) {
        #expect(MessageSummary(parsing: Array(body.utf8)) == nil)
    }

    @Test func malformedCountsAreSkipped() throws {
        let summary = try #require(
            MessageSummary(parsing: Array("Messages-Waiting: yes\nVoice-Message: x/2\nFax-Message: 1/2 (3/\n".utf8)))
        #expect(summary.counts.isEmpty)
    }

    func subscription() throws -> (Subscription, [SubscriptionAction]) {
        var subscription = Subscription(
            target: OutgoingCall(
                requestURI: try uri("sip:alice@vmail.example"), from: try address("<sip:alice@atlanta.example>"),
                to: try address("<sip:alice@atlanta.example>"), callID: "mwi-1", localTag: "s1"),
            configuration: Subscription.Configuration(contact: try address("<sip:alice@192.0.2.10>")))
        let actions = subscription.start()
        return (subscription, actions)
    }

    func notify(_ state: String, cseq: Int = 1, body: String = "Messages-Waiting: yes\r\nVoice-Message: 2/0\r\n")
        throws -> SIPRequest
    {
        try request(
            """
            NOTIFY sip:alice@192.0.2.10 SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.50;branch=z9hG4bKn\(cseq)
            From: <sip:alice@atlanta.example>;tag=vm1
            To: <sip:alice@atlanta.example>;tag=s1
            Call-ID: mwi-1
            CSeq: \(cseq) NOTIFY
            Contact: <sip:vm@192.0.2.50>
            Event: message-summary
            Subscription-State: \(state)
            Content-Type: application/simple-message-summary
            Content-Length: \(body.utf8.count)

            \(body)
            """)
    }

    @Test func subscribeThenNotifyThenRefreshThenUnsubscribe() throws {
        var (subscription, start) = try subscription()
        guard case .sendRequest(let subscribe, let token, _) = start.last else {
            Issue.record("no SUBSCRIBE")
            return
        }
        #expect(subscribe.headerFields[.event] == "message-summary")
        #expect(subscribe.headerFields[.expires] == "3600")
        #expect(subscribe.headerFields[.accept] == "application/simple-message-summary")
        #expect(subscribe.headerFields[.contact] == "<sip:alice@192.0.2.10>")
        // The pending dialog lets a NOTIFY that beats the 2xx find the subscription.
        guard case .dialogCreated(let pending) = start.first else {
            Issue.record("no pending dialog")
            return
        }
        var table = DialogTable<Int>()
        table.insert(1, for: pending)
        guard case .dialog = table.match(try notify("active;expires=3600")) else {
            Issue.record("NOTIFY not routed to the pending subscription")
            return
        }
        var ok = SIPResponse(answering: subscribe, status: 200, toTag: "vm1")
        ok.headerFields.append(.expires, 600)
        ok.headerFields.append(.contact, try address("<sip:vm@192.0.2.50>"))
        let accepted = subscription.receiveResponse(ok, for: token)
        #expect(subscription.dialog?.id.remoteTag == "vm1")
        #expect(subscription.state == .subscribing)
        let refreshTimer = accepted.compactMap { action -> (SessionTimer, Duration)? in
            if case .startTimer(let timer, let delay) = action, timer.kind == .subscriptionRefresh {
                return (timer, delay)
            }
            return nil
        }.first
        #expect(refreshTimer?.1 == .seconds(568))
        let notified = subscription.receiveRequest(
            try notify("active;expires=600"), transaction: ServerTransactionToken(rawValue: 1))
        #expect(
            notified.compactMap { action -> Int? in
                if case .sendResponse(let response, _) = action { return response.statusCode }
                return nil
            } == [200])
        #expect(subscription.state == .active)
        guard
            case .event(.notified(let first)) = notified.first(where: {
                if case .event(.notified) = $0 { return true }
                return false
            })
        else {
            Issue.record("no notification")
            return
        }
        #expect(MessageSummary(parsing: first.bodyBytes)?.voice?.new == 2)
        // Refresh in the dialog.
        let refresh = subscription.timerFired(
            try #require(subscription.timers.armed.first { $0.kind == .subscriptionRefresh }))
        guard case .sendRequest(let resubscribe, _, _) = refresh.first else {
            Issue.record("no refresh")
            return
        }
        #expect(try resubscribe.to?.tag == "vm1")
        #expect(resubscribe.headerFields[.cseq] == "2 SUBSCRIBE")
        // Unsubscribe: Expires 0, then the final NOTIFY ends it.
        let leave = subscription.unsubscribe()
        guard case .sendRequest(let unsubscribe, let leaveToken, _) = leave.first else {
            Issue.record("no unsubscribe")
            return
        }
        #expect(unsubscribe.headerFields[.expires] == "0")
        _ = subscription.receiveResponse(SIPResponse(answering: unsubscribe, status: 200), for: leaveToken)
        let final = subscription.receiveRequest(
            try notify("terminated;reason=timeout", cseq: 2), transaction: ServerTransactionToken(rawValue: 2))
        #expect(subscription.state == .terminated)
        #expect(
            final.contains {
                if case .event(.terminated(nil, "timeout")) = $0 { return true }
                return false
            })
    }

    @Test func refusalAndNotifierTerminationWithRetry() throws {
        var (refused, start) = try subscription()
        guard case .sendRequest(let subscribe, let token, _) = start.last else { return }
        let bad = refused.receiveResponse(SIPResponse(answering: subscribe, status: 489, toTag: "x"), for: token)
        #expect(refused.state == .terminated)
        #expect(
            bad.contains {
                if case .finished = $0 { return true }
                return false
            })
        // Deactivated by the notifier: a new SUBSCRIBE (new tag) after retry-after.
        var (deactivated, _) = try subscription()
        _ = deactivated.receiveRequest(
            try notify("active;expires=600"), transaction: ServerTransactionToken(rawValue: 1))
        let ended = deactivated.receiveRequest(
            try notify("terminated;reason=probation;retry-after=30", cseq: 2),
            transaction: ServerTransactionToken(rawValue: 2))
        #expect(
            ended.contains {
                if case .event(.retrying(let delay)) = $0 { return delay == .seconds(30) }
                return false
            })
        let retry = deactivated.timerFired(
            try #require(deactivated.timers.armed.first { $0.kind == .subscriptionRetry }))
        guard case .sendRequest(let again, _, _) = retry.last else {
            Issue.record("no retry")
            return
        }
        #expect(try again.from?.tag == "s1-1")
        #expect(try again.to?.tag == nil)
        // Rejected: over for good.
        var (rejected, _) = try subscription()
        _ = rejected.receiveRequest(
            try notify("terminated;reason=rejected"), transaction: ServerTransactionToken(rawValue: 1))
        #expect(rejected.state == .terminated)
    }

    @Test func notifyWithoutStateOrForAnotherPackageIsRefused() throws {
        var (subscription, _) = try subscription()
        var noState = try notify("active")
        noState.headerFields.removeAll(.subscriptionState)
        let refused = subscription.receiveRequest(noState, transaction: ServerTransactionToken(rawValue: 1))
        #expect(
            refused.compactMap { action -> Int? in
                if case .sendResponse(let response, _) = action { return response.statusCode }
                return nil
            } == [400])
        var presence = try notify("active")
        presence.headerFields.set(.event, EventHeader(package: "presence"))
        let wrong = subscription.receiveRequest(presence, transaction: ServerTransactionToken(rawValue: 2))
        #expect(
            wrong.compactMap { action -> Int? in
                if case .sendResponse(let response, _) = action { return response.statusCode }
                return nil
            } == [489])
    }

    @Test func noNotifyWithin64T1EndsTheSubscription() throws {
        var (subscription, start) = try subscription()
        guard case .sendRequest(let subscribe, let token, _) = start.last else { return }
        var ok = SIPResponse(answering: subscribe, status: 202, toTag: "vm1")
        ok.headerFields.append(.contact, try address("<sip:vm@192.0.2.50>"))
        let accepted = subscription.receiveResponse(ok, for: token)
        let timeout = try #require(
            accepted.compactMap { action -> (SessionTimer, Duration)? in
                if case .startTimer(let timer, let delay) = action, timer.kind == .subscriptionTimeout {
                    return (timer, delay)
                }
                return nil
            }.first)
        #expect(timeout.1 == .seconds(32))
        let ended = subscription.timerFired(timeout.0)
        #expect(subscription.state == .terminated)
        #expect(
            ended.contains {
                if case .event(.terminated(nil, "timeout")) = $0 { return true }
                return false
            })
    }

    @Test func intervalTooBriefIsRetriedWithMinExpires() throws {
        var (subscription, start) = try subscription()
        guard case .sendRequest(let subscribe, let token, _) = start.last else { return }
        var brief = SIPResponse(answering: subscribe, status: 423, toTag: "x")
        brief.headerFields.append(.minExpires, 7200)
        let retry = subscription.receiveResponse(brief, for: token)
        guard case .sendRequest(let again, _, _) = retry.first else {
            Issue.record("no retry")
            return
        }
        #expect(again.headerFields[.expires] == "7200")
        #expect(again.headerFields[.cseq] == "2 SUBSCRIBE")
    }
}
