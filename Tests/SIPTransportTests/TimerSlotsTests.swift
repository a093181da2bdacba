import Testing

@testable import SIPTransport

@Suite("Timer slots")
struct TimerSlotsTests {
    /// A kept id matches its own timer only: once that timer fired or was cancelled, the slot's next timer
    /// is out of the old id's reach.
    @Test func anOldIdNeverTouchesTheSlotsNextTimer() {
        var actions = TimerSlots()
        var ran: [String] = []
        let first = actions.insert { ran.append("first") }
        #expect(actions.contains(first))
        #expect(actions.count == 1)
        actions.remove(first)?()
        #expect(ran == ["first"])
        #expect(!actions.contains(first))
        #expect(actions.remove(first) == nil)
        // The freed slot is reused: same slot, another generation.
        let second = actions.insert { ran.append("second") }
        #expect(second & 0xFFFF_FFFF == first & 0xFFFF_FFFF)
        #expect(second != first)
        #expect(actions.remove(first) == nil)
        #expect(actions.contains(second))
        actions.remove(second)?()
        #expect(ran == ["first", "second"])
        #expect(actions.count == 0)
    }

    @Test func manyTimersKeepTheirOwnActions() {
        var actions = TimerSlots()
        var ran: [Int] = []
        var ids: [UInt64] = []
        for n in 0..<100 { ids.append(actions.insert { ran.append(n) }) }
        #expect(Set(ids).count == 100)
        // Cancel the even ones, then arm 50 more into their slots.
        for n in stride(from: 0, to: 100, by: 2) { #expect(actions.remove(ids[n]) != nil) }
        #expect(actions.count == 50)
        for n in 100..<150 { ids.append(actions.insert { ran.append(n) }) }
        #expect(actions.count == 100)
        for n in stride(from: 0, to: 100, by: 2) { #expect(!actions.contains(ids[n])) }
        for n in stride(from: 1, to: 150, by: 1) where n % 2 == 1 || n >= 100 { actions.remove(ids[n])?() }
        #expect(ran == Array(stride(from: 1, to: 100, by: 2)) + Array(100..<150))
        #expect(actions.count == 0)
        actions.removeAll()
        #expect(!actions.contains(ids[1]))
    }
}
