import Testing

@testable import SIPUserAgent

@Suite("TimerBook: a session's armed timers")
struct TimerBookTests {
    @Test func nothingArmedKeepsNoStorage() {
        var book = TimerBook()
        var actions: [SessionAction] = []
        book.start(.retransmit2xx, after: .milliseconds(500), into: &actions)
        book.start(.ackTimeout, after: .seconds(32), into: &actions)
        #expect(book.armed.count == 2 && book.armed.capacity >= 2)
        // The ACK came: both stop, by firing and by cancelling, and an idle session holds no list.
        guard let retransmit = book.armed.first(where: { $0.kind == .retransmit2xx }) else {
            Issue.record("retransmit2xx is not armed")
            return
        }
        let didFire = book.fire(retransmit)
        #expect(didFire)
        book.cancel(.ackTimeout, into: &actions)
        #expect(book.isEmpty && book.armed.capacity == 0)
        book.start(.ackTimeout, after: .seconds(32), into: &actions)
        book.cancelAll(into: &actions)
        #expect(book.isEmpty && book.armed.capacity == 0)
        #expect(actions.count == 5)
    }
}
