import SIPMessage
import Testing

@testable import SIPTransaction

@Suite("Layer limits, table cleanup and API errors")
struct LayerLimitsTests {
    @Test func requestsBeyondTheLimitGetAStateless503WithRetryAfter() throws {
        var configuration = TransactionConfiguration(timers: Harness.timers, maximumTransactions: 2)
        configuration.retryAfterSeconds = 7
        var h = Harness(configuration: configuration)
        h.receive(try Messages.request(.invite, branch: "z9hG4bK-1", callID: "c1"))
        h.receive(try Messages.request(.options, branch: "z9hG4bK-2", callID: "c2"))
        let third = try Messages.request(.invite, branch: "z9hG4bK-3", callID: "c3")
        h.receive(third, from: "peer-3")
        #expect(h.newRequests.count == 2)
        #expect(h.layer.count == 2)
        let rejection = try #require(h.sent.last)
        #expect(rejection.transaction == nil)
        #expect(rejection.to == "peer-3")
        let response = try #require(rejection.message.response)
        #expect(response.statusCode == 503)
        #expect(try response.retryAfter?.seconds == 7)
        #expect(try response.to?.tag != nil)
        #expect(try response.callID == "c3")
        #expect(try response.via == third.via)
        #expect(h.layer.statistics.overloadRejections == 1)
        // The same request gets the same tag (stateless, §8.2.7); another request another one.
        h.receive(third, from: "peer-3")
        let again = try #require(h.sentResponses.last)
        #expect(try again.to?.tag == response.to?.tag)
        // ACKs never get a 503: they create no transaction.
        h.receive(try Messages.request(.ack, branch: "z9hG4bK-4", callID: "c4", toTag: "t"))
        #expect(h.acks.count == 1)
        // Client transactions hit the same limit.
        expectError(.tooManyTransactions) {
            try h.send(try Messages.request(.options, branch: "z9hG4bK-5"))
        }
        // Room again once one ends.
        let options = try #require(h.newRequests.last)
        try h.respond(try Messages.response(to: options.request, 200), in: options.id)
        h.advance(by: .seconds(10))
        #expect(h.layer.count == 1)
        h.receive(third, from: "peer-3")
        #expect(h.newRequests.count == 3)
    }

    /// `initialCapacity` makes room up front: a UAS's calls (INVITE and BYE, both lingering) fill the
    /// reserved slots without the tables growing; the room never exceeds `maximumTransactions`.
    @Test func initialCapacityIsReservedAndFilledWithoutGrowing() throws {
        var h = Harness(
            configuration: TransactionConfiguration(
                timers: Harness.timers, maximumTransactions: 100_000, initialCapacity: 1_000))
        let inviteSlots = h.layer.table.inviteServers.capacity
        let byeSlots = h.layer.table.nonInviteServers.capacity
        let addressRoom = h.layer.addresses.capacity
        #expect(inviteSlots >= 500 && byeSlots >= 500 && addressRoom >= 4 * 500)
        for n in 0..<400 {
            let invite = try Messages.request(.invite, branch: "z9hG4bK-i\(n)", callID: "c\(n)")
            h.receive(invite)
            let id = try #require(h.newRequests.last?.id)
            try h.respond(try Messages.response(to: invite, 200, toTag: "t\(n)"), in: id)
            let bye = try Messages.request(.bye, branch: "z9hG4bK-b\(n)", callID: "c\(n)", toTag: "t\(n)", cseq: 2)
            h.receive(bye)
            let byeID = try #require(h.newRequests.last?.id)
            try h.respond(try Messages.response(to: bye, 200), in: byeID)
        }
        #expect(h.layer.count == 800)
        #expect(h.layer.table.inviteServers.capacity == inviteSlots)
        #expect(h.layer.table.nonInviteServers.capacity == byeSlots)
        #expect(h.layer.addresses.capacity == addressRoom)

        let capped = TransactionLayer<String>(
            configuration: TransactionConfiguration(maximumTransactions: 64, initialCapacity: 1_000_000))
        #expect(capped.table.reservedSlots < 1_000)
        #expect(TransactionLayer<String>().table.reservedSlots == 0)
    }

    @Test(arguments: [false, true])
    func everyTableEntryIsRemovedWhenItsTransactionTerminates(isReliable: Bool) throws {
        var h = Harness()
        let transport = isReliable ? "TCP" : "UDP"
        var ids: [TransactionID] = []
        for n in 0..<20 {
            let callID = "call-\(n)"
            // Client side: INVITE answered 200 or 486, a BYE, and one that times out.
            let invite = try Messages.request(.invite, branch: "z9hG4bK-ci\(n)", transport: transport, callID: callID)
            ids.append(try h.send(invite, isReliable: isReliable))
            h.receive(try Messages.response(to: invite, n.isMultiple(of: 2) ? 200 : 486))
            let bye = try Messages.request(
                .bye, branch: "z9hG4bK-cb\(n)", transport: transport, callID: callID, toTag: "to-1", cseq: 2)
            ids.append(try h.send(bye, isReliable: isReliable))
            h.receive(try Messages.response(to: bye, 200))
            ids.append(try h.send(try Messages.request(.options, branch: "z9hG4bK-co\(n)"), isReliable: isReliable))

            // Server side: INVITE (with a CANCEL), a merged copy, an RFC 2543 request, a legacy INVITE.
            let incoming = try Messages.request(
                .invite, branch: "z9hG4bK-si\(n)", sentBy: "a.example", transport: transport, callID: callID)
            h.receive(incoming, isReliable: isReliable)
            h.receive(
                try Messages.request(
                    .invite, branch: "z9hG4bK-sm\(n)", sentBy: "b.example", transport: transport, callID: callID),
                isReliable: isReliable)
            let cancel = try Messages.request(
                .cancel, branch: "z9hG4bK-si\(n)", sentBy: "a.example", transport: transport, callID: callID)
            h.receive(cancel, isReliable: isReliable)
            let legacy = try Messages.request(.register, branch: nil, callID: "legacy-\(n)")
            h.receive(legacy, isReliable: isReliable)
            let legacyInvite = try Messages.request(.invite, branch: nil, callID: "legacy-invite-\(n)")
            h.receive(legacyInvite, isReliable: isReliable)
        }
        for (request, id) in h.newRequests {
            ids.append(id)
            let status =
                request.method == .invite
                ? (request.headerFields[.callID]?.hasPrefix("legacy") == true ? 200 : 487) : 200
            try h.respond(try Messages.response(to: request, status), in: id)
        }
        for event in h.events {
            if case .cancel(let cancel, let id, _, _) = event.event {
                ids.append(id)
                try h.respond(try Messages.response(to: cancel, 200), in: id)
            }
        }
        #expect(h.layer.count > 80)
        h.advance(by: .seconds(60))
        #expect(h.layer.count == 0)
        let table = h.layer.table
        #expect(table.count == 0)
        #expect(table.inviteClients.elements.allSatisfy { $0 == nil })
        #expect(table.nonInviteClients.elements.allSatisfy { $0 == nil })
        #expect(table.inviteServers.elements.allSatisfy { $0 == nil })
        #expect(table.nonInviteServers.elements.allSatisfy { $0 == nil })
        #expect(table.clientIndex.isEmpty)
        #expect(table.serverIndex.isEmpty)
        #expect(table.legacyIndex.isEmpty)
        #expect(table.mergeIndex.isEmpty)
        #expect(h.layer.addresses.allSatisfy { $0 == nil })
        #expect(h.scheduler.armed.isEmpty)
        #expect(ids.allSatisfy { h.isTerminated($0) })
        #expect(h.timersAreClean)
    }

    @Test func timersAndErrorsForEndedTransactionsAreIgnored() throws {
        var layer = TransactionLayer<String>()
        let request = try Messages.request(.options, transport: "TCP")
        let (id, _) = try layer.sendRequest(request, to: "x", isReliable: true)
        let actions = layer.receive(try Messages.response(to: request, 200), from: "x")
        #expect(actions.last == .deliver(.terminated(id)))
        #expect(layer.timerFired(TimerID(id, .f)).isEmpty)
        #expect(layer.transportError(id).isEmpty)
        #expect(layer.timerFired(TimerID(TransactionID(999), .a)).isEmpty)
        #expect(layer.timerFired(TimerID(TransactionID(.max), .a)).isEmpty)
        #expect(layer.transportError(TransactionID(0x3FFF_FFFF_FFFF)).isEmpty)
        // A new transaction reuses the slot with another generation: the old identifier stays dead.
        let (reused, _) = try layer.sendRequest(
            try Messages.request(.options, branch: "z9hG4bK-2"), to: "x", isReliable: true)
        #expect(reused != id)
        #expect(reused.rawValue & 0xFFFF_FFFF == id.rawValue & 0xFFFF_FFFF)
        #expect(layer.timerFired(TimerID(id, .f)).isEmpty)
        #expect(layer.transaction(id) == nil)
        #expect(layer.transaction(reused) != nil)
        #expect(layer.timerFired(TimerID(reused, .f)).last == .deliver(.terminated(reused)))
    }

    @Test func sendRequestRefusesWhatCannotBeATransaction() throws {
        var layer = TransactionLayer<String>()
        expectError(.ackWithoutTransaction) {
            _ = try layer.sendRequest(try Messages.request(.ack, toTag: "t"), to: "x", isReliable: false)
        }
        expectError(.invalidRequest) {
            _ = try layer.sendRequest(try Messages.request(.invite, branch: "old-style"), to: "x", isReliable: false)
        }
        expectError(.invalidRequest) {
            _ = try layer.sendRequest(try Messages.request(.invite, branch: nil), to: "x", isReliable: false)
        }
        var wrongCSeq = try Messages.request(.invite)
        wrongCSeq.headerFields[.cseq] = "1 OPTIONS"
        expectError(.invalidRequest) {
            _ = try layer.sendRequest(wrongCSeq, to: "x", isReliable: false)
        }
        _ = try layer.sendRequest(try Messages.request(.invite), to: "x", isReliable: false)
        expectError(.duplicateTransaction) {
            _ = try layer.sendRequest(try Messages.request(.invite), to: "y", isReliable: false)
        }
        #expect(layer.count == 1)
    }

    @Test func sendResponseRefusesUnknownClientAndOutOfRange() throws {
        var layer = TransactionLayer<String>()
        let invite = try Messages.request(.invite)
        let (clientID, _) = try layer.sendRequest(invite, to: "x", isReliable: false)
        let ok = try Messages.response(to: invite, 200)
        expectError(.notAServerTransaction) { _ = try layer.sendResponse(ok, in: clientID) }
        expectError(.unknownTransaction) { _ = try layer.sendResponse(ok, in: TransactionID(77)) }
        var bad = ok
        bad.statusCode = 99
        expectError(.invalidResponse) { _ = try layer.sendResponse(bad, in: clientID) }
    }
}

/// Expects `body` to throw a `TransactionError` with `code`.
func expectError(
    _ code: TransactionError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    let error = #expect(throws: TransactionError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, sourceLocation: sourceLocation)
}

/// After a burst grows the tables far past their reservation, the emptied table gives the storage back
/// (issue 20), and identifiers from before the shrink stay stale.
@Suite("Tables shrink after a burst")
struct TableShrinkTests {
    @Test func aResetSlabNeverLetsAnOldIdentifierNameANewElement() {
        var slab = Slab<Int>()
        let old = slab.insert(1)
        _ = slab.remove(at: old.slot)
        slab.reset(reservingCapacity: 4)
        #expect(slab.capacity >= 4)
        let new = slab.insert(2)
        #expect(new.slot == old.slot)
        #expect(slab.slot(old.slot, generation: old.generation) == nil)
        #expect(slab.slot(new.slot, generation: new.generation) == new.slot)
    }

    @Test func theEmptiedTableShrinksToItsReservation() throws {
        var h = Harness(
            configuration: TransactionConfiguration(
                timers: Harness.timers, maximumTransactions: 100_000, initialCapacity: 100))
        let reserved = h.layer.table.reservedSlots
        var firstID: TransactionID?
        for n in 0..<6_000 {
            let options = try Messages.request(.options, branch: "z9hG4bK-s\(n)", callID: "s\(n)")
            h.receive(options)
            let id = try #require(h.newRequests.last?.id)
            if firstID == nil { firstID = id }
            try h.respond(try Messages.response(to: options, 200), in: id)
        }
        #expect(h.layer.table.nonInviteServers.capacity >= 6_000)
        #expect(h.layer.addresses.count >= 4 * 5_000)
        // Timer J (64*T1) ends them all; the last one out shrinks the table.
        h.advance(by: .seconds(60))
        #expect(h.layer.count == 0)
        #expect(h.layer.statistics.shrinks == 1)
        #expect(h.layer.table.nonInviteServers.capacity < 6_000)
        #expect(h.layer.table.reservedSlots >= reserved)
        #expect(h.layer.addresses.count == 0)
        // The table works as before, and the old identifier names nothing.
        let next = try Messages.request(.options, branch: "z9hG4bK-next", callID: "next")
        h.receive(next)
        let nextID = try #require(h.newRequests.last?.id)
        #expect(nextID != firstID)
        #expect(h.layer.transaction(try #require(firstID)) == nil)
        #expect(h.layer.transaction(nextID) != nil)
    }
}
