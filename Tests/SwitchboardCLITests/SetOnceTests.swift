import Dispatch
import Foundation
import Synchronization
import Testing

@testable import SwitchboardCLI

/// `answer` hands events to a queue that may run before the provider harness exists: the queue waits for it.
@Suite struct SetOnceTests {
    @Test func aWaiterGetsTheValueSetAfterItBeganWaiting() {
        let slot = SetOnce<Int>()
        let got = Mutex<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let value = slot.wait()
            got.withLock { $0 = value }
            done.signal()
        }
        usleep(50_000)
        #expect(got.withLock { $0 } == nil)
        slot.set(7)
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(got.withLock { $0 } == 7)
    }

    @Test func onlyTheFirstSetCountsAndNilReleasesWaiters() {
        let failed = SetOnce<Int>()
        failed.set(nil)
        failed.set(3)
        #expect(failed.wait() == nil)
        let slot = SetOnce<Int>()
        slot.set(1)
        slot.set(2)
        #expect(slot.wait() == 1)
        #expect(slot.wait() == 1)
    }
}
