import Dispatch
import Foundation
import SIPTransport
import SwitchboardTesting
import Testing

@testable import Switchboard

/// The provider's small coordination parts: the per-iteration outbox, the wind-down countdown, the
/// listener plan, and the timer book-keeping of the drivers (on a virtual loop).
@Suite("Glue: outbox, countdown, listeners, timers")
struct ProviderPartsTests {
    @Test func theOutboxAsksForOneFlushPerBatchAndKeepsOrder() {
        var outbox = EventOutbox()
        var flushes: [Bool] = []
        flushes.append(outbox.append(.event(.didBegin)))
        flushes.append(outbox.append(.event(.audioActivated(UUID()))))
        flushes.append(outbox.append(.block(DispatchQueue(label: "test"), {})))
        let batch = outbox.take()
        #expect(batch.count == 3)
        if case .event(let first) = batch.first { #expect(first.kind == .didBegin) } else { Issue.record("order") }
        let empty = outbox.take()
        #expect(empty.isEmpty)
        flushes.append(outbox.append(.event(.didReset)))
        #expect(flushes == [true, false, false, true])
    }

    @Test func theCountdownRunsDoneAfterTheLastExpectedFinish() {
        var runs = 0
        let countdown = Countdown { runs += 1 }
        let first = countdown.expect()
        let second = countdown.expect()
        first()
        countdown.start()
        #expect(runs == 0)
        second()
        #expect(runs == 1)

        var immediately = 0
        Countdown { immediately += 1 }.start()
        #expect(immediately == 1)
    }

    @Test func listenersDefaultToUDPAndTCPAndOpenUDPFirst() {
        #expect(ListenerSetup.plan([]) == [.init(.udp, "0.0.0.0:0"), .init(.tcp, "0.0.0.0:0")])
        let configured: [CallProviderConfiguration.Listener] = [
            .init(.tls, "127.0.0.1:0"), .init(.tcp, "127.0.0.1:0"), .init(.udp, "127.0.0.1:0"),
        ]
        #expect(ListenerSetup.plan(configured).map(\.transport) == [.udp, .tls, .tcp])
        #expect(ListenerSetup.address(of: .init(.udp, ":5062"))?.description == "0.0.0.0:5062")
        #expect(ListenerSetup.address(of: .init(.tls, "127.0.0.1"))?.port == 5061)
        #expect(ListenerSetup.address(of: .init(.udp, "not an address")) == nil)
    }

    @Test func timersReplaceCancelAndFireOnTheLoop() {
        let loop = VirtualEventLoop()
        var timers = LoopTimers<String>()
        var fired: [String] = []
        func arm(_ name: String, _ label: String, after delay: Duration) {
            timers.start(name, after: delay, on: loop) {
                timers.fired(name)
                fired.append(label)
            }
        }
        arm("a", "a1", after: .seconds(1))
        arm("a", "a2", after: .seconds(2))
        arm("b", "b", after: .seconds(1))
        arm("c", "c", after: .seconds(1))
        timers.cancel("c", on: loop)
        #expect(timers.count == 2)
        loop.advance(by: .milliseconds(1500))
        #expect(fired == ["b"])
        loop.advance(by: .seconds(1))
        #expect(fired == ["b", "a2"])
        #expect(timers.count == 0)
        // Nothing armed: the table keeps no storage (an idle call holds none for hours).
        #expect(timers.reservedCapacity == 0)
        arm("d", "d", after: .seconds(1))
        #expect(timers.reservedCapacity > 0)
        timers.cancel("d", on: loop)
        #expect(timers.reservedCapacity == 0)
        arm("d", "d", after: .seconds(1))
        timers.cancelAll(on: loop)
        loop.advance(by: .seconds(2))
        #expect(fired == ["b", "a2"])
    }
}
