import Foundation
import Testing

@testable import Switchboard

#if canImport(Glibc)
    import Glibc
#endif

/// Under overload (an INVITE waited in the socket queue longer than the backlog delay) the provider refuses
/// new calls with 503 and Retry-After (RFC 3261 §21.5.4) instead of taking them on late; once it has caught
/// up it takes calls again.
@Suite("CallProvider: overload shedding", .serialized)
struct OverloadTests {
    private func request(_ method: String, callID: String, branch: String, peerPort: UInt16) -> String {
        let body =
            method == "INVITE"
            ? "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
                + "m=audio 6000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n" : ""
        let type = method == "INVITE" ? "Content-Type: application/sdp\r\n" : ""
        return
            "\(method) sip:bob@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:\(peerPort);rport;branch=\(branch)\r\n"
            + "Max-Forwards: 70\r\nTo: <sip:bob@127.0.0.1>\r\nFrom: <sip:alice@127.0.0.1>;tag=a1\r\n"
            + "Call-ID: \(callID)\r\nCSeq: 1 \(method)\r\nContact: <sip:alice@127.0.0.1:\(peerPort)>\r\n"
            + "\(type)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    /// The first response within 3 s whose Call-ID is `callID`.
    private func response(to callID: String, from peer: SilentUDPPeer) async -> String? {
        let deadline = ContinuousClock.now + .seconds(3)
        while ContinuousClock.now < deadline {
            guard let text = await peer.receive(seconds: 1) else { continue }
            if text.contains("Call-ID: \(callID)\r\n") { return text }
        }
        return nil
    }

    @Test func newCallsAreRefusedWhileTheLoopIsBehindItsInput() async throws {
        var configuration = CallProviderConfiguration(
            accounts: [Account(addressOfRecord: "sip:bob@127.0.0.1")], listeners: [.init(.udp, "127.0.0.1:0")])
        configuration.unansweredTimeout = nil
        let provider = try CallProvider(configuration: configuration)
        defer { provider.invalidate(timeout: .seconds(2)) }
        let address = try #require(provider.listeners.first { $0.transport == .udp }?.address)
        let port = try #require(UInt16(address.split(separator: ":").last ?? ""))
        let peer = try SilentUDPPeer()
        defer { peer.close() }

        // Hold the signalling loop for 800 ms with an INVITE queued from the start: it waits longer than
        // the backlog delay (500 ms). The kernel turns receive timestamps on a moment after the first socket
        // asks (a deferred switch, slow on a busy machine) and stamps a datagram that came before then when
        // it is read, as if it had not waited: so a first INVITE may be taken, and the hold is tried again.
        var refused: (callID: String, response: String)?
        for attempt in 0..<4 where refused == nil {
            let held = DispatchSemaphore(value: 0)
            provider.engine.execute {
                held.signal()
                usleep(800_000)
            }
            held.wait()
            let callID = "shed\(attempt)"
            peer.send(request("INVITE", callID: callID, branch: "z9hG4bK\(callID)", peerPort: peer.port), toPort: port)
            let response = try #require(await response(to: callID, from: peer))
            if response.hasPrefix("SIP/2.0 503") { refused = (callID, response) }
        }
        let shed = try #require(refused)
        #expect(shed.response.contains("\r\nRetry-After: 1\r\n"))
        #expect(!provider.calls.contains { $0.callID == shed.callID })
        let callsBefore = provider.calls.count

        // Caught up: the next INVITE becomes a call.
        peer.send(request("INVITE", callID: "taken", branch: "z9hG4bKtaken", peerPort: peer.port), toPort: port)
        let taken = try #require(await response(to: "taken", from: peer))
        #expect(!taken.hasPrefix("SIP/2.0 503"))
        #expect(provider.calls.count == callsBefore + 1)
    }
}
