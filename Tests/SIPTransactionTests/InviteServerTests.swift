import SIPMessage
import SIPTransaction
import Testing

@Suite("INVITE server transaction (RFC 3261 §17.2.1, RFC 6026 §8.7)")
struct InviteServerTests {
    let t1 = Harness.t1

    /// Receives an INVITE and returns its server transaction.
    func start(_ h: inout Harness, _ invite: SIPRequest, isReliable: Bool = false) throws -> TransactionID {
        h.receive(invite, isReliable: isReliable)
        return try #require(h.newRequests.last?.id)
    }

    @Test func hundredTryingGoesOutAfter200msWhenTheTUIsSilent() throws {
        var h = Harness()
        let invite = try Messages.request(
            .invite, extraVias: ["SIP/2.0/UDP proxy.example;branch=z9hG4bK-p"], extra: ["Timestamp: 54"])
        _ = try start(&h, invite)
        h.advance(by: .milliseconds(199))
        #expect(h.sent.isEmpty)
        h.advance(by: .milliseconds(1))
        #expect(h.sendTimes(status: 100) == [.milliseconds(200)])
        let trying = try #require(h.sentResponses.first)
        #expect(h.sent.first?.to == "client")
        #expect(try trying.via == invite.via)
        #expect(try trying.to == invite.to)
        #expect(try trying.to?.tag == nil)
        #expect(try trying.from == invite.from)
        #expect(try trying.callID == invite.callID)
        #expect(try trying.cseq == invite.cseq)
        #expect(try trying.timestamp == invite.timestamp)
        h.advance(by: .seconds(10))
        #expect(h.sendTimes(status: 100).count == 1)
        #expect(h.timersAreClean)
    }

    @Test func noHundredTryingWhenTheTUAnswersInTime() throws {
        var h = Harness()
        let invite = try Messages.request(.invite)
        let id = try start(&h, invite)
        h.advance(by: .milliseconds(150))
        try h.respond(try Messages.response(to: invite, 180), in: id)
        #expect(!h.scheduler.isArmed(TimerID(id, .trying)))
        h.advance(by: .seconds(5))
        #expect(h.sentResponses.map(\.statusCode) == [180])
        #expect(h.timersAreClean)
    }

    @Test func zeroTryingDelaySendsHundredTryingAtOnce() throws {
        var timers = Harness.timers
        timers.tryingDelay = .zero
        var h = Harness(configuration: TransactionConfiguration(timers: timers))
        _ = try start(&h, try Messages.request(.invite))
        #expect(h.sendTimes(status: 100) == [.zero])
        #expect(h.scheduler.armed.isEmpty)
    }

    @Test func retransmittedInviteInProceedingGetsTheLastProvisionalAndNeverReachesTheTU() throws {
        var h = Harness()
        let invite = try Messages.request(.invite)
        let id = try start(&h, invite)
        h.advance(by: .milliseconds(50))
        h.receive(invite)
        #expect(h.sent.isEmpty)
        try h.respond(try Messages.response(to: invite, 180), in: id)
        try h.respond(try Messages.response(to: invite, 183), in: id)
        h.receive(invite)
        #expect(h.sentResponses.map(\.statusCode) == [180, 183, 183])
        #expect(h.newRequests.count == 1)
        #expect(h.layer.count == 1)
    }

    @Test func non2xxIsRetransmittedOnTimerGUpToT2AndTimerHReportsTheMissingACK() throws {
        var h = Harness()
        let invite = try Messages.request(.invite)
        let id = try start(&h, invite)
        try h.respond(try Messages.response(to: invite, 486), in: id)
        h.advance(by: t1 * 64 - .milliseconds(1))
        // G: T1, 2T1, then T2 = 4T1 between retransmissions: 0, 1, 3, 7, 11, ... 63 (in T1).
        let expected = [0, 1, 3] + Array(stride(from: 7, through: 63, by: 4))
        #expect(h.sendTimes(status: 486) == expected.map { t1 * $0 })
        #expect(h.timedOut(id) == nil)
        h.advance(by: .milliseconds(1))
        #expect(h.timedOut(id) == t1 * 64)
        #expect(h.terminationTime(id) == t1 * 64)
        #expect(h.layer.count == 0)
        #expect(h.timersAreClean)
    }

    @Test func retransmittedInviteInCompletedGetsTheFinalResponseAgain() throws {
        var h = Harness()
        let invite = try Messages.request(.invite)
        let id = try start(&h, invite)
        try h.respond(try Messages.response(to: invite, 404), in: id)
        h.advance(by: .milliseconds(50))
        h.receive(invite)
        #expect(h.sendTimes(status: 404) == [.zero, .milliseconds(50)])
        #expect(h.newRequests.count == 1)
    }

    @Test func ackConfirmsStopsTimerGAndIsAbsorbedUntilTimerI() throws {
        var h = Harness()
        let invite = try Messages.request(.invite)
        let id = try start(&h, invite)
        let busy = try Messages.response(to: invite, 486)
        try h.respond(busy, in: id)
        h.advance(by: .milliseconds(150))
        // The ACK of a non-2xx shares the INVITE's branch (§17.1.1.3).
        let ack = try Messages.request(.ack, toTag: "to-1")
        h.receive(ack)
        guard case .inviteServer(let t) = h.layer.transaction(id) else {
            Issue.record("transaction gone")
            return
        }
        #expect(t.state == .confirmed)
        h.advance(by: .milliseconds(200))
        h.receive(ack)
        h.receive(invite)
        #expect(h.acks.isEmpty)
        #expect(h.sendTimes(status: 486) == [.zero, t1])
        #expect(h.timedOut(id) == nil)
        // I = T4 (500 ms here) after the first ACK.
        #expect(h.terminationTime(id) == nil)
        h.advance(to: .milliseconds(650))
        #expect(h.terminationTime(id) == .milliseconds(650))
        #expect(h.layer.count == 0)
        #expect(h.timersAreClean)
    }

    @Test func reliableTransportNeverRetransmitsAndTheACKTerminatesAtOnce() throws {
        var h = Harness()
        let invite = try Messages.request(.invite, transport: "TCP")
        let id = try start(&h, invite, isReliable: true)
        try h.respond(try Messages.response(to: invite, 480), in: id)
        h.advance(by: .seconds(3))
        #expect(h.sendTimes(status: 480) == [.zero])
        h.receive(try Messages.request(.ack, transport: "TCP", toTag: "to-1"), isReliable: true)
        #expect(h.terminationTime(id) == .seconds(3))
        #expect(h.timersAreClean)
    }

    @Test func reliableTransportWithoutACKTimesOutOnTimerH() throws {
        var h = Harness()
        let invite = try Messages.request(.invite, transport: "TCP")
        let id = try start(&h, invite, isReliable: true)
        try h.respond(try Messages.response(to: invite, 480), in: id)
        h.advance(by: .seconds(10))
        #expect(h.timedOut(id) == t1 * 64)
        #expect(h.timersAreClean)
    }

    @Test func twoHundredEntersAcceptedWhereInviteRetransmissionsAreAbsorbedUntilTimerL() throws {
        var h = Harness()
        let invite = try Messages.request(.invite)
        let id = try start(&h, invite)
        h.advance(by: .milliseconds(20))
        let ok = try Messages.response(to: invite, 200)
        try h.respond(ok, in: id)
        guard case .inviteServer(let t) = h.layer.transaction(id) else {
            Issue.record("transaction gone")
            return
        }
        #expect(t.state == .accepted)
        // Nothing is sent again from Accepted, so the 2xx is not kept for the 64*T1 the state lasts.
        #expect(t.lastResponse == nil)
        // RFC 6026 §8.7: INVITE retransmissions are absorbed: no response, no new transaction.
        h.advance(by: .milliseconds(500))
        h.receive(invite)
        #expect(h.newRequests.count == 1)
        #expect(h.sentResponses.count == 1)
        // The transaction does not retransmit the 2xx itself; the TU does, through it.
        h.advance(by: .seconds(1))
        try h.respond(ok, in: id)
        #expect(h.sendTimes(status: 200) == [.milliseconds(20), .milliseconds(1520)])
        // Anything but a 2xx is refused in Accepted.
        try h.respond(try Messages.response(to: invite, 500), in: id)
        #expect(h.sentResponses.count == 2)
        h.advance(to: .milliseconds(20) + t1 * 64 - .milliseconds(1))
        #expect(!h.isTerminated(id))
        h.advance(by: .milliseconds(1))
        #expect(h.terminationTime(id) == .milliseconds(20) + t1 * 64)
        #expect(h.timedOut(id) == nil)
        #expect(h.layer.count == 0)
        #expect(h.timersAreClean)
    }

    @Test func ackForA2xxGoesToTheTUWithOrWithoutTheTransaction() throws {
        var h = Harness()
        let invite = try Messages.request(.invite)
        let id = try start(&h, invite)
        try h.respond(try Messages.response(to: invite, 200), in: id)
        // The usual ACK of a 2xx has a branch of its own: no transaction matches it.
        let ack = try Messages.ackFor2xx(invite)
        h.receive(ack)
        // An ACK reusing the INVITE's branch matches the transaction in Accepted and is passed up.
        let sameBranch = try Messages.request(.ack, toTag: "to-1")
        h.receive(sameBranch)
        #expect(h.acks.map(\.transaction) == [nil, id])
        #expect(h.acks.map(\.request) == [ack, sameBranch])
        #expect(h.layer.count == 1)
    }

    @Test func transportErrorsAreReportedAndOnlyCompletedTerminates() throws {
        var h = Harness()
        let invite = try Messages.request(.invite)
        let id = try start(&h, invite)
        try h.respond(try Messages.response(to: invite, 180), in: id)
        h.transportError(id)
        #expect(h.events.last?.event == .transportError(id))
        #expect(h.layer.count == 1)
        try h.respond(try Messages.response(to: invite, 200), in: id)
        h.transportError(id)
        #expect(h.events.last?.event == .transportError(id))
        #expect(h.layer.count == 1)

        let second = try Messages.request(.invite, branch: "z9hG4bK-2", callID: "call-2")
        let other = try start(&h, second)
        try h.respond(try Messages.response(to: second, 503), in: other)
        h.transportError(other)
        #expect(h.events.suffix(2).map(\.event) == [.transportError(other), .terminated(other)])
        #expect(h.layer.count == 1)
        #expect(h.timersAreClean)
    }

    @Test func aSecondFinalResponseIsDiscarded() throws {
        var h = Harness()
        let invite = try Messages.request(.invite)
        let id = try start(&h, invite)
        try h.respond(try Messages.response(to: invite, 486), in: id)
        try h.respond(try Messages.response(to: invite, 200), in: id)
        try h.respond(try Messages.response(to: invite, 180), in: id)
        #expect(h.sentResponses.map(\.statusCode) == [486])
    }
}
