import SIPMessage
import Testing

@Suite("Validation before the transaction layer")
struct ValidationTests {
    static let base = [
        "Via: SIP/2.0/UDP 192.0.2.1;branch=z9hG4bKabc", "From: <sip:alice@example.com>;tag=1",
        "To: <sip:bob@example.com>", "Call-ID: v-1", "CSeq: 1 OPTIONS", "Max-Forwards: 70",
    ]

    func status(
        _ startLine: String, _ headers: [String], body: String = "", capabilities: Capabilities? = Capabilities()
    )
        -> Int?
    {
        let text = startLine + "\r\n" + headers.joined(separator: "\r\n") + "\r\n\r\n" + body
        do {
            let message = try Message(parsing: text)
            try message.validate(capabilities: capabilities)
            return 0
        } catch {
            return error.status ?? -1
        }
    }

    /// Lists are checked value by value without keeping them: a request fails validation exactly when the
    /// typed accessor of one of its lists throws, with the same reason.
    @Test(arguments: [
        "Via: SIP/2.0/UDP 192.0.2.2;branch=z9hG4bKdef, SIP/2.0/UDP 192.0.2.3",
        "Via: SIP/2.0/UDP 192.0.2.2;branch=z9hG4bKdef, @bad",
        "Contact: <sip:alice@192.0.2.1>, <sip:alice@192.0.2.9>",
        "Contact: <sip:alice@192.0.2.1> <junk>",
        "Record-Route: <sip:p1.example.com;lr>, <sip:p2.example.com;lr>",
        "Record-Route: <sip:p1.example.com;lr>,",
        "Route: <sip:p1.example.com;lr>",
        "Route: ",
        "Supported: ",
        "Supported: timer, 100rel",
        "Supported: timer 100rel",
        "Require: ",
        "Require: timer",
        "Proxy-Require: a, b",
        "Proxy-Require: a;b",
    ])
    func listsAreCheckedAsTheirAccessorsParseThem(extra: String) {
        let text =
            "OPTIONS sip:bob@example.com SIP/2.0\r\n" + (Self.base + [extra]).joined(separator: "\r\n") + "\r\n\r\n"
        // A value the parser refuses already never reaches validation.
        guard let request = try? SIPRequest(parsing: Array(text.utf8)) else { return }
        var accessorError: MessageError?
        do {
            _ = try request.via
            _ = try request.contacts
            _ = try request.recordRoute
            _ = try request.route
            _ = try request.supported
            _ = try request.require
            _ = try request.proxyRequire
        } catch {
            accessorError = error
        }
        var validationError: MessageError?
        do {
            try request.validate()
        } catch {
            validationError = error
        }
        #expect(validationError?.status == accessorError?.status)
        #expect(validationError?.reasonPhrase == accessorError?.reasonPhrase)
    }

    @Test func aGoodRequestPasses() {
        #expect(status("OPTIONS sip:bob@example.com SIP/2.0", Self.base) == 0)
    }

    @Test(arguments: ["Via", "From", "To", "Call-ID", "CSeq"])
    func missingMandatoryHeader(_ name: String) {
        let headers = Self.base.filter { !$0.hasPrefix(name + ":") }
        #expect(status("OPTIONS sip:bob@example.com SIP/2.0", headers) == 400)
    }

    @Test func duplicatedSingleValuedHeader() {
        #expect(status("OPTIONS sip:bob@example.com SIP/2.0", Self.base + ["Call-ID: v-2"]) == 400)
        #expect(status("OPTIONS sip:bob@example.com SIP/2.0", Self.base + ["Max-Forwards: 5"]) == 400)
    }

    @Test func contentLengthDisagreements() {
        #expect(status("OPTIONS sip:bob@example.com SIP/2.0", Self.base + ["Content-Length: 10"], body: "abc") == 400)
        #expect(status("OPTIONS sip:bob@example.com SIP/2.0", Self.base + ["Content-Length: abc"]) == 400)
        #expect(
            status("OPTIONS sip:bob@example.com SIP/2.0", Self.base + ["Content-Length: 99999999999999999999"]) == 413)
        #expect(
            status(
                "OPTIONS sip:bob@example.com SIP/2.0", Self.base + ["Content-Length: 3", "Content-Type: text/plain"],
                body: "abcdef") == 0)
    }

    @Test func bodyWithoutContentType() {
        #expect(status("OPTIONS sip:bob@example.com SIP/2.0", Self.base + ["Content-Length: 3"], body: "abc") == 400)
    }

    @Test func overlargeScalars() {
        #expect(status("OPTIONS sip:bob@example.com SIP/2.0", Self.base + ["Expires: 4294967296"]) == 400)
        #expect(status("OPTIONS sip:bob@example.com SIP/2.0", Self.base + ["Expires: 4294967295"]) == 0)
    }

    @Test func versionsAndRequestLines() {
        #expect(status("OPTIONS sip:bob@example.com SIP/2.1", Self.base) == 505)
        #expect(status("OPTIONS sip:bob@example.com HTTP/1.1", Self.base) == 400)
        #expect(status("OPTIONS sip:bob@example.com", Self.base) == 400)
        #expect(status("OPTIONS sip:bob@example.com SIP/2.0 ", Self.base) == 400)
        #expect(status("OPTIONS  sip:bob@example.com SIP/2.0", Self.base) == 400)
        #expect(status("OPT IONS sip:bob@example.com SIP/2.0", Self.base) == 400)
        #expect(status("OPTIONS sip:bob@example.com sip/2.0", Self.base) == 0)
    }

    @Test func responsesAreDroppedNotAnswered() {
        let headers = Self.base.filter { !$0.hasPrefix("Max-Forwards") }
        #expect(status("SIP/2.0 200 OK", headers) == 0)
        #expect(status("SIP/2.0 200 OK", headers.filter { !$0.hasPrefix("Call-ID") }) == -1)
        #expect(status("SIP/2.0 700 Nope", headers) == -1)
        #expect(status("SIP/2.0 99 Low", headers) == -1)
        #expect(status("SIP/3.0 200 OK", headers) == -1)
        #expect(status("SIP/2.0 20 OK", headers) == -1)
    }

    @Test func capabilitiesAreOptional() {
        let uri = "OPTIONS mailto:bob@example.com SIP/2.0"
        #expect(status(uri, Self.base, capabilities: nil) == 0)
        #expect(status(uri, Self.base) == 416)
        var caps = Capabilities()
        caps.extensions = ["100rel"]
        #expect(status("OPTIONS sip:bob@example.com SIP/2.0", Self.base + ["Require: 100rel"], capabilities: caps) == 0)
        #expect(status("OPTIONS sip:bob@example.com SIP/2.0", Self.base + ["Require: 100rel"]) == 420)
        let ack = Self.base.map { $0 == "CSeq: 1 OPTIONS" ? "CSeq: 1 ACK" : $0 }
        #expect(status("ACK sip:bob@example.com SIP/2.0", ack + ["Require: 100rel"]) == 0)
    }

    @Test func tooManyHeaderFields() {
        let many = Self.base + (0..<300).map { "X-H\($0): v" }
        #expect(status("OPTIONS sip:bob@example.com SIP/2.0", many) == 400)
    }

    @Test func oversizedDatagramAndURI() throws {
        let big = [UInt8](repeating: 0x41, count: 70_000)
        #expect(throws: MessageError.self) { try Message(parsing: big) }
        do { _ = try Message(parsing: big) } catch { #expect(error.status == 513) }
        let longURI = "OPTIONS sip:" + String(repeating: "a", count: 9000) + "@example.com SIP/2.0"
        #expect(status(longURI, Self.base) == 414)
    }

    @Test func garbageNeverTraps() {
        let samples: [[UInt8]] = [
            [], [0x0D, 0x0A], Array("\r\n\r\n".utf8), [0xFF, 0xFE, 0x00], Array("SIP/".utf8), Array(":\r\n\r\n".utf8),
            Array("INVITE sip:x SIP/2.0\r\n \r\n\r\n".utf8), Array("INVITE sip:[ SIP/2.0\r\n\r\n".utf8),
            Array("SIP/2.0 200\r\n\r\n".utf8), Array("A B C\r\nVia:\r\n\r\n".utf8),
        ]
        for sample in samples {
            _ = try? Message(parsing: sample).validate(capabilities: Capabilities())
            var framer = StreamFramer()
            framer.append(sample)
            var budget = 100
            while budget > 0, let next = framer.next() {
                budget -= 1
                if case .needMore = next { break }
                if case .close = next { break }
            }
            #expect(budget > 0)
        }
    }
}
