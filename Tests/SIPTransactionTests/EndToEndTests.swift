import SIPMessage
import SIPTransaction
import Testing

/// A client layer and a server layer talking over a lossy network in virtual time.
@Suite("Client and server layers together")
struct EndToEndTests {
    @Test(arguments: [false, true])
    func inviteSurvivesLostRequestsAndHundredTryingStopsRetransmissions(isSerialized: Bool) throws {
        var pair = Pair()
        pair.isSerialized = isSerialized
        // The first two INVITEs are lost.
        pair.drop = { message, towardsServer, count in towardsServer && message.request?.method == .invite && count < 2
        }
        let invite = try Messages.request(.invite)
        let clientID = try pair.client.send(invite)
        pair.advance(by: .milliseconds(300))
        let serverID = try #require(pair.server.newRequests.first?.id)
        // The TU is silent: 100 Trying 200 ms after the third INVITE arrived; the client stops at once.
        pair.advance(by: .seconds(1))
        #expect(pair.server.sendTimes(status: 100) == [.milliseconds(500)])
        #expect(pair.client.sendTimes(of: .invite) == [0, 100, 300].map { .milliseconds($0) })
        #expect(pair.client.deliveredResponses(clientID) == [100])
        // Answer; the client TU ACKs the 2xx outside any transaction (§13.2.2.4).
        try pair.server.respond(try Messages.response(to: invite, 200), in: serverID)
        pair.pump()
        #expect(pair.client.deliveredResponses(clientID) == [100, 200])
        pair.server.receive(try Messages.ackFor2xx(invite))
        #expect(pair.server.acks.map(\.transaction) == [nil])
        pair.advance(by: .seconds(60))
        #expect(pair.client.layer.count == 0)
        #expect(pair.server.layer.count == 0)
        #expect(pair.client.timersAreClean && pair.server.timersAreClean)
        #expect(pair.server.newRequests.count == 1)
    }

    @Test(arguments: [false, true])
    func lostFinalResponseIsRecoveredByTheRequestRetransmission(isSerialized: Bool) throws {
        var pair = Pair()
        pair.isSerialized = isSerialized
        pair.drop = { message, towardsServer, count in
            !towardsServer && message.response?.statusCode == 200 && count == 0
        }
        let bye = try Messages.request(.bye, toTag: "to-1", cseq: 2)
        let clientID = try pair.client.send(bye)
        pair.pump()
        let serverID = try #require(pair.server.newRequests.first?.id)
        try pair.server.respond(try Messages.response(to: bye, 200), in: serverID)
        pair.advance(by: .milliseconds(100))
        // Timer E's retransmission met the Completed server transaction, which sent the 200 again.
        #expect(pair.server.sendTimes(status: 200) == [.zero, .milliseconds(100)])
        #expect(pair.client.deliveredResponses(clientID) == [200])
        #expect(pair.server.newRequests.count == 1)
        pair.advance(by: .seconds(60))
        #expect(pair.client.layer.count == 0 && pair.server.layer.count == 0)
    }

    @Test(arguments: [false, true])
    func lostACKIsRecoveredByTimerGAndTheClientsCompletedState(isSerialized: Bool) throws {
        var pair = Pair()
        pair.isSerialized = isSerialized
        pair.drop = { message, towardsServer, count in towardsServer && message.request?.method == .ack && count == 0 }
        let invite = try Messages.request(.invite)
        let clientID = try pair.client.send(invite)
        pair.pump()
        let serverID = try #require(pair.server.newRequests.first?.id)
        try pair.server.respond(try Messages.response(to: invite, 486), in: serverID)
        pair.advance(by: .seconds(1))
        #expect(pair.server.sendTimes(status: 486) == [.zero, .milliseconds(100)])
        #expect(pair.client.sendTimes(of: .ack) == [.zero, .milliseconds(100)])
        #expect(pair.client.deliveredResponses(clientID) == [486])
        #expect(pair.server.timedOut(serverID) == nil)
        #expect(pair.server.terminationTime(serverID) == .milliseconds(600))
        #expect(pair.server.acks.isEmpty)
        pair.advance(by: .seconds(40))
        #expect(pair.client.terminationTime(clientID) == .seconds(32))
        #expect(pair.client.timersAreClean && pair.server.timersAreClean)
    }

    @Test func cancelledInviteOverTCP() throws {
        var pair = Pair()
        pair.isReliable = true
        let invite = try Messages.request(.invite, transport: "TCP")
        let inviteID = try pair.client.send(invite, isReliable: true)
        pair.advance(by: .milliseconds(250))
        let serverInvite = try #require(pair.server.newRequests.first?.id)
        let cancel = try Messages.request(.cancel, transport: "TCP")
        let cancelID = try pair.client.send(cancel, isReliable: true)
        pair.pump()
        guard case .cancel(_, let serverCancel, let cancelling, _) = pair.server.events.last?.event else {
            Issue.record("no cancel delivered")
            return
        }
        #expect(cancelling == serverInvite)
        try pair.server.respond(try Messages.response(to: cancel, 200), in: serverCancel)
        try pair.server.respond(try Messages.response(to: invite, 487), in: serverInvite)
        pair.pump()
        #expect(pair.client.deliveredResponses(cancelID) == [200])
        #expect(pair.client.deliveredResponses(inviteID) == [100, 487])
        // Over TCP the ACK ends both INVITE transactions at once (zero Timers D and I).
        #expect(pair.client.layer.count == 0)
        #expect(pair.server.layer.count == 0)
        #expect(pair.client.sendTimes(of: .ack) == [.milliseconds(250)])
    }
}
