import SIPMessage
import Testing

/// Copying fields as bytes (`appendCopies`, `appendCopy(of:from:appendingToValue:)`) must give what copying
/// them as `SIPField` values gives: names spelled as received, values unchanged except that a fold's CRLF
/// becomes spaces, order kept.
@Suite struct SIPFieldsCopyTests {
    static let request: [UInt8] = Array(
        ("INVITE sip:bob@biloxi.example.com SIP/2.0\r\n"
            + "v: SIP/2.0/UDP pc33.atlanta.example.com;branch=z9hG4bK776asdhds\r\n"
            + "Via: SIP/2.0/UDP proxy.example.com;branch=z9hG4bK1\r\n"
            + "To: Bob\r\n <sip:bob@biloxi.example.com>\r\n"
            + "f: Alice <sip:alice@atlanta.example.com>;tag=1928301774\r\n"
            + "Call-ID: a84b4c76e66710@pc33.atlanta.example.com\r\n"
            + "CSeq: 314159 INVITE\r\n"
            + "Route: <sip:p1.example.com;lr>\r\n"
            + "Route: <sip:p2.example.com;lr>\r\n"
            + "Max-Forwards: 70\r\n"
            + "Content-Length: 0\r\n\r\n").utf8)

    static func fields() throws -> SIPFields {
        guard case .request(let request) = try Message(parsing: request) else {
            Issue.record("not a request")
            return SIPFields()
        }
        return request.headerFields
    }

    /// The same fields copied the slow way: one `SIPField` value each.
    static func copiedAsValues(_ names: [SIPField.Name], from source: SIPFields) -> SIPFields {
        var copy = SIPFields()
        for name in names {
            for field in source[fields: name] { copy.append(field) }
        }
        return copy
    }

    @Test func copiesAgreeWithCopyingFieldValues() throws {
        let source = try Self.fields()
        let names: [SIPField.Name] = [.via, .from, .to, .callID, .cseq, .route, .timestamp]
        var copy = SIPFields()
        var counts: [Int] = []
        for name in names { counts.append(copy.appendCopies(of: name, from: source)) }
        #expect(counts == [2, 1, 1, 1, 1, 2, 0])
        #expect(copy == Self.copiedAsValues(names, from: source))
        // Names keep the spelling they arrived with, compact ones included.
        #expect(copy.map(\.name.rawName) == ["v", "Via", "f", "To", "Call-ID", "CSeq", "Route", "Route"])
        // The folded To has its CRLF turned into spaces, and still parses.
        #expect(copy[3].value == "Bob   <sip:bob@biloxi.example.com>")
        #expect(try copy.to?.uri.sipURI?.host.text == "biloxi.example.com")
        #expect(try copy.from?.tag == "1928301774")
    }

    @Test func aSuffixGoesOnTheOneField() throws {
        let source = try Self.fields()
        var copy = SIPFields()
        let copied1 = copy.appendCopy(of: .from, from: source, appendingToValue: Array(";x=1".utf8))
        #expect(copied1)
        #expect(copy[0].value == "Alice <sip:alice@atlanta.example.com>;tag=1928301774;x=1")
        #expect(copy[0].name.rawName == "f")
        // Two Via or Route fields, or none, are refused whole.
        let copied2 = copy.appendCopy(of: .via, from: source, appendingToValue: Array(";x=1".utf8))
        #expect(!copied2)
        let copied3 = copy.appendCopy(of: .route, from: source, appendingToValue: Array(";x=1".utf8))
        #expect(!copied3)
        let copied4 = copy.appendCopy(of: .timestamp, from: source, appendingToValue: Array(";x=1".utf8))
        #expect(!copied4)
        #expect(copy.count == 1)
        // A suffix cannot start another line.
        let copied5 = copy.appendCopy(of: .callID, from: source, appendingToValue: Array(";a\r\nX: 1".utf8))
        #expect(copied5)
        #expect(copy[1].value == "a84b4c76e66710@pc33.atlanta.example.com;a  X: 1")
    }

    @Test func onlyIndexNeedsExactlyOneField() throws {
        let source = try Self.fields()
        #expect(source.onlyIndex(of: .from) == 3)
        #expect(source.onlyIndex(of: .via) == nil)
        #expect(source.onlyIndex(of: .timestamp) == nil)
        // Unknown names compare case-insensitively, as everywhere else.
        var fields = SIPFields()
        fields.append(name: SIPField.Name("X-Thing")!, value: "1")
        #expect(fields.onlyIndex(of: SIPField.Name("x-thing")!) == 0)
    }

    @Test func tagScanOfFieldsWantsExactlyOneField() throws {
        let source = try Self.fields()
        #expect(TagScan(source, .from) == .present("1928301774"))
        // A fold is white space to the scan: this To plainly has no tag.
        #expect(TagScan(source, .to) == .absent)
        var twoTos = SIPFields()
        twoTos.append(name: .to, value: "<sip:a@example.com>;tag=1")
        #expect(TagScan(twoTos, .to) == .present("1"))
        twoTos.append(name: .to, value: "<sip:b@example.com>;tag=2")
        #expect(TagScan(twoTos, .to) == .unclear)
        #expect(TagScan(SIPFields(), .to) == .unclear)
    }

    @Test func tagsAndValuesComparedAsBytesAgreeWithTheStrings() throws {
        let source = try Self.fields()
        #expect(TagScan.field(.from, of: source, hasTag: "1928301774"))
        #expect(!TagScan.field(.from, of: source, hasTag: "192830177"))
        #expect(!TagScan.field(.from, of: source, hasTag: "19283017745"))
        #expect(!TagScan.field(.to, of: source, hasTag: ""))
        var fields = SIPFields()
        fields.append(name: .to, value: "Bob <sip:b@example.com> ; TAG = t1 ;x=1")
        #expect(TagScan.field(.to, of: fields, hasTag: "t1"))
        #expect(!TagScan.field(.to, of: fields, hasTag: "T1"))
        fields.append(name: .to, value: "<sip:c@example.com>;tag=t1")
        #expect(!TagScan.field(.to, of: fields, hasTag: "t1"))
        fields.append(name: .callID, value: "abc@host")
        fields.append(name: .callID, value: "other")
        #expect(fields.firstValue(of: .callID, is: "abc@host"))
        #expect(!fields.firstValue(of: .callID, is: "other"))
        #expect(!fields.firstValue(of: .callID, is: "abc@hos"))
        #expect(!SIPFields().firstValue(of: .callID, is: ""))
    }

    /// `appendFields(of:)` gives what appending each field of the other collection gives, whatever the
    /// collection appended to already holds and however the other one's storage is laid out (parsed).
    @Test func appendingAllFieldsAgreesWithAppendingEachField() throws {
        let parsed = try Self.fields()
        var built = SIPFields()
        built.append(.server, "Switchboard")
        built.append(.contact, try NameAddress("<sip:bob@192.0.2.20>"))
        for other in [parsed, built, SIPFields()] {
            var start = SIPFields()
            start.append(.via, "SIP/2.0/UDP 192.0.2.1;branch=z9hG4bKx")
            var bulk = start
            bulk.appendFields(of: other)
            var oneByOne = start
            for field in other { oneByOne.append(field) }
            #expect(bulk == oneByOne)
            #expect(bulk.map(\.name.rawName) == oneByOne.map(\.name.rawName))
            #expect(bulk.map(\.value) == oneByOne.map(\.value))
            let response = SIPResponse(statusCode: 200, headerFields: bulk)
            #expect(response.serialized() == SIPResponse(statusCode: 200, headerFields: oneByOne).serialized())
        }
        // Appended to an empty collection, then read by name as any field.
        var fresh = SIPFields()
        fresh.appendFields(of: built)
        #expect(fresh[.server] == "Switchboard")
        #expect(try fresh.firstContact?.uri?.description == "sip:bob@192.0.2.20")
    }
}
