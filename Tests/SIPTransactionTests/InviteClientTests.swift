import SIPMessage
import SIPTransaction
import Testing

@Suite("INVITE client transaction (RFC 3261 §17.1.1, RFC 6026 §8.4)")
struct InviteClientTests {
    let t1 = Harness.t1

    @Test func timerARetransmitsWithDoublingIntervalsUntilTimerB() throws {
        var h = Harness()
        let id = try h.send(try Messages.request(.invite))
        h.advance(by: t1 * 64 - .milliseconds(1))
        // §17.1.1.2: A doubles after each retransmission (T1, 2T1, 4T1, ...) with no T2 cap, while Calling.
        let expected: [Duration] = [0, 1, 3, 7, 15, 31, 63].map { t1 * $0 }
        #expect(h.sendTimes(of: .invite) == expected)
        #expect(h.timedOut(id) == nil)
        #expect(h.layer.count == 1)
        h.advance(by: .milliseconds(1))
        #expect(h.timedOut(id) == t1 * 64)
        #expect(h.terminationTime(id) == t1 * 64)
        #expect(h.layer.count == 0)
        #expect(h.sendTimes(of: .invite).count == 7)
        #expect(h.scheduler.armed.isEmpty)
        #expect(h.timersAreClean)
    }

    @Test func reliableTransportSendsOnceAndTimesOutAt64T1() throws {
        var h = Harness()
        let id = try h.send(try Messages.request(.invite, transport: "TCP"), isReliable: true)
        h.advance(by: .seconds(60))
        #expect(h.sendTimes(of: .invite) == [.zero])
        #expect(h.timedOut(id) == t1 * 64)
        #expect(h.layer.count == 0)
        #expect(h.timersAreClean)
    }

    @Test func provisionalResponseStopsRetransmissionsAndTimerB() throws {
        var h = Harness()
        let invite = try Messages.request(.invite)
        let id = try h.send(invite)
        h.advance(by: .milliseconds(250))
        h.receive(try Messages.response(to: invite, 180))
        h.advance(by: .seconds(120))
        #expect(h.sendTimes(of: .invite) == [.zero, t1])
        #expect(h.deliveredResponses(id) == [180])
        #expect(h.timedOut(id) == nil)
        guard case .inviteClient(let t) = h.layer.transaction(id) else {
            Issue.record("transaction gone")
            return
        }
        #expect(t.state == .proceeding)
        h.receive(try Messages.response(to: invite, 183))
        #expect(h.deliveredResponses(id) == [180, 183])
        #expect(h.timersAreClean)
    }

    @Test func twoHundredEntersAcceptedAndEveryRetransmissionReachesTheTUUntilTimerM() throws {
        var h = Harness()
        let invite = try Messages.request(.invite)
        let id = try h.send(invite)
        h.advance(by: .milliseconds(50))
        let ok = try Messages.response(to: invite, 200)
        h.receive(ok)
        guard case .inviteClient(let t) = h.layer.transaction(id) else {
            Issue.record("transaction gone")
            return
        }
        #expect(t.state == .accepted)
        // RFC 6026 §8.4: 2xx retransmissions (and a 2xx from another fork) go to the TU, which ACKs them.
        h.advance(by: .milliseconds(500))
        h.receive(ok)
        h.receive(try Messages.response(to: invite, 200, toTag: "fork-2"))
        h.receive(try Messages.response(to: invite, 486))
        #expect(h.deliveredResponses(id) == [200, 200, 200])
        // The transaction never ACKs a 2xx, and stopped retransmitting the INVITE.
        #expect(h.sentRequests.map(\.method) == [.invite])
        h.advance(to: .milliseconds(50) + t1 * 64 - .milliseconds(1))
        #expect(!h.isTerminated(id))
        h.advance(by: .milliseconds(1))
        #expect(h.terminationTime(id) == .milliseconds(50) + t1 * 64)
        #expect(h.timedOut(id) == nil)
        // After Timer M the 2xx matches nothing: the core gets it as stray (and drops it, RFC 6026 §8).
        h.receive(ok)
        #expect(h.strayResponses.count == 1)
        #expect(h.layer.count == 0)
        #expect(h.timersAreClean)
    }

    @Test func non2xxIsAcknowledgedOnceToTheTUAndRetransmissionsAreAbsorbedUntilTimerD() throws {
        var h = Harness()
        let invite = try Messages.request(.invite)
        let id = try h.send(invite)
        h.receive(try Messages.response(to: invite, 180))
        h.advance(by: .seconds(1))
        let busy = try Messages.response(to: invite, 486)
        h.receive(busy)
        #expect(h.deliveredResponses(id) == [180, 486])
        #expect(h.sendTimes(of: .ack) == [.seconds(1)])
        // Inside Timer D's window each retransmitted 486 gets the ACK again and does not reach the TU.
        h.advance(by: .seconds(10))
        h.receive(busy)
        h.advance(by: .seconds(21))
        h.receive(busy)
        #expect(h.sendTimes(of: .ack) == [.seconds(1), .seconds(11), .seconds(32)])
        #expect(h.deliveredResponses(id) == [180, 486])
        #expect(h.sentRequests.filter { $0.method == .ack }.allSatisfy { $0 == h.sentRequests[1] })
        // Timer D: 32 s (§17.1.1.2 "at least 32 seconds"), not a multiple of T1.
        h.advance(to: .seconds(33) - .milliseconds(1))
        #expect(!h.isTerminated(id))
        h.advance(by: .milliseconds(1))
        #expect(h.terminationTime(id) == .seconds(33))
        h.receive(busy)
        #expect(h.sendTimes(of: .ack).count == 3)
        #expect(h.strayResponses.count == 1)
        #expect(h.timersAreClean)
    }

    @Test func non2xxOverReliableTransportTerminatesAtOnce() throws {
        var h = Harness()
        let invite = try Messages.request(.invite, transport: "TCP")
        let id = try h.send(invite, isReliable: true)
        h.receive(try Messages.response(to: invite, 603))
        #expect(h.sendTimes(of: .ack) == [.zero])
        #expect(h.terminationTime(id) == .zero)
        #expect(h.layer.count == 0)
        #expect(h.timersAreClean)
    }

    @Test func ackForNon2xxIsBuiltFromTheInviteAndTheResponse() throws {
        var h = Harness()
        let invite = try Messages.request(
            .invite, branch: "z9hG4bK-ack", uri: "sip:bob@example.org;transport=udp", callID: "ack-call",
            fromTag: "alice-tag", cseq: 42, routes: ["<sip:p1.example.com;lr>", "<sip:p2.example.com;lr>"],
            extraVias: ["SIP/2.0/UDP upstream.example;branch=z9hG4bK-up"], extra: ["Subject: not copied"])
        try h.send(invite, to: "proxy")
        let response = try Messages.response(to: invite, 404, toTag: "bob-tag")
        h.receive(response, from: "proxy")
        let ackSend = try #require(h.sent.last)
        #expect(ackSend.to == "proxy")
        let ack = try #require(ackSend.message.request)
        #expect(ack.method == .ack)
        #expect(ack.uri == invite.uri)
        #expect(try ack.callID == "ack-call")
        #expect(try ack.from == invite.from)
        #expect(try ack.from?.tag == "alice-tag")
        #expect(try ack.cseq == CSeq(42, .ack))
        // One Via: the INVITE's top Via, branch included.
        let topVia = try #require(try invite.topVia)
        #expect(try ack.via == [topVia])
        #expect(try ack.to == response.to)
        #expect(try ack.to?.tag == "bob-tag")
        #expect(try ack.route.map(\.description) == ["<sip:p1.example.com;lr>", "<sip:p2.example.com;lr>"])
        #expect(try ack.maxForwards == 70)
        #expect(!ack.headerFields.contains(.subject))
        #expect(!ack.headerFields.contains(.contact))
        #expect(ack.body.isEmpty)
        // It survives a trip through the wire format.
        let reparsed = try SIPRequest(parsing: ack.serialized())
        try reparsed.validate()
        #expect(try reparsed.cseq == CSeq(42, .ack))
    }

    @Test func transportErrorInCallingIsReportedAndTerminates() throws {
        var h = Harness()
        let id = try h.send(try Messages.request(.invite))
        h.advance(by: .milliseconds(150))
        h.transportError(id)
        #expect(h.events.map(\.event) == [.transportError(id), .terminated(id)])
        h.advance(by: .seconds(60))
        #expect(h.sendTimes(of: .invite) == [.zero, t1])
        #expect(h.timedOut(id) == nil)
        #expect(h.layer.count == 0)
        #expect(h.timersAreClean)
    }

    @Test func transportErrorInCompletedIsReportedAndTerminates() throws {
        var h = Harness()
        let invite = try Messages.request(.invite)
        let id = try h.send(invite)
        h.receive(try Messages.response(to: invite, 500))
        h.transportError(id)
        #expect(h.events.suffix(2).map(\.event) == [.transportError(id), .terminated(id)])
        #expect(h.layer.count == 0)
        #expect(h.timersAreClean)
    }

    @Test func transportErrorAfterAProvisionalOrA2xxIsIgnored() throws {
        var h = Harness()
        let invite = try Messages.request(.invite)
        let id = try h.send(invite)
        h.receive(try Messages.response(to: invite, 180))
        h.transportError(id)
        #expect(!h.events.contains { $0.event == .transportError(id) })
        h.receive(try Messages.response(to: invite, 200))
        h.transportError(id)
        #expect(!h.events.contains { $0.event == .transportError(id) })
        #expect(h.layer.count == 1)
    }

    @Test func machineIgnoresEventsThatDoNotApply() throws {
        var machine = InviteClientTransaction(request: try Messages.request(.invite), isReliable: false)
        #expect(machine.start().count == 3)
        #expect(machine.start().isEmpty)
        #expect(machine.timerFired(.d).isEmpty)
        #expect(machine.timerFired(.m).isEmpty)
        #expect(machine.receive(SIPResponse(statusCode: 99)).isEmpty)
        #expect(machine.state == .calling)
        let ok = try Messages.response(to: machine.request, 200)
        #expect(
            machine.receive(ok) == [
                .cancelTimer(.a), .cancelTimer(.b), .passResponse(ok), .startTimer(.m, after: .seconds(32)),
            ])
        #expect(machine.timerFired(.a).isEmpty)
        #expect(machine.timerFired(.b).isEmpty)
        #expect(machine.timerFired(.m) == [.terminated])
        #expect(machine.state == .terminated)
        #expect(machine.receive(ok).isEmpty)
    }
}
