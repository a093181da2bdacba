import Foundation
import SIPMessage
import Synchronization
import Testing

@testable import SIPTransport

/// Runs `body` on the loop and returns its result.
func onLoop<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        loop.execute {
            do {
                continuation.resume(returning: try body())
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}

/// Collects what a transport layer delivers, for tests to wait on.
final class Inbox: Sendable {
    let messages = Mutex<[IncomingMessage]>([])
    let events = Mutex<[FlowEvent]>([])

    func attach(to layer: SIPTransportLayer) {
        layer.onMessage = { [self] message in self.messages.withLock { $0.append(message) } }
        layer.onFlowEvent = { [self] event in self.events.withLock { $0.append(event) } }
    }

    /// Waits until `count` messages arrived (or `timeout`), then returns them all.
    func wait(for count: Int, timeout: Duration = .seconds(5)) async -> [IncomingMessage] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let current = messages.withLock { $0 }
            if current.count >= count { return current }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return messages.withLock { $0 }
    }

    func waitForEvent(timeout: Duration = .seconds(5), _ matches: (FlowEvent) -> Bool) async -> FlowEvent? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let found = events.withLock({ $0.first(where: matches) }) { return found }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }
}

/// A completion result carried across threads.
final class Outcome: Sendable {
    let value = Mutex<TransportError??>(nil)

    var completion: @Sendable (TransportError?) -> Void { { [self] error in value.withLock { $0 = .some(error) } } }

    func wait(timeout: Duration = .seconds(5)) async -> TransportError?? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let v = value.withLock({ $0 }) { return v }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }
}

/// An event loop running for the duration of a test.
final class LoopFixture: Sendable {
    let loop: EventLoop

    init() throws {
        loop = try EventLoop(name: "test")
        loop.start()
    }

    func stop(_ layers: [SIPTransportLayer]) async throws {
        try await onLoop(loop) { for layer in layers { layer.shutdown() } }
        loop.stop()
    }
}

func options(to uri: String, via: Via, callID: String = "t-\(UInt32.random(in: 0...UInt32.max))", body: String = "")
    throws -> SIPRequest
{
    var request = SIPRequest(method: .options, uri: try URI(uri))
    request.headerFields.append(.via, via)
    request.headerFields.append(.maxForwards, 70)
    request.headerFields.append(.from, try NameAddress("<sip:alice@example.com>;tag=1"))
    request.headerFields.append(.to, try NameAddress("<sip:bob@example.com>"))
    request.headerFields.append(.callID, callID)
    request.headerFields.append(.cseq, CSeq(1, .options))
    if !body.isEmpty {
        request.headerFields.append(.contentType, MediaType.textPlain)
        request.body = Array(body.utf8)
    }
    return request
}

func response(to request: SIPRequest, status: Int = 200) -> SIPResponse {
    var response = SIPResponse(statusCode: status)
    for name in [SIPField.Name.via, .from, .to, .callID, .cseq] {
        for field in request.headerFields[fields: name] { response.headerFields.append(field) }
    }
    return response
}

/// Creates a throwaway CA and a server certificate in a temporary directory (openssl command line).
struct TestCertificates {
    let directory: URL
    var caFile: String { directory.appendingPathComponent("ca.crt").path }
    var certificateFile: String { directory.appendingPathComponent("server.crt").path }
    var keyFile: String { directory.appendingPathComponent("server.key").path }

    init(commonName: String = "sip.example.test", altNames: String = "DNS:sip.example.test,IP:127.0.0.1,IP:::1")
        throws
    {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sb-certs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let d = directory.path
        let script = """
            set -e
            cd '\(d)'
            openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj '/CN=Switchboard Test CA' 2>/dev/null
            openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj '/CN=\(commonName)' 2>/dev/null
            printf 'subjectAltName=\(altNames)\\n' > ext.cnf
            openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 2 -extfile ext.cnf 2>/dev/null
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure("openssl failed") }
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
