import SIPTransaction
import Testing

@Suite("Timer values (RFC 3261 Table 4, RFC 6026 §8)")
struct TimerValueTests {
    @Test func defaultsAreTheRFCValues() {
        let timers = TransactionTimers()
        #expect(timers.t1 == .milliseconds(500))
        #expect(timers.t2 == .seconds(4))
        #expect(timers.t4 == .seconds(5))
        #expect(timers.timerD == .seconds(32))
        #expect(timers.tryingDelay == .milliseconds(200))
        #expect(timers.transactionTimeout == .seconds(32))
    }

    /// (timer, unreliable value, reliable value) for T1 = 100 ms, T2 = 400 ms, T4 = 500 ms.
    static let table: [(TimerKind, Duration, Duration)] = [
        (.a, .milliseconds(100), .milliseconds(100)),  // never armed on reliable transports
        (.b, .milliseconds(6400), .milliseconds(6400)),
        (.d, .seconds(32), .zero),
        (.e, .milliseconds(100), .milliseconds(100)),  // never armed on reliable transports
        (.f, .milliseconds(6400), .milliseconds(6400)),
        (.g, .milliseconds(100), .milliseconds(100)),  // never armed on reliable transports
        (.h, .milliseconds(6400), .milliseconds(6400)),
        (.i, .milliseconds(500), .zero),
        (.j, .milliseconds(6400), .zero),
        (.k, .milliseconds(500), .zero),
        (.l, .milliseconds(6400), .milliseconds(6400)),
        (.m, .milliseconds(6400), .milliseconds(6400)),
        (.trying, .milliseconds(200), .milliseconds(200)),
        (.cancelled, .milliseconds(6400), .milliseconds(6400)),  // 64*T1 after a CANCEL (§9.1)
    ]

    @Test(arguments: table)
    func initialValues(kind: TimerKind, unreliable: Duration, reliable: Duration) {
        let timers = Harness.timers
        #expect(timers.initialValue(of: kind, isReliable: false) == unreliable)
        #expect(timers.initialValue(of: kind, isReliable: true) == reliable)
    }

    @Test func everyTimerKindIsInTheTable() {
        #expect(Set(Self.table.map(\.0)) == Set(TimerKind.allCases))
    }

    @Test func retransmissionIntervals() {
        let timers = Harness.timers
        var a = Duration.milliseconds(100)
        var e = a
        var aSeries: [Duration] = []
        var eSeries: [Duration] = []
        for _ in 0..<5 {
            a = timers.nextInterval(after: a, for: .a)
            e = timers.nextInterval(after: e, for: .e)
            aSeries.append(a)
            eSeries.append(e)
        }
        #expect(aSeries == [200, 400, 800, 1600, 3200].map { .milliseconds($0) })
        #expect(eSeries == [200, 400, 400, 400, 400].map { .milliseconds($0) })
        #expect(timers.nextInterval(after: .milliseconds(300), for: .g) == .milliseconds(400))
    }

    @Test func timerIDsDescribeThemselves() {
        let id = TransactionID(8)
        #expect(TimerID(id, .h).description == "tx8.H")
        #expect(Set(TimerKind.allCases.map(\.rawValue)).count == TimerKind.allCases.count)
        #expect(TimerKind.allCases.allSatisfy { $0.rawValue < 16 })
    }
}
