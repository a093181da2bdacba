import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Switchboard
@testable import SwitchboardCLI

/// The views' reader runs on a thread of its own: `finish` waits for it, and a process whose cooperative pool
/// is busy (a test run, an app that blocks in its tasks) must not leave the pcap and the ladder empty.
@Suite("Views drain on their own thread")
struct SessionViewsDrainTests {
    @Test func theViewsDrainWhileEveryCooperativeThreadIsBlocked() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-drain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pcapPath = folder.appendingPathComponent("drain.pcap").path
        let views = try #require(
            try SessionViews.open(AccountOptions(values: ["pcap": pcapPath]), io: Capture().io))

        // Hold every other thread of the cooperative pool (this test runs on one of them).
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let width = max(1, ProcessInfo.processInfo.activeProcessorCount)
        for _ in 0..<width {
            Task.detached {
                started.signal()
                release.wait()
            }
        }
        defer { for _ in 0..<width { release.signal() } }
        // Alone, the blockers start at once; in a full run other tests may hold the pool already, which is as
        // good. Either way the wait is bounded and asserts nothing.
        for _ in 0..<(width - 1) { _ = started.wait(timeout: .now() + 2) }

        let (traces, continuation) = AsyncStream.makeStream(of: SIPTraceEvent.self)
        views.start(traces) { _ in 0 }
        let message = Array("OPTIONS sip:bob@127.0.0.1 SIP/2.0\r\nContent-Length: 0\r\n\r\n".utf8)
        for direction in [SIPTraceEvent.Direction.sent, .received, .sent] {
            continuation.yield(
                SIPTraceEvent(
                    direction: direction, transport: .udp, localAddress: "127.0.0.1:5060",
                    remoteAddress: "127.0.0.1:5070", date: Date(), bytes: message))
        }
        continuation.finish()
        #expect(views.finish(timeout: 10).isEmpty)

        let pcap = try #require(PcapFile(Array(try Data(contentsOf: URL(fileURLWithPath: pcapPath)))))
        #expect(pcap.records.count == 3)
    }
}
