import Testing

@testable import Switchboard

/// Tables by session key: found by the key's slot, and still right for keys that share a slot or have one
/// past the dense range.
@Suite("Glue: session tables")
struct SessionTableTests {
    private func key(serial: UInt64, slot: UInt64) -> SessionKey { SessionKey(raw: serial << 32 | slot) }

    @Test func valuesAreFoundByTheirKeyOnly() {
        var table = SessionTable<String>()
        #expect(table.isEmpty)
        table[key(serial: 1, slot: 0)] = "a"
        table[key(serial: 2, slot: 3)] = "b"
        #expect(table.count == 2)
        #expect(table[key(serial: 1, slot: 0)] == "a")
        #expect(table[key(serial: 2, slot: 3)] == "b")
        #expect(table[key(serial: 2, slot: 0)] == nil)
        #expect(table[key(serial: 3, slot: 2)] == nil)
        table[key(serial: 2, slot: 3)] = "c"
        #expect(table.count == 2)
        #expect(table[key(serial: 2, slot: 3)] == "c")
        #expect(table.removeValue(forKey: key(serial: 1, slot: 0)) == "a")
        #expect(table.removeValue(forKey: key(serial: 1, slot: 0)) == nil)
        #expect(table[key(serial: 1, slot: 0)] == nil)
        #expect(table.count == 1)
        #expect(table.values == ["c"])
    }

    @Test func keysSharingASlotAreAllKept() {
        var table = SessionTable<Int>()
        let stale = key(serial: 1, slot: 5)
        let new = key(serial: 2, slot: 5)
        table[stale] = 1
        table[new] = 2
        #expect(table.count == 2)
        #expect(table[stale] == 1)
        #expect(table[new] == 2)
        // The slot's holder goes; the other key keeps its value and, set again, takes the slot.
        table[stale] = nil
        #expect(table[stale] == nil)
        #expect(table[new] == 2)
        table[new] = 3
        #expect(table.count == 1)
        #expect(table[new] == 3)
        #expect(table.removeValue(forKey: new) == 3)
        #expect(table.isEmpty)
        #expect(table[new] == nil)
    }

    @Test func aSlotPastTheDenseRangeNeedsNoRoom() {
        var table = SessionTable<Int>()
        let far = key(serial: 1, slot: UInt64(SessionTable<Int>.denseLimit) + 7)
        table[far] = 9
        #expect(table[far] == 9)
        #expect(table.count == 1)
        table.removeAll()
        #expect(table[far] == nil)
        #expect(table.isEmpty)
    }

    @Test func theDirectoryReusesSlotsUnderNewKeys() {
        var directory = SessionDirectory()
        let (first, _) = directory.add()
        let (second, _) = directory.add()
        #expect(first.slot != second.slot)
        _ = directory.remove(first)
        let (third, entry) = directory.add()
        // The slot comes back; the key does not, and the old key finds nothing.
        #expect(third.slot == first.slot)
        #expect(third != first)
        #expect(third.raw > second.raw)
        #expect(directory[third] === entry)
        #expect(directory[first] == nil)
        #expect(directory.entries.count == 2)
    }
}
