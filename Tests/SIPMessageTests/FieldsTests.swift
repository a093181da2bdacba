import SIPMessage
import Testing

@Suite("Header fields")
struct FieldsTests {
    @Test func everyCompactFormFolds() throws {
        let pairs: [(String, SIPField.Name)] = [
            ("a", .acceptContact), ("b", .referredBy), ("c", .contentType), ("d", .requestDisposition),
            ("e", .contentEncoding), ("f", .from), ("i", .callID), ("j", .rejectContact), ("k", .supported),
            ("l", .contentLength), ("m", .contact), ("n", .identityInfo), ("o", .event), ("r", .referTo),
            ("s", .subject), ("t", .to), ("u", .allowEvents), ("v", .via), ("x", .sessionExpires), ("y", .identity),
        ]
        for (compact, long) in pairs {
            let name = try #require(SIPField.Name(compact))
            #expect(name == long, "\(compact)")
            #expect(name.canonicalName == long.canonicalName)
            #expect(name.rawName == compact)
            let upper = try #require(SIPField.Name(compact.uppercased()))
            #expect(upper == long)
        }
        // Letters that are no compact form stay names of their own.
        #expect(SIPField.Name("G")?.canonicalName == "g")
        #expect(SIPField.Name("g") != .via)
    }

    @Test func namesCompareCanonically() throws {
        #expect(SIPField.Name("VIA") == .via)
        #expect(SIPField.Name("call-id") == .callID)
        #expect(SIPField.Name("X-Custom") == SIPField.Name("x-custom"))
        #expect(SIPField.Name("X-Custom")?.rawName == "X-Custom")
        #expect(SIPField.Name("bad name") == nil)
        #expect(SIPField.Name("") == nil)
        #expect(SIPField.Name("Via:") == nil)
    }

    @Test func orderAndDuplicatesAreKept() throws {
        let message = try Message(parsing: TestData.torture("longreq"))
        let vias = message.headerFields[values: .via]
        #expect(vias.count == 34)
        #expect(vias.first == "SIP/2.0/TCP sip33.example.com")
        let names = message.headerFields.map(\.name.rawName)
        #expect(names[0] == "To")
        #expect(names.contains("ViA"))
    }

    @Test func unknownHeadersAreKeptVerbatim() throws {
        let message = try Message(parsing: TestData.torture("esc02"))
        let name = try #require(SIPField.Name("C%6Fntact"))
        #expect(message.headerFields[name] == "<sip:alias2@host2.example.com>")
        #expect(message.headerFields[values: .contact].count == 2)
    }

    @Test func editing() throws {
        var fields: SIPFields = [
            SIPField(name: .via, value: "SIP/2.0/UDP a.example.com;branch=z9hG4bK1"),
            SIPField(name: .to, value: "<sip:bob@example.com>"),
            SIPField(name: .via, value: "SIP/2.0/UDP b.example.com;branch=z9hG4bK2"),
        ]
        #expect(fields.count == 3)
        #expect(fields[values: .via].count == 2)
        fields.insert(SIPField(name: .via, value: "SIP/2.0/UDP c.example.com;branch=z9hG4bK3"), at: 0)
        #expect(fields[.via] == "SIP/2.0/UDP c.example.com;branch=z9hG4bK3")
        fields[.to] = "<sip:carol@example.com>"
        #expect(fields[.to] == "<sip:carol@example.com>")
        fields[.via] = "SIP/2.0/TCP d.example.com"
        #expect(fields[values: .via] == ["SIP/2.0/TCP d.example.com"])
        #expect(fields.firstIndex(of: .via) == 0)
        fields[.to] = nil
        #expect(!fields.contains(.to))
        fields.append(name: .callID, value: "abc\r\nInjected: yes")
        #expect(fields[.callID] == "abc  Injected: yes")
        #expect(fields.count == 2)
    }

    @Test func listValuesSplitOutsideQuotesAndBrackets() throws {
        let message = try Message(
            parsing:
                "OPTIONS sip:a@b SIP/2.0\r\nX-List: \"Doe, John\" <sip:j@x;a=1,2>, <sip:k@y> ,tok\r\nX-List: last\r\nContent-Length: 0\r\n\r\n"
        )
        let name = try #require(SIPField.Name("x-list"))
        #expect(
            message.headerFields.listValues(name) == [
                "\"Doe, John\" <sip:j@x;a=1,2>", "<sip:k@y>", "tok", "last",
            ])
        #expect(message.headerFields[values: name].count == 2)
    }

    @Test func equalityIgnoresNameSpellingButNotValues() throws {
        let a: SIPFields = [SIPField(name: try #require(SIPField.Name("v")), value: "SIP/2.0/UDP x")]
        let b: SIPFields = [SIPField(name: .via, value: "SIP/2.0/UDP x")]
        let c: SIPFields = [SIPField(name: .via, value: "SIP/2.0/UDP y")]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != c)
    }

    @Test func typedValuesWriteTheLongName() throws {
        var fields = SIPFields()
        fields.append(.cseq, CSeq(1, .register))
        fields.set(.maxForwards, 70)
        fields.set(.maxForwards, 69)
        #expect(fields.description == "CSeq: 1 REGISTER\r\nMax-Forwards: 69")
        #expect(try fields.cseq == CSeq(1, .register))
        #expect(try fields.maxForwards == 69)
    }
}
