import SIPMessage
import SIPTransaction
import Testing

/// RFC 3261 §9.1: once its INVITE is cancelled, a client that gets no final response within 64*T1 considers
/// the INVITE transaction cancelled and destroys it, so a far end that vanished after a provisional response
/// cannot hold the transaction (and the call above it) forever.
@Suite("INVITE client transaction: a CANCEL nobody answers (RFC 3261 §9.1)")
struct CancelledInviteTests {
    let t1 = Harness.t1

    @Test func aCancelledInviteWithNoFinalResponseTimesOut64T1AfterTheCancel() throws {
        var h = Harness()
        let invite = try Messages.request(.invite)
        let id = try h.send(invite)
        h.receive(try Messages.response(to: invite, 180))
        h.advance(by: .seconds(10))
        let cancelledAt = h.now
        let cancel = try h.send(try Messages.request(.cancel))
        h.receive(try Messages.response(to: try Messages.request(.cancel), 200))
        #expect(h.deliveredResponses(cancel) == [200])

        h.advance(to: cancelledAt + t1 * 64 - .milliseconds(1))
        #expect(h.timedOut(id) == nil)
        h.advance(by: .milliseconds(1))
        #expect(h.timedOut(id) == cancelledAt + t1 * 64)
        #expect(h.terminationTime(id) == cancelledAt + t1 * 64)
        h.advance(by: .seconds(60))
        #expect(h.layer.count == 0)
        #expect(h.scheduler.armed.isEmpty)
        #expect(h.timersAreClean)
    }

    @Test func aSecondCancelDoesNotPutTheDeadlineOff() throws {
        var h = Harness()
        let invite = try Messages.request(.invite)
        let id = try h.send(invite)
        h.receive(try Messages.response(to: invite, 183))
        let cancelledAt = h.now
        _ = try h.send(try Messages.request(.cancel))
        h.advance(by: .seconds(20))
        // The first CANCEL's transaction timed out (Timer F); the TU tries once more.
        _ = try h.send(try Messages.request(.cancel))
        h.advance(by: .seconds(60))
        #expect(h.timedOut(id) == cancelledAt + t1 * 64)
        #expect(h.timersAreClean)
    }

    @Test func theFinalResponseToACancelledInviteDisarmsTheWait() throws {
        var h = Harness()
        let invite = try Messages.request(.invite)
        let id = try h.send(invite)
        h.receive(try Messages.response(to: invite, 180))
        _ = try h.send(try Messages.request(.cancel))
        h.advance(by: .seconds(1))
        h.receive(try Messages.response(to: invite, 487))
        #expect(h.deliveredResponses(id) == [180, 487])
        h.advance(by: .seconds(120))
        #expect(h.timedOut(id) == nil)
        #expect(h.isTerminated(id))
        #expect(h.scheduler.armed.isEmpty)
        #expect(h.timersAreClean)
    }

    @Test func a2xxCrossingTheCancelIsAcceptedAndNotTimedOut() throws {
        var h = Harness()
        let invite = try Messages.request(.invite)
        let id = try h.send(invite)
        h.receive(try Messages.response(to: invite, 180))
        _ = try h.send(try Messages.request(.cancel))
        h.receive(try Messages.response(to: invite, 200))
        h.advance(by: .seconds(120))
        #expect(h.deliveredResponses(id) == [180, 200])
        #expect(h.timedOut(id) == nil)
        #expect(h.timersAreClean)
    }

    @Test func aCancelOverTCPStillGivesUpAfter64T1() throws {
        var h = Harness()
        let invite = try Messages.request(.invite, transport: "TCP")
        let id = try h.send(invite, isReliable: true)
        h.receive(try Messages.response(to: invite, 100))
        h.advance(by: .seconds(45))
        let cancelledAt = h.now
        _ = try h.send(try Messages.request(.cancel, transport: "TCP"), isReliable: true)
        h.advance(by: .seconds(60))
        #expect(h.timedOut(id) == cancelledAt + t1 * 64)
        #expect(h.timersAreClean)
    }

    @Test func aCancelOfAnotherBranchLeavesTheInviteAlone() throws {
        var h = Harness()
        let invite = try Messages.request(.invite)
        let id = try h.send(invite)
        h.receive(try Messages.response(to: invite, 180))
        _ = try h.send(try Messages.request(.cancel, branch: "z9hG4bK-other"))
        h.advance(by: .seconds(120))
        #expect(h.timedOut(id) == nil)
        #expect(!h.isTerminated(id))
    }
}
