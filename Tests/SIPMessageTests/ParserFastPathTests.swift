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
