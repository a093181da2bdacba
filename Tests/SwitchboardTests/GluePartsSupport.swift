import Foundation
import SIPMessage

@testable import Switchboard

/// Builders for the unit tests of the provider's and the session driver's parts.
enum Parts {
    /// A request written with `\n` line ends (turned into CRLF), with a Content-Length for its body.
    static func parse(_ head: String, body: String = "") throws -> SIPRequest {
        let text = head.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
        let message = text + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        return try SIPRequest(parsing: Array(message.utf8))
    }

    /// A request outside any dialog from alice to bob.
    static func request(_ method: String, extra: String = "", body: String = "") throws -> SIPRequest {
        try parse(
            """
            \(method) sip:bob@example.com SIP/2.0
            Via: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bK1
            Max-Forwards: 70
            From: "Alice" <sip:alice@example.com>;tag=a1
            To: <sip:bob@example.com>
            Call-ID: c1@10.0.0.1
            CSeq: 1 \(method)
            Contact: <sip:alice@10.0.0.1:5060>
            \(extra)
            """, body: body)
    }

    /// A call snapshot in `state`.
    static func call(
        _ uuid: UUID = UUID(), direction: Call.Direction = .outgoing, state: Call.State = .connected
    ) -> Call {
        var call = Call.outgoing(
            uuid, account: "alice", local: Handle(type: .generic, value: "sip:alice@example.com"),
            remote: Handle(type: .generic, value: "sip:bob@example.com"), date: Date(timeIntervalSince1970: 0))
        call.direction = direction
        call.state = state
        return call
    }

    /// A record of a call in `state`.
    static func record(
        _ uuid: UUID = UUID(), direction: Call.Direction = .outgoing, state: Call.State = .connected
    ) -> CallRecord {
        CallRecord(call: call(uuid, direction: direction, state: state))
    }

    /// Accounts alice and bob at example.com, and carol at other.example.
    static func accounts() throws -> AccountBook {
        try AccountBook([
            Account(addressOfRecord: "sip:alice@example.com", id: "alice"),
            Account(addressOfRecord: "sip:bob@example.com", id: "bob"),
            Account(addressOfRecord: "sip:carol@other.example", id: "carol"),
        ])
    }
}
