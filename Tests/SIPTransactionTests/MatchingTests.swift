import SIPMessage
import SIPTransaction
import Testing

@Suite("Matching (RFC 3261 §17.1.3, §17.2.3, §9.2, §8.2.2.2)")
struct MatchingTests {
    // MARK: Responses to client transactions

    @Test func responsesMatchByBranchAndCSeqMethod() throws {
        var h = Harness()
        let invite = try Messages.request(.invite, branch: "z9hG4bK-shared")
        let inviteID = try h.send(invite)
        // A CANCEL shares the INVITE's branch (§9.1); the CSeq method tells their responses apart.
        let cancel = try Messages.request(.cancel, branch: "z9hG4bK-shared")
        let cancelID = try h.send(cancel)
        h.receive(try Messages.response(to: cancel, 200))
        h.receive(try Messages.response(to: invite, 487))
        #expect(h.deliveredResponses(cancelID) == [200])
        #expect(h.deliveredResponses(inviteID) == [487])
        // Another branch matches nothing.
        h.receive(try Messages.response(to: try Messages.request(.invite, branch: "z9hG4bK-other"), 200))
        #expect(h.strayResponses.count == 1)
    }

    @Test func malformedResponsesAreDroppedWithoutTrapping() throws {
        var h = Harness()
        let invite = try Messages.request(.invite)
        let id = try h.send(invite)
        var noCSeq = try Messages.response(to: invite, 200)
        noCSeq.headerFields[.cseq] = nil
        var badCSeq = try Messages.response(to: invite, 200)
        badCSeq.headerFields[.cseq] = "one INVITE"
        var noVia = try Messages.response(to: invite, 200)
        noVia.headerFields[.via] = nil
        var noBranch = try Messages.response(to: invite, 200)
        noBranch.headerFields[.via] = "SIP/2.0/UDP client.example:5060"
        var badStatus = try Messages.response(to: invite, 200)
        badStatus.statusCode = 700
        for response in [noCSeq, badCSeq, noVia, noBranch, badStatus] { h.receive(response) }
        #expect(h.events.isEmpty)
        #expect(h.layer.statistics.dropped == 5)
        guard case .inviteClient(let t) = h.layer.transaction(id) else {
            Issue.record("transaction gone")
            return
        }
        #expect(t.state == .calling)
    }

    // MARK: Requests to server transactions

    /// The transport's top Via summary is a hint: it is used only for a request whose Via bytes it was read
    /// from, so a request carrying another request's summary is matched by its own Via.
    @Test func aTopViaHintFromAnotherRequestDoesNotChangeMatching() throws {
        var h = Harness()
        let first = try Messages.request(.invite, branch: "z9hG4bK-first")
        let second = try Messages.request(.invite, branch: "z9hG4bK-second")
        let firstHint = first.topViaSummary
        h.apply(h.layer.receive(first, from: "client", isReliable: false, topVia: firstHint))
        // A new branch with the first's summary as its hint: a new transaction, not a retransmission.
        h.apply(h.layer.receive(second, from: "client", isReliable: false, topVia: firstHint))
        #expect(h.layer.count == 2)
        #expect(h.layer.statistics.absorbed == 0)
        // The first again, with the second's summary: still the first's retransmission.
        h.apply(h.layer.receive(first, from: "client", isReliable: false, topVia: second.topViaSummary))
        #expect(h.layer.count == 2)
        #expect(h.layer.statistics.absorbed == 1)
        // A request whose Via is unusable is dropped whatever the hint.
        var noVia = try Messages.request(.invite, branch: "z9hG4bK-third")
        noVia.headerFields[.via] = "garbage"
        h.apply(h.layer.receive(noVia, from: "client", isReliable: false, topVia: firstHint))
        #expect(h.layer.count == 2)
        #expect(h.layer.statistics.dropped == 1)
    }

    @Test func malformedRequestsGetNoTransaction() throws {
        var h = Harness()
        var noVia = try Messages.request(.invite)
        noVia.headerFields[.via] = nil
        var noCSeq = try Messages.request(.invite)
        noCSeq.headerFields[.cseq] = nil
        var wrongMethod = try Messages.request(.invite)
        wrongMethod.headerFields[.cseq] = "1 BYE"
        var badVia = try Messages.request(.invite)
        badVia.headerFields[.via] = "garbage"
        var legacyWithoutCallID = try Messages.request(.options, branch: nil)
        legacyWithoutCallID.headerFields[.callID] = nil
        for request in [noVia, noCSeq, wrongMethod, badVia, legacyWithoutCallID] { h.receive(request) }
        #expect(h.events.isEmpty)
        #expect(h.sent.isEmpty)
        #expect(h.layer.count == 0)
        #expect(h.layer.statistics.dropped == 5)
    }

    @Test func sentByAndMethodArePartOfTheKey() throws {
        var h = Harness()
        h.receive(try Messages.request(.options, branch: "z9hG4bK-k", sentBy: "a.example"))
        // Same branch from another host: another transaction.
        h.receive(try Messages.request(.options, branch: "z9hG4bK-k", sentBy: "b.example", callID: "c2"))
        // Same branch and host, port given: another sent-by, another transaction.
        h.receive(try Messages.request(.options, branch: "z9hG4bK-k", sentBy: "a.example:5070", callID: "c3"))
        // Same branch and sent-by, another method: another transaction.
        h.receive(try Messages.request(.info, branch: "z9hG4bK-k", sentBy: "a.example", callID: "c4", toTag: "t"))
        // Host names compare case-insensitively: a retransmission.
        h.receive(try Messages.request(.options, branch: "z9hG4bK-k", sentBy: "A.EXAMPLE"))
        #expect(h.newRequests.count == 4)
        #expect(Set(h.newRequests.map(\.id)).count == 4)
        #expect(h.layer.statistics.absorbed == 1)
    }

    @Test func ackWithoutATransactionGoesToTheTU() throws {
        var h = Harness()
        let ack = try Messages.request(.ack, toTag: "to-1")
        h.receive(ack)
        #expect(h.acks.map(\.request) == [ack])
        #expect(h.acks.map(\.transaction) == [nil])
        #expect(h.layer.count == 0)
        #expect(h.sent.isEmpty)
    }

    // MARK: CANCEL (§9.2)

    @Test func cancelIsItsOwnTransactionAndNamesTheInviteItCancels() throws {
        var h = Harness()
        let invite = try Messages.request(.invite, branch: "z9hG4bK-c")
        h.receive(invite)
        let inviteID = try #require(h.newRequests.first?.id)
        let cancel = try Messages.request(.cancel, branch: "z9hG4bK-c")
        h.receive(cancel)
        guard case .cancel(let request, let cancelID, let cancelling, let source) = h.events.last?.event else {
            Issue.record("no cancel event: \(h.events)")
            return
        }
        #expect(request == cancel)
        #expect(cancelling == inviteID)
        #expect(cancelID != inviteID)
        #expect(source == "client")
        #expect(h.newRequests.count == 1)
        // The TU answers both; a retransmitted CANCEL gets its 200 again, the INVITE is untouched.
        try h.respond(try Messages.response(to: cancel, 200), in: cancelID)
        try h.respond(try Messages.response(to: invite, 487), in: inviteID)
        h.receive(cancel)
        #expect(h.sentResponses.map(\.statusCode) == [200, 487, 200])
        let cseqs = try h.sentResponses.map { try $0.cseq?.method }
        #expect(cseqs == [.cancel, .invite, .cancel])
    }

    @Test func cancelForAnUnknownInviteNamesNone() throws {
        var h = Harness()
        h.receive(try Messages.request(.invite, branch: "z9hG4bK-a"))
        // Same branch, other sent-by: not the INVITE's CANCEL.
        h.receive(try Messages.request(.cancel, branch: "z9hG4bK-a", sentBy: "elsewhere.example"))
        h.receive(try Messages.request(.cancel, branch: "z9hG4bK-b", callID: "other"))
        let cancelling = h.events.compactMap { delivered -> TransactionID?? in
            if case .cancel(_, _, let target, _) = delivered.event { return .some(target) }
            return nil
        }
        #expect(cancelling == [nil, nil])
    }

    // MARK: Merged requests (§8.2.2.2)

    @Test func mergedRequestIsAnswered482ThroughItsOwnTransaction() throws {
        var h = Harness()
        let viaA = try Messages.request(.invite, branch: "z9hG4bK-a", sentBy: "proxy-a.example")
        let viaB = try Messages.request(.invite, branch: "z9hG4bK-b", sentBy: "proxy-b.example")
        h.receive(viaA, from: "proxy-a")
        h.receive(viaB, from: "proxy-b")
        #expect(h.newRequests.map(\.request) == [viaA])
        let loop = try #require(h.sent.last)
        #expect(loop.to == "proxy-b")
        #expect(loop.message.response?.statusCode == 482)
        #expect(loop.transaction != nil)
        let response = try #require(loop.message.response)
        #expect(try response.to?.tag != nil)
        #expect(try response.via == viaB.via)
        #expect(h.layer.statistics.mergedRequests == 1)
        // Its retransmission is absorbed by the 482's transaction, which resends the 482.
        h.receive(viaB, from: "proxy-b")
        #expect(h.sendTimes(status: 482).count == 2)
        // And the ACK of the 482 confirms that transaction; the first INVITE is unaffected.
        let responseTag = try #require(try response.to?.tag)
        h.receive(
            try Messages.request(.ack, branch: "z9hG4bK-b", sentBy: "proxy-b.example", toTag: responseTag),
            from: "proxy-b")
        #expect(h.acks.isEmpty)
        #expect(h.newRequests.count == 1)
        #expect(h.layer.count == 2)
    }

    /// Each differs from a live INVITE in one of the fields §8.2.2.2 compares, or carries a To tag.
    static let unmerged: [(cseq: UInt32, fromTag: String, callID: String, toTag: String?)] = [
        (2, "from-1", "call-1", nil), (1, "other", "call-1", nil), (1, "from-1", "call-2", nil),
        (1, "from-1", "call-1", "in-dialog"),
    ]

    @Test(arguments: unmerged)
    func requestsThatDifferOrCarryAToTagAreNotMerged(cseq: UInt32, fromTag: String, callID: String, toTag: String?)
        throws
    {
        var h = Harness()
        h.receive(try Messages.request(.invite, branch: "z9hG4bK-a", sentBy: "proxy-a.example"))
        h.receive(
            try Messages.request(
                .invite, branch: "z9hG4bK-b", sentBy: "proxy-b.example", callID: callID, fromTag: fromTag,
                toTag: toTag, cseq: cseq))
        #expect(h.newRequests.count == 2)
        #expect(h.sendTimes(status: 482).isEmpty)
    }

    @Test func aCallIDCollisionDoesNotHideTheFirstTransaction() throws {
        var h = Harness()
        h.receive(try Messages.request(.invite, branch: "z9hG4bK-a", sentBy: "proxy-a.example"))
        // Another call under the same Call-ID and CSeq (another From tag): new, and not merged.
        h.receive(try Messages.request(.invite, branch: "z9hG4bK-c", sentBy: "proxy-a.example", fromTag: "other"))
        // The first call's request arriving again by another path is still recognized as merged.
        h.receive(try Messages.request(.invite, branch: "z9hG4bK-b", sentBy: "proxy-b.example"))
        #expect(h.newRequests.count == 2)
        #expect(h.sendTimes(status: 482).count == 1)
    }

    @Test func mergeDetectionCanBeTurnedOffForProxies() throws {
        var configuration = TransactionConfiguration(timers: Harness.timers)
        configuration.detectsMergedRequests = false
        var h = Harness(configuration: configuration)
        h.receive(try Messages.request(.invite, branch: "z9hG4bK-a", sentBy: "proxy-a.example"))
        h.receive(try Messages.request(.invite, branch: "z9hG4bK-b", sentBy: "proxy-b.example"))
        #expect(h.newRequests.count == 2)
        #expect(h.sent.isEmpty)
    }

    @Test func mergeEndsWithTheOriginalTransaction() throws {
        var h = Harness()
        let first = try Messages.request(.options, branch: "z9hG4bK-a", sentBy: "proxy-a.example")
        h.receive(first)
        let id = try #require(h.newRequests.first?.id)
        try h.respond(try Messages.response(to: first, 200), in: id)
        h.advance(by: Harness.t1 * 64)
        #expect(h.isTerminated(id))
        h.receive(try Messages.request(.options, branch: "z9hG4bK-b", sentBy: "proxy-b.example"))
        #expect(h.newRequests.count == 2)
        #expect(h.sendTimes(status: 482).isEmpty)
    }
}
