import SIPMessage
import SIPTransaction
import Testing

@Suite("Non-INVITE server transaction (RFC 3261 §17.2.2)")
struct NonInviteServerTests {
    let t1 = Harness.t1

    func start(_ h: inout Harness, _ request: SIPRequest, isReliable: Bool = false) throws -> TransactionID {
        h.receive(request, isReliable: isReliable)
        return try #require(h.newRequests.last?.id)
    }

    @Test func retransmissionsInTryingAreAbsorbedSilently() throws {
        var h = Harness()
        let request = try Messages.request(.options)
        let id = try start(&h, request)
        h.advance(by: .milliseconds(100))
        h.receive(request)
        h.receive(request)
        #expect(h.sent.isEmpty)
        #expect(h.newRequests.count == 1)
        #expect(h.layer.statistics.absorbed == 2)
        // No timer runs in Trying: the transaction waits for the TU.
        #expect(h.scheduler.armed.isEmpty)
        guard case .nonInviteServer(let t) = h.layer.transaction(id) else {
            Issue.record("transaction gone")
            return
        }
        #expect(t.state == .trying)
    }

    @Test func retransmissionsInProceedingGetTheLastProvisional() throws {
        var h = Harness()
        let request = try Messages.request(.register)
        let id = try start(&h, request)
        try h.respond(try Messages.response(to: request, 100), in: id)
        h.advance(by: .milliseconds(100))
        h.receive(request)
        #expect(h.sendTimes(status: 100) == [.zero, .milliseconds(100)])
    }

    @Test func completedResendsTheFinalResponseUntilTimerJ() throws {
        var h = Harness()
        let request = try Messages.request(.bye, toTag: "x")
        let id = try start(&h, request)
        h.advance(by: .milliseconds(10))
        try h.respond(try Messages.response(to: request, 200), in: id)
        h.advance(by: .seconds(6))
        h.receive(request)
        #expect(h.sendTimes(status: 200) == [.milliseconds(10), .milliseconds(6010)])
        #expect(h.newRequests.count == 1)
        // J = 64*T1 after the final response.
        h.advance(to: .milliseconds(10) + t1 * 64 - .milliseconds(1))
        #expect(!h.isTerminated(id))
        h.advance(by: .milliseconds(1))
        #expect(h.terminationTime(id) == .milliseconds(10) + t1 * 64)
        // After J the same request is new again.
        h.receive(request)
        #expect(h.newRequests.count == 2)
        #expect(h.timersAreClean)
    }

    @Test func reliableTransportTerminatesWithTheFinalResponse() throws {
        var h = Harness()
        let request = try Messages.request(.bye, transport: "TCP", toTag: "x")
        let id = try start(&h, request, isReliable: true)
        try h.respond(try Messages.response(to: request, 200), in: id)
        #expect(h.terminationTime(id) == .zero)
        #expect(h.layer.count == 0)
        #expect(h.timersAreClean)
    }

    @Test func furtherResponsesAfterTheFinalAreDiscarded() throws {
        var h = Harness()
        let request = try Messages.request(.message)
        let id = try start(&h, request)
        try h.respond(try Messages.response(to: request, 202), in: id)
        try h.respond(try Messages.response(to: request, 200), in: id)
        try h.respond(try Messages.response(to: request, 100), in: id)
        #expect(h.sentResponses.map(\.statusCode) == [202])
    }

    @Test(arguments: [100, 200])
    func transportErrorIsReportedAndTerminates(status: Int) throws {
        var h = Harness()
        let request = try Messages.request(.notify, toTag: "x")
        let id = try start(&h, request)
        try h.respond(try Messages.response(to: request, status), in: id)
        h.transportError(id)
        #expect(h.events.suffix(2).map(\.event) == [.transportError(id), .terminated(id)])
        #expect(h.layer.count == 0)
        #expect(h.timersAreClean)
    }
}
