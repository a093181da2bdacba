import SIPMessage
import Testing

@testable import SIPUserAgent

/// RFC 3261 §12.2.2: routing received requests to dialogs, 481 for unknown ones; RFC 3891 matching.
@Suite struct DialogTableTests {
    static let bye = """
        BYE sip:bob@192.0.2.4 SIP/2.0
        Via: SIP/2.0/UDP pc33.atlanta.example.com;branch=z9hG4bKnashds10
        Max-Forwards: 70
        From: Alice <sip:alice@atlanta.example.com>;tag=1928301774
        To: Bob <sip:bob@biloxi.example.com>;tag=a6c85cf
        Call-ID: a84b4c76e66710
        CSeq: 231 BYE
        Content-Length: 0


        """

    @Test func requestWithKnownTagsFindsItsDialog() throws {
        var table = DialogTable<Int>()
        table.insert(7, for: DialogID(callID: "a84b4c76e66710", localTag: "a6c85cf", remoteTag: "1928301774"))
        guard case .dialog(let id, let value) = table.match(try request(Self.bye)) else {
            Issue.record("no match")
            return
        }
        #expect(value == 7)
        #expect(id.localTag == "a6c85cf")
        #expect(table.count == 1)
    }

    @Test func unknownDialogGets481AndAnUnknownACKNothing() throws {
        let table = DialogTable<Int>()
        guard case .unknownDialog(let answer) = table.match(try request(Self.bye)), let answer else {
            Issue.record("no 481")
            return
        }
        #expect(answer.statusCode == 481)
        #expect(answer.headerFields[.cseq] == "231 BYE")
        #expect(try answer.to?.tag == "a6c85cf")
        #expect(answer.headerFields[.via] == "SIP/2.0/UDP pc33.atlanta.example.com;branch=z9hG4bKnashds10")
        let ack = try request(
            Self.bye.replacingOccurrences(of: "BYE sip", with: "ACK sip").replacingOccurrences(
                of: "231 BYE", with: "231 ACK"))
        guard case .unknownDialog(let none) = table.match(ack) else {
            Issue.record("ACK matched")
            return
        }
        #expect(none == nil)
    }

    @Test func requestWithoutToTagIsOutsideAnyDialog() throws {
        var table = DialogTable<Int>()
        table.insert(1, for: DialogID(callID: "a84b4c76e66710", localTag: "a6c85cf", remoteTag: "1928301774"))
        let initial = try request(Self.bye.replacingOccurrences(of: ";tag=a6c85cf", with: ""))
        guard case .outsideDialog = table.match(initial) else {
            Issue.record("not outside")
            return
        }
        // A different remote tag is another dialog.
        let other = try request(Self.bye.replacingOccurrences(of: "tag=1928301774", with: "tag=zzz"))
        guard case .unknownDialog = table.match(other) else {
            Issue.record("matched a dialog with another remote tag")
            return
        }
        table.remove(DialogID(callID: "a84b4c76e66710", localTag: "a6c85cf", remoteTag: "1928301774"))
        #expect(table.isEmpty)
    }

    /// The dialog a request is routed to is the one `DialogID(receivedRequest:)` names, whether the tags are
    /// read off the bytes or (a From without a plain tag) parsed.
    @Test(arguments: [
        ("From: Alice <sip:alice@atlanta.example.com>;tag=1928301774", "1928301774"),
        ("From: \"A ;tag=x\" <sip:alice@atlanta.example.com>;tag=1928301774", "1928301774"),
        ("From: Alice <sip:alice@atlanta.example.com> ; TAG = 1928301774", "1928301774"),
        ("From: Alice <sip:alice@atlanta.example.com>", ""),
    ])
    func matchNamesTheDialogOfTheRequest(from: String, remoteTag: String) throws {
        var table = DialogTable<Int>()
        let expected = DialogID(callID: "a84b4c76e66710", localTag: "a6c85cf", remoteTag: remoteTag)
        table.insert(3, for: expected)
        let bye = try request(
            Self.bye.replacingOccurrences(of: "From: Alice <sip:alice@atlanta.example.com>;tag=1928301774", with: from))
        #expect(DialogID(receivedRequest: bye) == expected)
        guard case .dialog(let id, let value) = table.match(bye) else {
            Issue.record("no match for \(from)")
            return
        }
        #expect(id == expected)
        #expect(id.remoteTag == remoteTag)
        #expect(value == 3)
    }

    @Test func replacesNamesTheDialogFromTheRecipientsSide() throws {
        var table = DialogTable<String>()
        table.insert("call", for: DialogID(callID: "425928@bobster.example.org", localTag: "7743", remoteTag: "6472"))
        let replaces = try Replaces("425928@bobster.example.org;to-tag=7743;from-tag=6472")
        #expect(table.match(replaces)?.1 == "call")
        let swapped = try Replaces("425928@bobster.example.org;to-tag=6472;from-tag=7743")
        #expect(table.match(swapped) == nil)
    }

    @Test func responseBuilderCopiesTheHeadersAndAddsTheTag() throws {
        let invite = try request(Self.bye.replacingOccurrences(of: ";tag=a6c85cf", with: ""))
        let trying = SIPResponse(answering: invite, status: 100, toTag: "x")
        #expect(try trying.to?.tag == nil)
        let ringing = SIPResponse(answering: invite, status: 180, toTag: "x")
        #expect(try ringing.to?.tag == "x")
        #expect(ringing.reasonPhrase == "Ringing")
        #expect(ringing.headerFields[.from] == invite.headerFields[.from])
    }

    /// The response builder reads the To tag off the bytes when they say plainly whether there is one; each
    /// form here must come out with the tag the full parse gives (kept, or `x` added) and nothing else changed.
    @Test(arguments: [
        "Bob <sip:bob@biloxi.example.com>",
        "Bob <sip:bob@biloxi.example.com>;tag=a6c85cf",
        "Bob <sip:bob@biloxi.example.com>;TAG = a6c85cf",
        "Bob <sip:bob@biloxi.example.com;tag=uri-param>",
        "\"Bob ;tag=quoted\" <sip:bob@biloxi.example.com>",
        "\"Bob \\\";tag=q\" <sip:bob@biloxi.example.com>;tagx=1",
        "sip:bob@biloxi.example.com",
        "sip:bob@biloxi.example.com;tag=a6c85cf",
        "sip:bob@biloxi.example.com ; tag=a6c85cf",
        "<sip:bob@biloxi.example.com>;foo;tag=a6c85cf;bar=1",
        "<sip:bob@biloxi.example.com>;tag",
        "\"Bob <sip:bob@biloxi.example.com>;tag=unclosed",
    ])
    func responseBuilderAddsTheTagExactlyWhenTheParseFindsNone(to: String) throws {
        let invite = try request(
            Self.bye.replacingOccurrences(of: "Bob <sip:bob@biloxi.example.com>;tag=a6c85cf", with: to))
        let parsed = try? invite.to
        let response = SIPResponse(answering: invite, status: 200, toTag: "x")
        if let parsed {
            let answered = try #require(try response.to)
            #expect(answered.tag == (parsed.tag ?? "x"))
            #expect(answered.uri == parsed.uri)
            #expect(answered.displayName == parsed.displayName)
            // A To that has its tag goes back unchanged (not with a second tag).
            if parsed.tag != nil { #expect(response.headerFields[.to] == to) }
        } else {
            // A To the parser refuses is copied as it came.
            #expect(response.headerFields[.to] == to)
        }
        #expect(response.headerFields[fields: .to].count == 1)
    }

    @Test func dialogIDsCompareAsStringsWithTheRemoteTagAsBytes() {
        func id(_ remote: String, callID: String = "c@h", local: String = "l1") -> DialogID {
            DialogID(callID: callID, localTag: local, remoteTag: remote)
        }
        // The remote tag reads back as set, set again or not.
        var changed = id("r1")
        #expect(changed.remoteTag == "r1")
        changed.remoteTag = "a-much-longer-remote-tag-than-fifteen"
        #expect(changed.remoteTag == "a-much-longer-remote-tag-than-fifteen")
        #expect(changed == id("a-much-longer-remote-tag-than-fifteen"))
        #expect(id("") == id("") && id("").remoteTag.isEmpty)
        // Case counts in every part (RFC 3261 §19.3, §20.8), as it does for strings.
        #expect(id("abc") != id("ABC"))
        #expect(id("abc", callID: "C@h") != id("abc"))
        #expect(id("abc", local: "L1") != id("abc"))
        #expect(id("abc") != id("abcd"))
        // Canonically equivalent tags are equal, as equal strings are: e + U+0301 and é, KELVIN SIGN and K.
        let pairs: [(String, String)] = [("caf\u{E9}", "cafe\u{301}"), ("\u{212A}x", "Kx"), ("\u{E9}", "\u{E9}")]
        for (a, b) in pairs {
            #expect(a == b)
            #expect(id(a) == id(b))
            #expect(id(a).hashValue == id(b).hashValue)
            #expect(id(a, callID: a, local: a) == id(b, callID: b, local: b))
            #expect(id(a, callID: a, local: a).hashValue == id(b, callID: b, local: b).hashValue)
        }
        #expect(id("\u{E9}") != id("e"))
        // Equal ids hash alike; a table tells forks of one call apart by their remote tags.
        var table = DialogTable<Int>()
        for n in 0..<50 { table.insert(n, for: id("fork\(n)")) }
        for n in 0..<50 { #expect(table[id("fork\(n)")] == n) }
        #expect(table[id("fork50")] == nil)
        #expect(table.count == 50)
    }
}
