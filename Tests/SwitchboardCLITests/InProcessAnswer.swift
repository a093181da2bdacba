import Dispatch
import Foundation
import Synchronization
import Testing

@testable import SwitchboardCLI

/// `switchboard answer` running in this process on a background queue, for tests that call it.
final class InProcessAnswer: @unchecked Sendable {
    // @unchecked Sendable: `port` is written once in init, before the object is shared.
    let capture = Capture()
    private(set) var port: String
    private let done = DispatchSemaphore(value: 0)
    private let status = Mutex<Int32?>(nil)

    /// Starts `answer` with `arguments` (which should listen on 127.0.0.1:0) and waits for its UDP port.
    init(_ arguments: [String]) throws {
        port = ""
        Thread.detachNewThread { [self] in
            let result = SwitchboardCommand.run(["answer"] + arguments, io: capture.io)
            status.withLock { $0 = result }
            done.signal()
        }
        var found: String?
        for _ in 0..<200 where found == nil {
            found =
                capture.err.lazy.compactMap { line in
                    line.firstMatch(of: #/listening on udp:127\.0\.0\.1:(\d+)/#).map { String($0.1) }
                }.first
            if found == nil { Thread.sleep(forTimeInterval: 0.025) }
        }
        port = try #require(found)
    }

    /// Its exit status, once it has stopped (within `seconds`).
    func exitStatus(within seconds: Double = 15) -> Int32? {
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return status.withLock { $0 }
    }
}
