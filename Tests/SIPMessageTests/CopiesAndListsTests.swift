import SIPMessage
import Testing

/// The package helpers the user agent reads INVITEs with: token-list lookups must answer as the typed accessors
/// do, and address copies must equal the address parsed again from its own bytes.
@Suite struct CopiesAndListsTests {
    static func request(_ fields: String) throws -> SIPRequest {
        try SIPRequest(
            parsing: Array(
                ("INVITE sip:bob@example.org SIP/2.0\r\nVia: SIP/2.0/UDP h;branch=z9hG4bK1\r\n" + fields
                    + "Content-Length: 0\r\n\r\n").utf8))
    }

    @Test(
        "token lists answer as the accessors",
        arguments: [
            "Allow: INVITE, ACK, UPDATE\r\n", "Allow: INVITE,ACK\r\n", "Allow: INVITE ,\r\n UPDATE\r\n",
            "Allow:\r\n", "Allow: INVITE, , UPDATE\r\n", "Allow: update\r\n", "Allow: UPDATE\r\nAllow: BYE;x\r\n",
            "Supported: 100REL, timer\r\nRequire: Timer\r\n", "Supported: \r\nRequire:\r\n",
            "Supported: replaces\r\nRequire: 100rel, x@y\r\n", "",
        ])
    func tokenLists(_ fields: String) throws {
        let request = try Self.request(fields)
        let headers = request.headerFields
        let allow = try? headers.allow
        #expect(headers.tokenList(.allow, allowEmpty: true, contains: "UPDATE") == allow.map { $0.contains(.update) })
        for tag in ["100rel", "timer"] {
            let supported = try? headers.supported
            #expect(
                headers.tokenList(.supported, allowEmpty: true, contains: tag, ignoringCase: true)
                    == supported.map { $0.contains { $0.lowercased() == tag } })
            let required = try? headers.require
            #expect(
                headers.tokenList(.require, allowEmpty: false, contains: tag, ignoringCase: true)
                    == required.map { $0.contains { $0.lowercased() == tag } })
        }
        // Both tags in one scan: what asking for each gives.
        for (name, allowEmpty) in [(SIPField.Name.supported, true), (.require, false)] {
            let both = headers.tokenList(name, allowEmpty: allowEmpty, contains: "100rel", "timer", ignoringCase: true)
            let first = headers.tokenList(name, allowEmpty: allowEmpty, contains: "100rel", ignoringCase: true)
            let second = headers.tokenList(name, allowEmpty: allowEmpty, contains: "timer", ignoringCase: true)
            #expect(both?.0 == first)
            #expect(both?.1 == second)
            #expect((both == nil) == (first == nil))
        }
    }

    @Test(
        "address copies equal the address parsed again",
        arguments: [
            "\"Alice Smith\" <sip:alice@example.com>;tag=1928301774",
            "Bob <sip:bob@example.org;transport=tcp>;x=1;tag=abc;y", "sip:carol@example.net;tag=7",
            "<sips:dave@example.com:5061>", "<sip:eve@example.com>;tag=\"quoted\"", "<sip:f@x>;tag=1;TAG=2",
            "\"Q\" <sip:g@x;lr>;x=1;Tag=t", "<sip:h@x> ;tag=t2", "<sip:i@x>;tag=a;y=2", "sip:j@x;p=q;tag=t",
        ])
    func addressCopies(_ value: String) throws {
        let request = try Self.request("From: \(value)\r\nTo: <sip:bob@example.org>\r\nContact: \(value)\r\n")
        let from = try #require(try request.from)
        let copy = from.compactCopy
        #expect(copy == from)
        #expect(copy.wireForm == from.wireForm)
        #expect(copy.tag == from.tag)
        #expect(copy.uri.description == from.uri.description)
        let reparsed = try NameAddress(from.wireForm)
        #expect(copy.parameters == reparsed.parameters)

        if let withoutTag = from.compactCopyWithoutTag {
            #expect(withoutTag.tag == nil)
            #expect(withoutTag.uri == from.uri)
            #expect(withoutTag.displayName == from.displayName)
            var expected = from.parameters.elements
            expected.removeAll { $0.name.lowercased() == "tag" }
            #expect(withoutTag.parameters.elements == expected)
            // A value ending with its one plain tag is copied without a parse.
            if value.hasSuffix(";tag=7") || value.hasSuffix("=t") || value.hasSuffix("=1928301774") {
                #expect(from.compactCopyDroppingTrailingTag != nil)
            }
            // Without a parse, the copy is what parsing the bytes without the tag gives.
            if let dropped = from.compactCopyDroppingTrailingTag {
                let reparsed = try #require(from.reparsedCopyWithoutTag)
                #expect(dropped.wireForm == reparsed.wireForm)
                #expect(dropped == reparsed)
                #expect(dropped.tag == nil)
                #expect(dropped.parameters.elements == reparsed.parameters.elements)
                #expect(dropped.uri.description == reparsed.uri.description)
                #expect(dropped.displayName == reparsed.displayName)
            }
        } else {
            // Only values whose tag is not one plain token are left to the caller.
            #expect(value.contains("\"quoted\"") || value.contains("TAG=2"))
        }

        let uri = try #require(try request.firstContact?.uri)
        #expect(uri.compactCopy == uri)
        #expect(uri.compactCopy.description == uri.description)
    }
}
