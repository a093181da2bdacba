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
        table.markEnded(record.uuid)
        #expect(table.liveCount == 0)
        #expect(table[record.uuid] === record)
        table.remove(record)
        #expect(table[record.uuid] == nil)
        #expect(table.inOrder.isEmpty)
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
        #expect(table.inOrder.isEmpty)
        // Sequence numbers go on rising: snapshots stay in order across a reset.
        let next = Parts.record()
        table.add(next)
        #expect(next.sequence == 4)
    }
}
