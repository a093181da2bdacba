import SIPMessage
import SIPTransaction
import Testing

@Suite("Non-INVITE client transaction (RFC 3261 §17.1.2)")
struct NonInviteClientTests {
    let t1 = Harness.t1

    @Test func timerERetransmitsDoublingUpToT2UntilTimerF() throws {
        var h = Harness()
        let id = try h.send(try Messages.request(.options))
        h.advance(by: t1 * 64 - .milliseconds(1))
        // E: T1, 2T1, then capped at T2 = 4T1 in these tests: 0, 1, 3, 7, 11, 15, ... 63 (in T1).
        let expected = [0, 1, 3] + Array(stride(from: 7, through: 63, by: 4))
        #expect(h.sendTimes(of: .options) == expected.map { t1 * $0 })
        #expect(h.timedOut(id) == nil)
        h.advance(by: .milliseconds(1))
        #expect(h.timedOut(id) == t1 * 64)
        #expect(h.terminationTime(id) == t1 * 64)
        #expect(h.layer.count == 0)
        #expect(h.timersAreClean)
    }

    @Test func inProceedingTimerERetransmitsEveryT2() throws {
        var h = Harness()
        let request = try Messages.request(.register)
        let id = try h.send(request)
        h.advance(by: .milliseconds(50))
        h.receive(try Messages.response(to: request, 100))
        h.advance(by: .seconds(2))
        // The armed E fires at T1 (now in Proceeding); from then on every T2 = 400 ms.
        let expected: [Duration] = [0, 100, 500, 900, 1300, 1700].map { .milliseconds($0) }
        #expect(h.sendTimes(of: .register) == expected)
        #expect(h.deliveredResponses(id) == [100])
        h.advance(to: t1 * 64)
        #expect(h.timedOut(id) == t1 * 64)
        #expect(h.timersAreClean)
    }

    @Test func reliableTransportSendsOnceAndTimesOutAt64T1() throws {
        var h = Harness()
        let id = try h.send(try Messages.request(.bye, transport: "TLS", toTag: "x"), isReliable: true)
        h.advance(by: .seconds(60))
        #expect(h.sendTimes(of: .bye) == [.zero])
        #expect(h.timedOut(id) == t1 * 64)
        #expect(h.timersAreClean)
    }

    @Test func finalResponseIsPassedOnceAndRetransmissionsAbsorbedUntilTimerK() throws {
        var h = Harness()
        let request = try Messages.request(.bye, toTag: "x")
        let id = try h.send(request)
        h.advance(by: .milliseconds(150))
        let ok = try Messages.response(to: request, 200)
        h.receive(ok)
        h.advance(by: .milliseconds(200))
        h.receive(ok)
        h.receive(try Messages.response(to: request, 180))
        #expect(h.deliveredResponses(id) == [200])
        // No more retransmissions once Completed.
        h.advance(by: .seconds(5))
        #expect(h.sendTimes(of: .bye) == [.zero, t1])
        // K = T4 (500 ms here) after the final response.
        #expect(h.terminationTime(id) == .milliseconds(650))
        h.receive(ok)
        #expect(h.strayResponses.count == 1)
        #expect(h.layer.statistics.absorbed == 2)
        #expect(h.timersAreClean)
    }

    @Test func finalResponseOverReliableTransportTerminatesAtOnce() throws {
        var h = Harness()
        let request = try Messages.request(.message, transport: "TCP")
        let id = try h.send(request, isReliable: true)
        h.receive(try Messages.response(to: request, 202))
        #expect(h.deliveredResponses(id) == [202])
        #expect(h.terminationTime(id) == .zero)
        #expect(h.layer.count == 0)
        #expect(h.timersAreClean)
    }

    @Test func timerFInProceedingTimesOut() throws {
        var h = Harness()
        let request = try Messages.request(.subscribe)
        let id = try h.send(request)
        h.receive(try Messages.response(to: request, 100))
        h.advance(by: .seconds(10))
        #expect(h.timedOut(id) == t1 * 64)
        #expect(h.layer.count == 0)
        #expect(h.timersAreClean)
    }

    @Test(arguments: [false, true])
    func transportErrorIsReportedAndTerminates(afterProvisional: Bool) throws {
        var h = Harness()
        let request = try Messages.request(.info, toTag: "x")
        let id = try h.send(request)
        if afterProvisional { h.receive(try Messages.response(to: request, 100)) }
        h.transportError(id)
        #expect(h.events.suffix(2).map(\.event) == [.transportError(id), .terminated(id)])
        h.advance(by: .seconds(10))
        #expect(h.sendTimes(of: .info) == [.zero])
        #expect(h.timedOut(id) == nil)
        #expect(h.timersAreClean)
    }

    @Test func transportErrorInCompletedIsIgnored() throws {
        var h = Harness()
        let request = try Messages.request(.options)
        let id = try h.send(request)
        h.receive(try Messages.response(to: request, 200))
        h.transportError(id)
        #expect(!h.events.contains { $0.event == .transportError(id) })
        h.advance(by: .seconds(1))
        #expect(h.isTerminated(id))
    }
}
