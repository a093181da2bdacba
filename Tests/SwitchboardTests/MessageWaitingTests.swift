import Foundation
import Switchboard
import Testing

/// Unsolicited message-summary NOTIFYs (RFC 3842 §6, Asterisk's default MWI) reach the delegate.
@Suite("Message waiting")
struct MessageWaitingTests {
    static func notify(to port: UInt16, from peer: UInt16, event: String, body: String) -> String {
        """
        NOTIFY sip:bob@127.0.0.1:\(port) SIP/2.0\r
        Via: SIP/2.0/UDP 127.0.0.1:\(peer);branch=z9hG4bK-mwi-\(UInt32.random(in: 0...UInt32.max))\r
        Max-Forwards: 70\r
        From: <sip:asterisk@127.0.0.1>;tag=mwi1\r
        To: <sip:bob@127.0.0.1>\r
        Call-ID: mwi-\(UInt32.random(in: 0...UInt32.max))@127.0.0.1\r
        CSeq: 1 NOTIFY\r
        Event: \(event)\r
        Subscription-State: active\r
        Content-Type: application/simple-message-summary\r
        Content-Length: \(body.utf8.count)\r
        \r
        \(body)
        """
    }

    @Test func anUnsolicitedSummaryIsAnsweredAndDelivered() async throws {
        let pair = try ProviderPair()
        defer { pair.close() }
        let peer = try pair.makePeer()
        defer { peer.close() }
        let port = try #require(UInt16(pair.bobAddress.split(separator: ":").last ?? ""))
        let body = "Messages-Waiting: yes\r\nMessage-Account: sip:*97@127.0.0.1\r\nVoice-Message: 2/8 (0/1)\r\n"
        peer.send(Self.notify(to: port, from: peer.port, event: "message-summary", body: body), toPort: port)
        let response = try #require(await peer.receive(seconds: 10))
        #expect(response.hasPrefix("SIP/2.0 200"))
        let summary = try #require(
            await pair.bobDelegate.wait(seconds: 10) {
                if let account = $0.account, let summary = $0.messageSummary { (account, summary) } else { nil }
            })
        #expect(summary.0 == "sip:bob@127.0.0.1")
        #expect(summary.1.messagesWaiting)
        #expect(summary.1.newMessages == 2)
        #expect(summary.1.oldMessages == 8)
        #expect(summary.1.messageAccount == "sip:*97@127.0.0.1")
    }

    @Test func aNotifyForAnotherPackageGets481() async throws {
        let pair = try ProviderPair()
        defer { pair.close() }
        let peer = try pair.makePeer()
        defer { peer.close() }
        let port = try #require(UInt16(pair.bobAddress.split(separator: ":").last ?? ""))
        peer.send(Self.notify(to: port, from: peer.port, event: "presence", body: "x"), toPort: port)
        let response = try #require(await peer.receive(seconds: 10))
        #expect(response.hasPrefix("SIP/2.0 481"))
    }
}
