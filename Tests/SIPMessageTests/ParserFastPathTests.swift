import SIPMessage
import Testing

/// Shortcuts in the message parser (numbers without a leading-zero pass, the start line moved into the message,
/// header names packed with word loads near the end of the buffer) must read what the general code reads.
@Suite("Parser fast paths")
struct ParserFastPathTests {
    static func request(_ headers: String, body: String = "") throws -> Message {
        try Message(
            parsing: "OPTIONS sip:bob@example.org SIP/2.0\r\n" + headers + "Content-Length: \(body.utf8.count)\r\n\r\n"
                + body)
    }

    @Test(
        arguments: [
            ("70", 70), ("0070", 70), ("0000000000000000070", 70), ("00000000000000000070", 70),
            ("000000000000000000000000000000070", 70), ("255", 255),
        ] as [(String, Int)])
    func numbersWithLeadingZeros(text: String, value: Int) throws {
        let message = try Self.request("Max-Forwards: \(text)\r\n")
        #expect(try message.headerFields.maxForwards == value)
    }

    @Test(arguments: ["256", "00000000000000000256", "99999999999999999999", "1000000000000000000000"])
    func numbersOutOfRange(text: String) throws {
        let message = try Self.request("Max-Forwards: \(text)\r\n")
        #expect(throws: MessageError.self) { try message.headerFields.maxForwards }
    }

    @Test func cseqWithManyDigits() throws {
        let message = try Self.request("CSeq: 000000000000000000000000042 OPTIONS\r\n")
        #expect(try message.headerFields.cseq == CSeq(42, .options))
        let tooLarge = try Self.request("CSeq: 2147483648 OPTIONS\r\n")
        #expect(throws: MessageError.self) { try tooLarge.headerFields.cseq }
    }

    @Test func startLinesMoveIntoTheMessage() throws {
        let request = try Self.request("Via: SIP/2.0/UDP 192.0.2.1;branch=z9hG4bK1\r\n", body: "hello")
        #expect(request.request?.method == .options)
        #expect(request.request?.uri.sipURI?.host.text == "example.org")
        #expect(request.bodyBytes.elementsEqual("hello".utf8))
        let response = try Message(parsing: "SIP/2.0 180 Ringing\r\nContent-Length: 0\r\n\r\n")
        #expect(response.response?.statusCode == 180)
        #expect(response.response?.reasonPhrase == "Ringing")
        #expect(throws: MessageError.self) { try Message(parsing: "OPTIONS  SIP/2.0\r\nContent-Length: 0\r\n\r\n") }
    }

    @Test(arguments: 0...30)
    func headerNamesAtTheEndOfTheBuffer(padding: Int) throws {
        // The last header line's name ends closer and closer to the end of the datagram (no Content-Length
        // after it): its classification must not depend on how many bytes follow.
        let names = ["Call-ID", "i", "CSeq", "Content-Length", "l", "Record-Route", "X-Unknown-Extension-Header"]
        for name in names {
            let isLength = name == "Content-Length" || name == "l"
            let value = String(repeating: isLength ? "0" : "1", count: padding + 1)
            let message = try Message(parsing: "SIP/2.0 200 OK\r\n\(name): \(value)\r\n\r\n")
            let fields = message.headerFields
            #expect(fields.count == 1)
            switch name {
            case "Call-ID", "i": #expect(try fields.callID == value)
            case "CSeq": #expect(fields.contains(.cseq))
            case "Content-Length", "l": #expect(try fields.contentLength == 0)
            case "Record-Route": #expect(fields.contains(.recordRoute))
            default: #expect(fields[try #require(SIPField.Name(name))] == value)
            }
        }
    }
}

/// `SIPURI` reads a plain `user@` without searching for the '@' first; everything else takes the general path.
@Suite("URI user fast path")
struct URIUserFastPathTests {
    @Test(
        arguments: [
            ("sip:alice@example.com", "alice", nil, "example.com", nil),
            ("sip:alice@192.0.2.10:5060;transport=udp", "alice", nil, "192.0.2.10", 5060),
            (
                "sip:+1-212-555-0101;phone-context=x@example.com", "+1-212-555-0101;phone-context=x", nil,
                "example.com", nil
            ),
            ("sip:al%41ce@example.com", "al%41ce", nil, "example.com", nil),
            ("sip:alice:secret@example.com", "alice", "secret", "example.com", nil),
            ("sip:alice:@example.com", "alice", "", "example.com", nil),
            ("sip:example.com;lr", nil, nil, "example.com", nil),
            ("sip:example.com:5070;maddr=a", nil, nil, "example.com", 5070),
            ("sip:host;x=a@example.com", "host;x=a", nil, "example.com", nil),
            ("sips:a@[2001:db8::1]:5061", "a", nil, "2001:db8::1", 5061),
        ] as [(String, String?, String?, String, UInt16?)])
    func users(uri: String, user: String?, password: String?, host: String, port: UInt16?) throws {
        let parsed = try SIPURI(uri)
        #expect(parsed.escapedUser == user)
        #expect(parsed.escapedPassword == password)
        #expect(parsed.host.text == host)
        #expect(parsed.port == port)
        #expect(parsed.description == uri)
    }

    @Test(arguments: ["sip:@example.com", "sip:al%4@example.com", "sip:a\"b@example.com", "sip:alice@", "sip:a@b@c"])
    func malformed(uri: String) {
        #expect(throws: MessageError.self) { try SIPURI(uri) }
    }
}
