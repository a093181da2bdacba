import SIPMessage
import SIPTransaction
import Testing

/// RFC 2543 peers send no `z9hG4bK` branch; §17.2.3 then matches on Request-URI, tags, Call-ID, CSeq and
/// top Via.
@Suite("RFC 2543 matching (RFC 3261 §17.2.3)")
struct LegacyMatchingTests {
    @Test(arguments: [nil, "1234-old-branch"])
    func retransmittedInviteMatchesWithoutTheCookie(branch: String?) throws {
        var h = Harness()
        let invite = try Messages.request(.invite, branch: branch)
        h.receive(invite)
        let id = try #require(h.newRequests.first?.id)
        try h.respond(try Messages.response(to: invite, 180), in: id)
        h.receive(invite)
        #expect(h.newRequests.count == 1)
        #expect(h.sentResponses.map(\.statusCode) == [180, 180])
    }

    @Test func eachMatchedFieldMatters() throws {
        var h = Harness()
        h.receive(try Messages.request(.options, branch: nil, sentBy: "a.example"))
        // Each differs from the first in one field §17.2.3 compares. Those that differ only in top Via or
        // Request-URI keep From tag, Call-ID and CSeq without a To tag: merged (§8.2.2.2), answered 482.
        h.receive(try Messages.request(.options, branch: nil, sentBy: "b.example"))
        h.receive(try Messages.request(.options, branch: nil, sentBy: "a.example", uri: "sip:carol@example.org"))
        #expect(h.sendTimes(status: 482).count == 2)
        // The others are new transactions.
        h.receive(try Messages.request(.options, branch: nil, sentBy: "a.example", cseq: 2))
        h.receive(try Messages.request(.options, branch: nil, sentBy: "a.example", callID: "x"))
        h.receive(try Messages.request(.options, branch: nil, sentBy: "a.example", fromTag: "y"))
        h.receive(try Messages.request(.options, branch: nil, sentBy: "a.example", toTag: "t"))
        h.receive(try Messages.request(.info, branch: nil, sentBy: "a.example"))
        #expect(h.newRequests.count == 6)
        #expect(h.layer.statistics.absorbed == 0)
        // An equivalent Request-URI (§19.1.4: case-insensitive host) and the same everything: a retransmission.
        h.receive(try Messages.request(.options, branch: nil, sentBy: "a.example", uri: "sip:bob@EXAMPLE.org"))
        #expect(h.newRequests.count == 6)
        #expect(h.sendTimes(status: 482).count == 2)
        #expect(h.layer.statistics.absorbed == 1)
    }

    @Test func ackMatchesByTheToTagOfTheResponseSent() throws {
        var h = Harness()
        let invite = try Messages.request(.invite, branch: nil)
        h.receive(invite)
        let id = try #require(h.newRequests.first?.id)
        try h.respond(try Messages.response(to: invite, 486, toTag: "uas-tag"), in: id)
        // An ACK whose To tag is not the 486's belongs to something else and goes to the TU.
        let stranger = try Messages.request(.ack, branch: nil, toTag: "other-tag")
        h.receive(stranger)
        #expect(h.acks.map(\.request) == [stranger])
        let ack = try Messages.request(.ack, branch: nil, toTag: "uas-tag")
        h.receive(ack)
        guard case .inviteServer(let t) = h.layer.transaction(id) else {
            Issue.record("transaction gone")
            return
        }
        #expect(t.state == .confirmed)
        #expect(h.acks.count == 1)
    }

    /// The 2xx of an RFC 2543 INVITE is kept in Accepted (other transactions drop it there): its To tag is
    /// what matches the ACK to the transaction.
    @Test func ackOfA2xxMatchesByTheToTagInAccepted() throws {
        var h = Harness()
        let invite = try Messages.request(.invite, branch: nil)
        h.receive(invite)
        let id = try #require(h.newRequests.first?.id)
        try h.respond(try Messages.response(to: invite, 200, toTag: "uas-tag"), in: id)
        guard case .inviteServer(let t) = h.layer.transaction(id) else {
            Issue.record("transaction gone")
            return
        }
        #expect(t.state == .accepted)
        #expect(t.lastResponse?.statusCode == 200)
        h.receive(try Messages.request(.ack, branch: nil, toTag: "other-tag"))
        h.receive(try Messages.request(.ack, branch: nil, toTag: "uas-tag"))
        #expect(h.acks.map(\.transaction) == [nil, id])
    }

    @Test func cancelFindsItsInviteWithoutTheCookie() throws {
        var h = Harness()
        let invite = try Messages.request(.invite, branch: nil)
        h.receive(invite)
        let inviteID = try #require(h.newRequests.first?.id)
        let cancel = try Messages.request(.cancel, branch: nil)
        h.receive(cancel)
        guard case .cancel(_, let cancelID, let cancelling, _) = h.events.last?.event else {
            Issue.record("no cancel event")
            return
        }
        #expect(cancelling == inviteID)
        // The CANCEL's own retransmission matches the CANCEL transaction, not the INVITE's.
        try h.respond(try Messages.response(to: cancel, 200), in: cancelID)
        h.receive(cancel)
        #expect(h.sentResponses.map(\.statusCode) == [200, 200])
        // A CANCEL for another call cancels nothing.
        h.receive(try Messages.request(.cancel, branch: nil, callID: "call-9"))
        guard case .cancel(_, _, let none, _) = h.events.last?.event else {
            Issue.record("no cancel event")
            return
        }
        #expect(none == nil)
    }

    @Test func cancelNeedsTheInvitesRequestURI() throws {
        var h = Harness()
        h.receive(try Messages.request(.invite, branch: nil))
        h.receive(try Messages.request(.cancel, branch: nil, uri: "sip:carol@example.org"))
        guard case .cancel(_, _, let cancelling, _) = h.events.last?.event else {
            Issue.record("no cancel event")
            return
        }
        #expect(cancelling == nil)
    }

    @Test func legacyTransactionsLeaveTheIndexWhenTheyEnd() throws {
        var h = Harness()
        let request = try Messages.request(.options, branch: nil)
        h.receive(request)
        let id = try #require(h.newRequests.first?.id)
        try h.respond(try Messages.response(to: request, 200), in: id)
        h.advance(by: .seconds(10))
        #expect(h.isTerminated(id))
        h.receive(request)
        #expect(h.newRequests.count == 2)
    }
}
