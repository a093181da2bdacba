import SIPMessage
import Testing

/// `SIPResponse(answering:status:reason:toTag:)` copies Via, From, To, Call-ID and CSeq as RFC 3261 §8.2.6.2
/// says, in that order whatever their order in the request, each field byte for byte; To gets the tag.
@Suite struct ResponseAnsweringTests {
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var fields: String
        var status = 180
        var expected: [String]
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "usual order",
            fields: """
                Via: SIP/2.0/UDP a;branch=z9hG4bK1
                Via: SIP/2.0/UDP b;branch=z9hG4bK2
                From: <sip:a@x>;tag=f
                To: <sip:b@y>
                Call-ID: c1
                CSeq: 1 INVITE
                """,
            expected: [
                "Via: SIP/2.0/UDP a;branch=z9hG4bK1", "Via: SIP/2.0/UDP b;branch=z9hG4bK2", "From: <sip:a@x>;tag=f",
                "To: <sip:b@y>;tag=t1", "Call-ID: c1", "CSeq: 1 INVITE",
            ]),
        Case(
            name: "fields out of order, compact names, a Via after From",
            fields: """
                CSeq: 2 BYE
                i: c2
                f: "A" <sip:a@x>;tag=f
                v: SIP/2.0/UDP a;branch=z9hG4bK1
                t: sip:b@y;tag=old
                Via: SIP/2.0/TCP b;branch=z9hG4bK2
                """,
            expected: [
                "v: SIP/2.0/UDP a;branch=z9hG4bK1", "Via: SIP/2.0/TCP b;branch=z9hG4bK2", "f: \"A\" <sip:a@x>;tag=f",
                "t: sip:b@y;tag=old", "i: c2", "CSeq: 2 BYE",
            ]),
        Case(
            name: "two From fields: every copy",
            fields: """
                Via: SIP/2.0/UDP a;branch=z9hG4bK1
                From: <sip:a@x>;tag=f
                From: <sip:a2@x>;tag=g
                To: <sip:b@y>
                Call-ID: c3
                CSeq: 1 INVITE
                """,
            expected: [
                "Via: SIP/2.0/UDP a;branch=z9hG4bK1", "From: <sip:a@x>;tag=f", "From: <sip:a2@x>;tag=g",
                "To: <sip:b@y>;tag=t1", "Call-ID: c3", "CSeq: 1 INVITE",
            ]),
        Case(
            name: "no To, a 100 with Timestamp",
            fields: """
                Via: SIP/2.0/UDP a;branch=z9hG4bK1
                From: <sip:a@x>;tag=f
                Timestamp: 54
                Call-ID: c4
                CSeq: 1 INVITE
                """,
            status: 100,
            expected: [
                "Via: SIP/2.0/UDP a;branch=z9hG4bK1", "From: <sip:a@x>;tag=f", "Call-ID: c4", "CSeq: 1 INVITE",
                "Timestamp: 54",
            ]),
        Case(
            name: "a To whose tag is not plain is parsed",
            fields: """
                Via: SIP/2.0/UDP a;branch=z9hG4bK1
                From: <sip:a@x>;tag=f
                To: "Bob; the <b>" <sip:b@y>
                Call-ID: c5
                CSeq: 1 INVITE
                """,
            expected: [
                "Via: SIP/2.0/UDP a;branch=z9hG4bK1", "From: <sip:a@x>;tag=f", "To: \"Bob; the <b>\" <sip:b@y>;tag=t1",
                "Call-ID: c5", "CSeq: 1 INVITE",
            ]),
    ]

    @Test("answering copies the fields", arguments: cases)
    func answering(_ test: Case) throws {
        let text =
            "INVITE sip:b@y SIP/2.0\r\n" + test.fields.replacing("\n", with: "\r\n")
            + "\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n"
        let request = try SIPRequest(parsing: Array(text.utf8))
        let response = SIPResponse(answering: request, status: test.status, toTag: "t1")
        #expect(response.headerFields.map(\.description) == test.expected)
    }
}
