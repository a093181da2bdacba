import Foundation
import Testing

@testable import Switchboard

/// The provider's call table: order of arrival, the live count behind the call limit, and the session
/// index, without a network.
@Suite("Glue: the call table")
struct CallTableTests {
    @Test func callsKeepTheOrderTheyBeganIn() {
        var table = CallTable()
        let records = (0..<5).map { _ in Parts.record() }
        for record in records.reversed() { table.add(record) }
        #expect(table.inOrder.map(\.uuid) == records.reversed().map(\.uuid))
        #expect(table.inOrder.map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(table.liveCount == 5)
        #expect(table[records[2].uuid] === records[2])
    }

    @Test func anEndedCallStopsCountingButStaysFiledUntilRemoved() {
        var table = CallTable()
        let record = Parts.record()
        table.add(record)
        table.markEnded(record)
        #expect(table.liveCount == 0)
        #expect(table[record.uuid] === record)
        table.remove(record)
        #expect(table[record.uuid] == nil)
        #expect(table.inOrder.isEmpty)
    }

    @Test func aCallCountsOnceHoweverItEndsOrLeaves() {
        var table = CallTable()
        let ended = Parts.record()
        let removedLive = Parts.record()
        let kept = Parts.record()
        for record in [ended, removedLive, kept] { table.add(record) }
        table.markEnded(ended)
        table.markEnded(ended)
        #expect(table.liveCount == 2)
        // Removed before it ended (a call that never got going): it no longer counts either.
        table.remove(removedLive)
        #expect(table.liveCount == 1)
        table.remove(ended)
        #expect(table.liveCount == 1)
        #expect(table.count == 1)
        // Filed again under its UUID, a call still counts once.
        table.add(kept)
        #expect(table.liveCount == 1)
        let replacement = Parts.record(kept.uuid)
        table.add(replacement)
        #expect(table.liveCount == 1)
        #expect(table[kept.uuid] === replacement)
    }

    @Test func uuidsThatDifferInOneByteAreDifferentCalls() {
        var table = CallTable()
        let base: uuid_t = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)
        var other = base
        other.15 = 17
        var swapped = base
        (swapped.0, swapped.8) = (base.8, base.0)
        let records = [base, other, swapped].map { Parts.record(UUID(uuid: $0)) }
        for record in records { table.add(record) }
        #expect(table.count == 3)
        for record in records { #expect(table[record.uuid] === record) }
        #expect(table[UUID()] == nil)
    }

    @Test func sessionsFindTheirCall() {
        var table = CallTable()
        let record = Parts.record()
        table.add(record)
        let first = SessionKey(raw: 1)
        let second = SessionKey(raw: 2)
        table.bind(first, to: record)
        #expect(record.session == first)
        #expect(table[session: first] === record)
        // A 3xx moves the call to a new session.
        let unbound = table.unbind(first)
        #expect(unbound === record)
        table.bind(second, to: record)
        #expect(table[session: first] == nil)
        #expect(table[session: second] === record)
        table.remove(record)
        #expect(table[session: second] == nil)
        let gone = table.unbind(second)
        #expect(gone == nil)
    }

    @Test func removingEverythingEmptiesTheTable() {
        var table = CallTable()
        for _ in 0..<3 { table.add(Parts.record()) }
        table.removeAll()
        #expect(table.liveCount == 0)
        #expect(table.count == 0)
        #expect(table.inOrder.isEmpty)
        // Sequence numbers go on rising: snapshots stay in order across a reset.
        let next = Parts.record()
        table.add(next)
        #expect(next.sequence == 4)
    }
}
