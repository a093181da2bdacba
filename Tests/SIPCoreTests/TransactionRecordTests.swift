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
