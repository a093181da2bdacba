import Foundation
import Switchboard
import Testing

/// A forking proxy's CANCEL with `Reason: SIP;cause=200` (RFC 3326) ends a ringing call as answered
/// elsewhere, and one with cause 603 as declined elsewhere (CALLKIT.md's end reasons).
@Suite("Answered and declined elsewhere", .serialized)
struct AnsweredElsewhereTests {
    static func request(_ method: String, port: UInt16, peer: UInt16, branch: String, cseq: String, extra: String = "")
        -> String
    {
        """
        \(method) sip:bob@127.0.0.1:\(port) SIP/2.0\r
        Via: SIP/2.0/UDP 127.0.0.1:\(peer);branch=\(branch)\r
        Max-Forwards: 70\r
        From: <sip:proxy@127.0.0.1>;tag=fork1\r
        To: <sip:bob@127.0.0.1>\r
        Call-ID: \(branch)@127.0.0.1\r
        CSeq: \(cseq)\r
        Contact: <sip:proxy@127.0.0.1:\(peer)>\r
        \(extra)Content-Length: 0\r
        \r

        """
    }

    @Test(arguments: [("200", CallEndedReason.answeredElsewhere), ("603", .declinedElsewhere)])
    func aCancelWithReasonEndsTheInviteAccordingly(cause: String, expected: CallEndedReason) async throws {
        let pair = try ProviderPair()
        defer { pair.close() }
        let peer = try pair.makePeer()
        defer { peer.close() }
        let port = try #require(UInt16(pair.bobAddress.split(separator: ":").last ?? ""))
        let branch = "z9hG4bK-fork-\(UInt32.random(in: 0...UInt32.max))"
        peer.send(Self.request("INVITE", port: port, peer: peer.port, branch: branch, cseq: "1 INVITE"), toPort: port)
        let invite = try #require(await pair.bobDelegate.invite())
        var ringing = false
        for _ in 0..<5 {
            guard let response = await peer.receive(seconds: 2) else { break }
            if response.hasPrefix("SIP/2.0 180") {
                ringing = true
                break
            }
        }
        #expect(ringing)
        peer.send(
            Self.request(
                "CANCEL", port: port, peer: peer.port, branch: branch, cseq: "1 CANCEL",
                extra: "Reason: SIP;cause=\(cause);text=\"elsewhere\"\r\n"),
            toPort: port)
        let cancelled = try #require(
            await pair.bobDelegate.wait { $0.cancelledInvite })
        #expect(cancelled.callUUID == invite.callUUID)
        #expect(cancelled.reason == expected)
        #expect(await pair.bobDelegate.ended(invite.callUUID)?.reason == expected)
        var statuses: [String] = []
        while let response = await peer.receive(seconds: 1) { statuses.append(String(response.prefix(11))) }
        #expect(statuses.contains("SIP/2.0 200"))
        #expect(statuses.contains("SIP/2.0 487"))
    }
}
