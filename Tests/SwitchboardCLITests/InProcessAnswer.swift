import Foundation
import Synchronization
import Testing

@testable import SwitchboardCLI

/// Runs a command on a thread of its own and awaits its exit status: commands block while they run, and
/// blocking the test's cooperative threads would starve the Swift tasks the command itself relies on
/// (its trace and view readers).
func runCommand(_ arguments: [String], io: CommandIO) async -> Int32 {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: SwitchboardCommand.run(arguments, io: io)) }
    }
}

/// `switchboard answer` running in this process on a thread of its own, for tests that call it.
final class InProcessAnswer: Sendable {
    let capture = Capture()
    private let status = Mutex<Int32?>(nil)
    private let found = Mutex<String?>(nil)

    /// Its UDP port, once `start` returned.
    var port: String { found.withLock { $0 } ?? "" }

    /// Starts `answer` with `arguments` (which should listen on 127.0.0.1:0) and waits for its UDP port.
    static func start(_ arguments: [String]) async throws -> InProcessAnswer {
        let answer = InProcessAnswer()
        Thread.detachNewThread {
            let result = SwitchboardCommand.run(["answer"] + arguments, io: answer.capture.io)
            answer.status.withLock { $0 = result }
        }
        for _ in 0..<400 {
            let port = answer.capture.err.lazy.compactMap { line in
                line.firstMatch(of: #/listening on udp:127\.0\.0\.1:(\d+)/#).map { String($0.1) }
            }.first
            if let port {
                answer.found.withLock { $0 = port }
                return answer
            }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw POSIXError(.ETIMEDOUT)
    }

    /// Its exit status, once it has stopped (within `seconds`).
    func exitStatus(within seconds: Double = 15) async -> Int32? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if let value = status.withLock({ $0 }) { return value }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return nil
    }
}
