import SIPMessage
import Testing

@testable import SIPUserAgent

/// A subscription driven in virtual time: the clock only moves when the test says so, timers fire in
/// order, and every SUBSCRIBE is kept with the time it left.
struct VirtualSubscriber {
    var subscription: Subscription
    var now: Duration = .zero
    var deadlines: [SessionTimer: Duration] = [:]
    /// Every SUBSCRIBE sent, with its token and time.
    var sent: [(request: SIPRequest, token: RequestToken, at: Duration)] = []
    var events: [SubscriptionEvent] = []
    var responses: [Int] = []
    var dialogs: Set<DialogID> = []
    var isFinished = false

    init(retry: Subscription.RetryPolicy? = Subscription.RetryPolicy(), expires: UInt32 = 600) throws {
        var configuration = Subscription.Configuration(
            expires: expires, contact: try address("<sip:alice@192.0.2.10>"))
        configuration.retry = retry
        subscription = Subscription(
            target: OutgoingCall(
                requestURI: try uri("sip:alice@vmail.example"), from: try address("<sip:alice@atlanta.example>"),
                to: try address("<sip:alice@atlanta.example>"), callID: "mwi-v", localTag: "v1"),
            configuration: configuration)
        apply(subscription.start())
    }

    mutating func apply(_ actions: [SubscriptionAction]) {
        for action in actions {
            switch action {
            case .sendRequest(let request, let token, _): sent.append((request, token, now))
            case .sendResponse(let response, _): responses.append(response.statusCode)
            case .startTimer(let timer, let after): deadlines[timer] = now + after
            case .cancelTimer(let timer): deadlines[timer] = nil
            case .dialogCreated(let id): dialogs.insert(id)
            case .dialogTerminated(let id): dialogs.remove(id)
            case .event(let event): events.append(event)
            case .finished: isFinished = true
            }
        }
    }

    /// Moves the clock to `time`, firing every timer due on the way, earliest first.
    mutating func advance(to time: Duration) {
        while let (timer, deadline) = deadlines.min(by: { $0.value < $1.value }), deadline <= time {
            deadlines[timer] = nil
            now = deadline
            apply(subscription.timerFired(timer))
        }
        now = time
    }

    mutating func advance(by delta: Duration) { advance(to: now + delta) }

    /// Answers the last SUBSCRIBE with `status` (a 2xx with To tag `vm`, Contact and Expires).
    mutating func answerLast(_ status: Int, expires: UInt32? = nil) {
        guard let last = sent.last else { return }
        answer(last.request, token: last.token, status, expires: expires)
    }

    mutating func answer(
        _ request: SIPRequest, token: RequestToken, _ status: Int, expires: UInt32? = nil,
        retryAfter: UInt32? = nil
    ) {
        var response = SIPResponse(answering: request, status: status, toTag: "vm")
        if (200..<300).contains(status) {
            response.headerFields.append(.contact, "<sip:vm@192.0.2.50>")
            response.headerFields.append(.expires, expires ?? 600)
        }
        if let retryAfter { response.headerFields.append(.retryAfter, retryAfter) }
        apply(subscription.receiveResponse(response, for: token))
    }

    /// A NOTIFY from the notifier in the current attempt's dialog.
    mutating func notify(_ state: String, cseq: Int, body: String = "Messages-Waiting: yes\r\nVoice-Message: 2/8\r\n")
        throws
    {
        let text = """
            NOTIFY sip:alice@192.0.2.10 SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.50;branch=z9hG4bKv\(cseq)-\(sent.count)
            From: <sip:alice@atlanta.example>;tag=vm
            To: <sip:alice@atlanta.example>;tag=\(subscription.localTag)
            Call-ID: mwi-v
            CSeq: \(cseq) NOTIFY
            Contact: <sip:vm@192.0.2.50>
            Event: message-summary
            Subscription-State: \(state)
            Content-Type: application/simple-message-summary
            Content-Length: \(body.utf8.count)

            \(body)
            """
        apply(
            subscription.receiveRequest(
                try request(text), transaction: ServerTransactionToken(rawValue: UInt64(cseq))))
    }

    /// The times the SUBSCRIBEs without To tag (new subscriptions) left.
    var initialSubscribeTimes: [Duration] {
        sent.filter { (try? $0.request.to)?.tag == nil }.map(\.at)
    }

    var retryDelays: [Duration] {
        events.compactMap { if case .retrying(let after) = $0 { after } else { nil } }
    }

    var terminations: [(Int?, String?)] {
        events.compactMap { if case .terminated(let status, let reason) = $0 { (status, reason) } else { nil } }
    }
}

/// Subscriptions kept alive by a retry policy (RFC 6665 §4.1.2, §4.1.3), in virtual time.
@Suite struct SubscriptionRetryTests {
    @Test func backOffDoublesFromTheInitialDelayUpToTheCap() {
        let policy = Subscription.RetryPolicy(initialDelay: .seconds(5), maximumDelay: .seconds(40))
        #expect((1...6).map { policy.delay(forRetry: $0) } == [5, 10, 20, 40, 40, 40].map { Duration.seconds($0) })
        #expect(policy.delay(forRetry: 4_000_000_000) == .seconds(40))
        #expect(Subscription.RetryPolicy(initialDelay: .zero).delay(forRetry: 4_000_000_000) == .zero)
        #expect(
            Subscription.RetryPolicy(initialDelay: .seconds(10), maximumDelay: .seconds(1)).maximumDelay == .seconds(10)
        )
    }

    @Test func failuresAreRetriedWithCappedBackOff() throws {
        var v = try VirtualSubscriber(retry: .init(initialDelay: .seconds(5), maximumDelay: .seconds(40)))
        // 503, timeout, 500, 408, transport error, 480: each a new SUBSCRIBE after the back-off.
        v.answerLast(503)
        v.advance(by: .seconds(60))
        v.apply(v.subscription.transactionFailed(v.sent[1].token, .timeout))
        v.advance(by: .seconds(60))
        v.answerLast(500)
        v.advance(by: .seconds(60))
        v.answerLast(408)
        v.advance(by: .seconds(60))
        v.apply(v.subscription.transactionFailed(v.sent[4].token, .transportError))
        v.advance(by: .seconds(60))
        v.answerLast(480)
        v.advance(by: .seconds(60))
        #expect(v.retryDelays == [5, 10, 20, 40, 40, 40].map { Duration.seconds($0) })
        #expect(v.sent.count == 7)
        #expect(v.terminations.isEmpty)
        // Each attempt is a new dialog: new From tag, no To tag, CSeq from 1.
        let tags = v.sent.compactMap { (try? $0.request.from)?.tag }
        #expect(Set(tags).count == 7)
        #expect(v.sent.allSatisfy { $0.request.headerFields[.cseq] == "1 SUBSCRIBE" })
        // Success then: the NOTIFY activates it and the subscription is refreshed in its dialog.
        v.answerLast(200, expires: 600)
        try v.notify("active;expires=600", cseq: 1)
        #expect(v.subscription.state == .active)
        let refreshAt = v.now + .seconds(568)
        v.advance(to: refreshAt)
        #expect(v.sent.count == 8)
        #expect((try v.sent[7].request.to)?.tag == "vm")
        #expect(v.sent[7].at == refreshAt)
    }

    @Test func retryAfterOfA503IsHonoured() throws {
        var v = try VirtualSubscriber()
        guard let first = v.sent.first else { return }
        v.answer(first.request, token: first.token, 503, retryAfter: 120)
        #expect(v.retryDelays == [.seconds(120)])
        v.advance(to: .seconds(119))
        #expect(v.sent.count == 1)
        v.advance(to: .seconds(120))
        #expect(v.sent.count == 2)
    }

    @Test(arguments: [403, 404, 489, 400, 603])
    func refusalsEndTheSubscription(status: Int) throws {
        var v = try VirtualSubscriber()
        v.answerLast(status)
        #expect(v.subscription.state == .terminated)
        #expect(v.isFinished)
        #expect(v.deadlines.isEmpty)
        #expect(v.terminations.first?.0 == status)
        v.advance(by: .seconds(3600))
        #expect(v.sent.count == 1)
    }

    @Test func aFailedRefreshStartsANewSubscription() throws {
        var v = try VirtualSubscriber(retry: .init(initialDelay: .seconds(5)))
        v.answerLast(200, expires: 100)
        try v.notify("active;expires=100", cseq: 1)
        v.advance(to: .seconds(68))
        #expect(v.sent.count == 2)
        // The notifier lost the subscription: 481 to the refresh.
        v.answerLast(481)
        #expect(v.dialogs.isEmpty)
        v.advance(by: .seconds(5))
        #expect(v.sent.count == 3)
        #expect((try v.sent[2].request.to)?.tag == nil)
    }

    @Test func notifierTerminationsRetryAtOnceThenBackOffUntilSettled() throws {
        var v = try VirtualSubscriber(retry: .init(initialDelay: .seconds(5), maximumDelay: .seconds(300)))
        v.answerLast(200)
        try v.notify("active;expires=600", cseq: 1)
        try v.notify("terminated;reason=deactivated", cseq: 2)
        // The first retry goes at once (RFC 6665 §4.1.3), the next ones back off.
        v.advance(by: .zero)
        #expect(v.sent.count == 2)
        v.answerLast(200)
        try v.notify("active;expires=600", cseq: 1)
        try v.notify("terminated;reason=deactivated", cseq: 2)
        v.advance(by: .seconds(4))
        #expect(v.sent.count == 2)
        v.advance(by: .seconds(1))
        #expect(v.sent.count == 3)
        v.answerLast(200)
        try v.notify("active;expires=600", cseq: 1)
        try v.notify("terminated;reason=timeout", cseq: 2)
        #expect(v.retryDelays == [.zero, .seconds(5), .seconds(10)])
        v.advance(by: .seconds(10))
        #expect(v.sent.count == 4)
        // Active for 64*T1: established again, so the next deactivation is retried at once.
        v.answerLast(200)
        try v.notify("active;expires=600", cseq: 1)
        v.advance(by: .seconds(32))
        try v.notify("terminated;reason=deactivated", cseq: 2)
        #expect(v.retryDelays.last == .zero)
        // A retry-after above the back-off wins.
        v.advance(by: .zero)
        v.answerLast(200)
        try v.notify("active;expires=600", cseq: 1)
        try v.notify("terminated;reason=probation;retry-after=90", cseq: 2)
        #expect(v.retryDelays.last == .seconds(90))
        // Rejected is final.
        v.advance(by: .seconds(90))
        v.answerLast(200)
        try v.notify("terminated;reason=rejected", cseq: 1)
        #expect(v.subscription.state == .terminated)
        #expect(v.isFinished)
    }

    @Test func noNotifyWithin64T1IsRetried() throws {
        var v = try VirtualSubscriber(retry: .init(initialDelay: .seconds(5)))
        v.answerLast(202)
        v.advance(to: .seconds(32))
        #expect(v.retryDelays == [.seconds(5)])
        v.advance(to: .seconds(37))
        #expect(v.sent.count == 2)
    }

    @Test func aNotifyBeforeThe2xxCreatesTheDialog() throws {
        var v = try VirtualSubscriber()
        try v.notify("active;expires=600", cseq: 1)
        #expect(v.responses == [200])
        #expect(v.subscription.state == .active)
        #expect(v.dialogs.contains { $0.remoteTag == "vm" })
        v.answerLast(200, expires: 600)
        #expect(v.subscription.dialog?.id.remoteTag == "vm")
        #expect(v.events.contains { if case .notified = $0 { true } else { false } })
    }

    @Test func lateAnswersToAnAbandonedAttemptAreIgnored() throws {
        var v = try VirtualSubscriber(retry: .init(initialDelay: .seconds(5)))
        v.answerLast(200, expires: 100)
        try v.notify("active;expires=100", cseq: 1)
        v.advance(to: .seconds(68))
        let refresh = try #require(v.sent.last)
        try v.notify("terminated;reason=deactivated", cseq: 2)
        v.advance(by: .zero)
        #expect(v.sent.count == 3)
        // The refresh's 481 arrives after the new attempt started: nothing happens.
        let count = v.events.count
        v.answer(refresh.request, token: refresh.token, 481)
        #expect(v.events.count == count)
        #expect(v.subscription.state == .subscribing)
    }

    @Test func unsubscribingWhileTheSubscribeIsInFlightEndsWhatTheNotifierAccepts() throws {
        var v = try VirtualSubscriber()
        let first = try #require(v.sent.first)
        v.apply(v.subscription.unsubscribe())
        #expect(v.subscription.state == .terminated)
        #expect(!v.isFinished)
        v.answer(first.request, token: first.token, 200, expires: 600)
        #expect(v.sent.count == 2)
        #expect(v.sent[1].request.headerFields[.expires] == "0")
        #expect((try v.sent[1].request.to)?.tag == "vm")
        v.answerLast(200)
        #expect(v.isFinished)
        #expect(v.dialogs.isEmpty)
    }

    @Test func unsubscribingTwiceSendsOneSubscribe() throws {
        var v = try VirtualSubscriber()
        v.answerLast(200)
        try v.notify("active;expires=600", cseq: 1)
        v.apply(v.subscription.unsubscribe())
        v.apply(v.subscription.unsubscribe())
        #expect(v.sent.count == 2)
        #expect(v.sent[1].request.headerFields[.expires] == "0")
        v.answerLast(200)
        try v.notify("terminated;reason=timeout", cseq: 2)
        #expect(v.isFinished)
        #expect(v.retryDelays.isEmpty)
    }

    @Test func unsubscribingDuringTheBackOffSendsNothing() throws {
        var v = try VirtualSubscriber()
        v.answerLast(503)
        #expect(!v.deadlines.isEmpty)
        v.apply(v.subscription.unsubscribe())
        #expect(v.isFinished)
        #expect(v.deadlines.isEmpty)
        v.advance(by: .seconds(600))
        #expect(v.sent.count == 1)
    }

    @Test func withoutAPolicyAFailureIsFinal() throws {
        var v = try VirtualSubscriber(retry: nil)
        v.answerLast(503)
        #expect(v.subscription.state == .terminated)
        #expect(v.isFinished)
    }
}
