import SIPTransaction
import SIPTransport
import Testing

@testable import SIPCore

/// The per-transaction record: small, and its inline timers behave as a map from kind to handle.
struct TransactionRecordTests {
    @Test func aRecordFitsIn48Bytes() {
        #expect(MemoryLayout<TransactionRecord>.stride <= 48)
    }

    @Test func armedTimersReplaceRemoveAndOverflow() {
        var timers = ArmedTimers()
        #expect(timers.insert(.g, TimerHandle(id: 1)) == (nil, true))
        #expect(timers.insert(.h, TimerHandle(id: 2)) == (nil, true))
        #expect(timers.insert(.g, TimerHandle(id: 3)) == (TimerHandle(id: 1), true))
        #expect(timers.insert(.trying, TimerHandle(id: 4)) == (nil, true))
        #expect(timers.insert(.l, TimerHandle(id: 5)) == (nil, false))
        #expect(timers.remove(.h) == TimerHandle(id: 2))
        #expect(timers.remove(.h) == nil)
        var cancelled: [UInt64] = []
        timers.forEach { cancelled.append($0.id) }
        #expect(cancelled == [3, 4])
    }
}

/// The records filed by transaction slot: found only under the whole identifier, replaced when the slot's
/// generation moves on, and given back after a burst.
struct TransactionRecordsTests {
    private func id(kind: UInt64, slot: UInt64, generation: UInt64) -> TransactionID {
        TransactionID(generation << 32 | slot << 2 | kind)
    }

    @Test func aRecordIsFoundOnlyUnderItsWholeIdentifier() {
        var records = TransactionRecords()
        let first = id(kind: 2, slot: 5, generation: 1)
        records.insert(TransactionRecord(), for: first)
        records[first, default: TransactionRecord()].hasSentFinalResponse = true
        #expect(records[first]?.hasSentFinalResponse == true)
        #expect(records.count == 1)
        // Same slot, other kind or generation: nothing there.
        #expect(records[id(kind: 3, slot: 5, generation: 1)] == nil)
        #expect(records[id(kind: 2, slot: 5, generation: 2)] == nil)
        #expect(records[id(kind: 2, slot: 4, generation: 1)] == nil)
        #expect(records.removeValue(forKey: id(kind: 2, slot: 5, generation: 2)) == nil)
        #expect(records.count == 1)
        #expect(records.removeValue(forKey: first)?.hasSentFinalResponse == true)
        #expect(records[first] == nil)
        #expect(records.count == 0)
    }

    @Test func aNewGenerationReplacesALeftoverRecord() {
        var records = TransactionRecords()
        let old = id(kind: 0, slot: 0, generation: 0)
        records[old, default: TransactionRecord()].hasSentRequest = true
        let new = id(kind: 0, slot: 0, generation: 1)
        #expect(records[new, default: TransactionRecord()].hasSentRequest == false)
        records[new, default: TransactionRecord()].hasSentRequest = false
        #expect(records[old] == nil)
        #expect(records[new] != nil)
        #expect(records.count == 1)
    }

    @Test func timersAreTakenFromTheRecordInPlace() {
        var records = TransactionRecords()
        let tx = id(kind: 1, slot: 3, generation: 7)
        #expect(records.removeTimer(TimerID(tx, .e)) == nil)
        _ = records[tx, default: TransactionRecord()].timers.insert(.e, TimerHandle(id: 42))
        #expect(records.removeTimer(TimerID(tx, .f)) == nil)
        #expect(records.removeTimer(TimerID(tx, .e)) == TimerHandle(id: 42))
        #expect(records.removeTimer(TimerID(tx, .e)) == nil)
    }

    @Test func aBurstsSlotsAreGivenBackOnceEmpty() {
        var records = TransactionRecords()
        let ids = (0..<10_000).map { id(kind: 3, slot: UInt64($0), generation: 0) }
        for tx in ids { records.insert(TransactionRecord(), for: tx) }
        #expect(records.slotCount == 10_000)
        for tx in ids.dropLast() { records.removeValue(forKey: tx) }
        #expect(records.slotCount == 10_000)
        records.removeValue(forKey: ids[ids.count - 1])
        #expect(records.slotCount == 0)
        #expect(records.count == 0)
    }
}
