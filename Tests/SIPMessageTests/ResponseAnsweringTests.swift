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
    /// The fields copied in one run (the usual request) are those copying them field by field gives: folded
    /// values with spaces for their CRLF, the tag added only above 100 to a To without one, an empty tag too.
    @Test(arguments: [100, 180, 200], [String?.none, "", "t1"])
    func oneRunCopiesWhatFieldByFieldCopiesDo(status: Int, toTag: String?) throws {
        let heads = [
            "Via: SIP/2.0/UDP a;branch=z9hG4bK1\r\nv: SIP/2.0/UDP b;branch=z9hG4bK2\r\nFrom: <sip:a@x>;tag=f\r\n"
                + "To: Bob\r\n <sip:b@y>\r\nCall-ID: c1\r\nCSeq: 1 INVITE\r\nTimestamp: 5\r\n",
            "t: <sip:b@y>;tag=old\r\nCSeq: 2 BYE\r\nVia: SIP/2.0/UDP a;branch=z9hG4bK1\r\ni: c2\r\nf: <sip:a@x>;tag=f\r\n",
            "Via: SIP/2.0/UDP a;branch=z9hG4bK1\r\nCall-ID: c3\r\nCSeq: 1 INVITE\r\n",
        ]
        for head in heads {
            let text = "INVITE sip:b@y SIP/2.0\r\n" + head + "Max-Forwards: 70\r\nContent-Length: 0\r\n\r\n"
            let request = try SIPRequest(parsing: Array(text.utf8))
            let source = request.headerFields
            var expected = SIPFields()
            expected.appendCopies(of: .via, from: source)
            expected.appendCopies(of: .from, from: source)
            if status > 100, let toTag, (try source.to)?.tag == nil, source.contains(.to) {
                _ = expected.appendCopy(of: .to, from: source, appendingToValue: Array(";tag=\(toTag)".utf8))
            } else {
                expected.appendCopies(of: .to, from: source)
            }
            expected.appendCopies(of: .callID, from: source)
            expected.appendCopies(of: .cseq, from: source)
            if status == 100 { expected.appendCopies(of: .timestamp, from: source) }
            let response = SIPResponse(answering: request, status: status, toTag: toTag)
            #expect(response.headerFields.map(\.description) == expected.map(\.description))
            #expect(response.headerFields.map(\.name.rawName) == expected.map(\.name.rawName))
            #expect(
                response.serialized() == SIPResponse(statusCode: status, headerFields: expected).serialized())
            // Fields added afterwards go on after the copies.
            var added = response
            added.headerFields.append(.contact, "<sip:b@192.0.2.1>")
            #expect(added.headerFields.last?.description == "Contact: <sip:b@192.0.2.1>")
            #expect(Array(added.headerFields.dropLast()).map(\.description) == expected.map(\.description))
        }
    }
}
