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

/// Header names are read eight bytes at a time (up to the first `:` or byte not above SP) and matched against the
/// known names; anything that is not a known name is checked byte by byte. Names must classify and fail as a
/// byte-by-byte token check and `SIPField.Name` say.
@Suite("Header names read by words")
struct HeaderNameWordTests {
    static let known = [
        "Accept", "Accept-Contact", "Accept-Encoding", "Accept-Language", "Alert-Info", "Allow",
        "Allow-Events", "Authentication-Info", "Authorization", "Call-ID", "Call-Info", "Contact",
        "Content-Disposition", "Content-Encoding", "Content-Language", "Content-Length", "Content-Type", "CSeq",
        "Date", "Error-Info", "Event", "Expires", "From", "Identity",
        "Identity-Info", "In-Reply-To", "Max-Forwards", "MIME-Version", "Min-Expires", "Min-SE",
        "Organization", "P-Asserted-Identity", "P-Preferred-Identity", "Path", "Priority", "Privacy",
        "Proxy-Authenticate", "Proxy-Authorization", "Proxy-Require", "RAck", "Reason", "Record-Route",
        "Refer-Sub", "Refer-To", "Referred-By", "Reject-Contact", "Replaces", "Reply-To",
        "Request-Disposition", "Require", "Retry-After", "Route", "RSeq", "Server",
        "Service-Route", "Session-Expires", "Subject", "Subscription-State", "Supported", "Timestamp",
        "To", "Unsupported", "User-Agent", "Via", "Warning", "WWW-Authenticate",
    ]
    static let compact = "abcdefijklmnorstuvxy"

    /// What the general rules say of `name`: the field name it must parse to, or `nil` when it must be refused.
    static func expected(_ name: [UInt8]) -> SIPField.Name? {
        guard !name.isEmpty, name.allSatisfy({ $0 < 0x80 }) else { return nil }
        return SIPField.Name(String(decoding: name, as: UTF8.self))
    }

    static func check(_ name: [UInt8], value: String = "0") {
        for suffix in ["", "\r\nX-Padding: 0"] {
            let bytes =
                Array("OPTIONS sip:bob@example.org SIP/2.0\r\n".utf8) + name + Array(": \(value)".utf8)
                + Array(suffix.utf8) + Array("\r\n\r\n".utf8)
            let shown = String(decoding: name, as: UTF8.self)
            if let expected = expected(name) {
                let fields = (try? Message(parsing: bytes))?.headerFields
                #expect(fields?.first?.name == expected, "\(shown)")
                #expect(fields?.first?.name.rawName == shown, "\(shown)")
                #expect(fields?.first?.value == value, "\(shown)")
            } else {
                #expect(throws: MessageError.self, "\(shown)") { try Message(parsing: bytes) }
            }
        }
    }

    @Test func knownNamesInEveryCase() {
        for name in Self.known + Self.compact.map(String.init) {
            for spelling in [name, name.lowercased(), name.uppercased()] { Self.check(Array(spelling.utf8)) }
        }
    }

    @Test func nearMisses() {
        // Bytes that lower-case onto a letter or '-' by setting bit 0x20, that end a name, or that no name holds.
        let replacements: [UInt8] = [
            0x0D, 0x0E, 0x09, 0x20, 0x40, 0x5B, 0x5F, 0x60, 0x7B, 0x7F, 0x80, 0xC1, 0xE1, 0x2D, 0x2E, 0x41, 0x61,
            0x3A, 0x00, 0x21, 0x7E,
        ]
        for name in Self.known + Self.compact.map(String.init) {
            let bytes = Array(name.utf8)
            for k in bytes.indices {
                for r in replacements {
                    var changed = bytes
                    changed[k] = r
                    // A ':' or blank ends the name early: the rest of it is then part of the value.
                    if r == 0x3A || r == 0x20 || r == 0x09 { continue }
                    Self.check(changed)
                }
                var shorter = bytes
                shorter.remove(at: k)
                if !shorter.isEmpty { Self.check(shorter) }
                Self.check(bytes + [bytes[k]])
            }
        }
    }

    @Test(arguments: 1...30)
    func unknownNamesOfEveryLength(length: Int) {
        let name = Array(String(repeating: "x-Ab.c!%*_+`'~9", count: 3).utf8.prefix(length))
        Self.check(name)
        Self.check(name + [0x40])
        // White space before the colon.
        let spaced = Array("OPTIONS sip:b@example.org SIP/2.0\r\n".utf8) + name + Array(" \t: v\r\n\r\n".utf8)
        #expect((try? Message(parsing: spaced))?.headerFields.first?.name == Self.expected(name))
    }
}
