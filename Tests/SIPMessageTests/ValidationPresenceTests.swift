import SIPMessage
import Testing

/// Validation finds which headers are present in one pass and parses only those: it must still name a
/// missing mandatory header, a repeated single-valued one and a malformed optional one, first fault first.
@Suite struct ValidationPresenceTests {
    static let mandatory = [
        "Via: SIP/2.0/UDP pc33.atlanta.example.com;branch=z9hG4bK776asdhds",
        "From: Alice <sip:alice@atlanta.example.com>;tag=1928301774",
        "To: Bob <sip:bob@biloxi.example.com>",
        "Call-ID: a84b4c76e66710@pc33.atlanta.example.com",
        "CSeq: 314159 INVITE",
    ]

    static func request(_ lines: [String]) throws -> SIPRequest {
        let text =
            "INVITE sip:bob@biloxi.example.com SIP/2.0\r\n" + lines.map { $0 + "\r\n" }.joined()
            + "Content-Length: 0\r\n\r\n"
        return try SIPRequest(parsing: Array(text.utf8))
    }

    static func fault(_ lines: [String]) throws -> MessageError? {
        let request = try request(lines)
        do {
            try request.validate()
            return nil
        } catch {
            return error
        }
    }

    @Test func aPlainRequestPasses() throws {
        #expect(try Self.fault(Self.mandatory + ["Max-Forwards: 70", "Contact: <sip:alice@pc33.example.com>"]) == nil)
    }

    @Test(arguments: 0..<5)
    func eachMissingMandatoryHeaderIsNamed(index: Int) throws {
        var lines = Self.mandatory
        let name = String(lines.remove(at: index).prefix { $0 != ":" })
        let fault = try #require(try Self.fault(lines))
        #expect(fault.code == .missingHeader)
        #expect(fault.status == 400)
        #expect(fault.reasonPhrase == "Missing \(name) header")
    }

    @Test(arguments: [
        ("Max-Forwards: 70", "Max-Forwards"), ("Expires: 60", "Expires"), ("Min-Expires: 60", "Min-Expires"),
        ("RSeq: 1", "RSeq"), ("Session-Expires: 1800", "Session-Expires"), ("Min-SE: 90", "Min-SE"),
        ("Event: presence", "Event"), ("Content-Type: application/sdp", "Content-Type"),
        ("Replaces: a@b;from-tag=1;to-tag=2", "Replaces"),
    ])
    func aRepeatedSingleValuedHeaderIsNamed(line: String, name: String) throws {
        let fault = try #require(try Self.fault(Self.mandatory + [line, line]))
        #expect(fault.code == .multipleValues)
        #expect(fault.status == 400)
        #expect(fault.reasonPhrase == "Multiple \(name) header fields")
    }

    /// Compact forms count as their long names: `i` and `Call-ID` are the same header twice.
    @Test func compactFormsCountAsTheSameHeader() throws {
        let fault = try #require(try Self.fault(Self.mandatory + ["i: other@example.com"]))
        #expect(fault.code == .multipleValues)
        #expect(fault.reasonPhrase == "Multiple Call-ID header fields")
    }

    /// A missing mandatory header is named before a repeated one, and the first repeated one in the order
    /// of the single-valued list (Call-ID before CSeq before Max-Forwards).
    @Test func faultsComeInTheirOrder() throws {
        var lines = Self.mandatory + ["Max-Forwards: 70", "Max-Forwards: 70", "CSeq: 1 INVITE"]
        #expect(try Self.fault(lines)?.reasonPhrase == "Multiple CSeq header fields")
        lines.remove(at: 0)
        #expect(try Self.fault(lines)?.reasonPhrase == "Missing Via header")
    }

    @Test(arguments: [
        "Max-Forwards: 300", "Expires: soon", "Min-Expires: -1", "RSeq: x", "RAck: 1", "Session-Expires: ;refresher",
        "Min-SE: many", "Contact: <sip:a@b", "Route: nothing", "Record-Route: <>", "Content-Type: sdp",
        "Require: a b", "Supported: a b", "Proxy-Require: a b", "Event: ;id=1", "Subscription-State: ;expires=1",
        "Refer-To: <sip:a@b", "Replaces: ;from-tag=1",
    ])
    func aMalformedOptionalHeaderIsRefused(line: String) throws {
        #expect(try Self.request(Self.mandatory).headerFields.count == 6)
        let fault = try #require(try Self.fault(Self.mandatory + [line]))
        #expect(fault.status == 400, "\(line): \(fault)")
    }

    static func responseFault(_ lines: [String]) throws -> MessageError? {
        let text = "SIP/2.0 200 OK\r\n" + lines.map { $0 + "\r\n" }.joined() + "Content-Length: 0\r\n\r\n"
        let response = try SIPResponse(parsing: Array(text.utf8))
        do {
            try response.validate()
            return nil
        } catch {
            return error
        }
    }

    /// A UAC parses what it matches and routes a response by (RFC 3261 §8.1.3): a malformed From, Contact or
    /// Via below the top one no longer drops it, as it refuses a request; a malformed To, Call-ID or CSeq, a
    /// missing or repeated mandatory header still do.
    @Test func aResponseIsCheckedForWhatAUACReads() throws {
        let top = Self.mandatory[0]
        let rest = Array(Self.mandatory.dropFirst())
        let accepted: [[String]] = [
            [top, "From: <sip:alice@atlanta.example.com"] + rest.dropFirst(),
            Self.mandatory + ["Contact: <sip:a@b"],
            [top, "Via: SIP/2.0/UDP"] + rest,
        ]
        for lines in accepted {
            #expect(try Self.responseFault(lines) == nil, "\(lines)")
            #expect(try Self.fault(lines)?.status == 400, "\(lines)")
        }
        let dropped: [[String]] = [
            Self.mandatory.map { $0.hasPrefix("To:") ? "To: <sip:bob@biloxi.example.com" : $0 },
            Self.mandatory.map { $0.hasPrefix("CSeq:") ? "CSeq: many INVITE" : $0 },
            Array(Self.mandatory.dropFirst()),
            Self.mandatory + ["Call-ID: other@example.com"],
            Self.mandatory + ["Record-Route: <>"],
        ]
        for lines in dropped {
            let fault = try #require(try Self.responseFault(lines), "\(lines)")
            #expect(fault.status == nil, "\(lines): \(fault)")
        }
    }
}
