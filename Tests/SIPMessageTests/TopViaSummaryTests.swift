import SIPMessage
import Testing

/// `topViaSummary` must agree with the full `topVia` parse on every message: a summary exactly when `topVia`
/// returns a Via, with the same branch, host, host kind, port, transport, received and rport.
@Suite("Top Via summary")
struct TopViaSummaryTests {
    /// Checks the fast read against the full parse; returns the summary.
    @discardableResult
    static func expectAgreement(
        _ fields: SIPFields, _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> TopViaSummary? {
        let full = try? fields.topVia
        let summary = fields.topViaSummary
        #expect((summary == nil) == (full == nil), "\(label)", sourceLocation: sourceLocation)
        if let full, let summary {
            #expect(summary.branch == full.branch, "\(label)", sourceLocation: sourceLocation)
            #expect(summary.hasMagicCookie == full.hasMagicCookie, "\(label)", sourceLocation: sourceLocation)
            #expect(summary.host == full.host.text, "\(label)", sourceLocation: sourceLocation)
            #expect(summary.hostKind == full.host.kind, "\(label)", sourceLocation: sourceLocation)
            #expect(summary.port == full.port, "\(label)", sourceLocation: sourceLocation)
            #expect(summary.transport == full.transport, "\(label)", sourceLocation: sourceLocation)
            #expect(summary.received == full.received, "\(label)", sourceLocation: sourceLocation)
            #expect(summary.hasReceived == (full.parameters.first(named: "received") != nil), "\(label)")
            #expect(summary.rport == full.rport, "\(label)", sourceLocation: sourceLocation)
        }
        return summary
    }

    /// The fields of a request parsed from the wire with these Via header lines (folds and all).
    static func fields(viaLines: [String]) -> SIPFields? {
        var text = "OPTIONS sip:bob@example.com SIP/2.0\r\n"
        for line in viaLines { text += line + "\r\n" }
        text += "Call-ID: a@b\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n"
        return (try? SIPRequest(parsing: Array(text.utf8)))?.headerFields
    }

    static func summary(_ value: String) -> TopViaSummary? {
        guard let fields = fields(viaLines: ["Via: " + value]) else {
            Issue.record("did not parse: \(value)")
            return nil
        }
        return expectAgreement(fields, value)
    }

    @Test("every RFC 4475 torture message")
    func tortureCorpus() {
        var compared = 0
        for file in TestData.files(in: "rfc4475", suffix: ".dat") {
            guard let message = try? Message(parsing: TestData.bytes("rfc4475/\(file)")) else { continue }
            Self.expectAgreement(message.headerFields, file)
            // Every Via line on its own as well, so that each value is read as a top Via once.
            for (index, field) in message.headerFields.enumerated() where field.name == .via {
                var fields = SIPFields()
                fields.append(field)
                Self.expectAgreement(fields, "\(file) Via #\(index)")
            }
            compared += 1
        }
        #expect(compared > 30)
    }

    @Test("every bench corpus message")
    func benchCorpus() throws {
        let files = TestData.files(in: "bench", suffix: ".sip")
        #expect(!files.isEmpty)
        for file in files {
            let message = try Message(parsing: TestData.bench(file))
            let summary = Self.expectAgreement(message.headerFields, file)
            #expect(summary?.hasMagicCookie == true, "\(file)")
        }
    }

    @Test func commonShape() throws {
        let via = try #require(Self.summary("SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bK776asdhds;rport"))
        #expect(via.branch == "z9hG4bK776asdhds")
        #expect(via.hasMagicCookie)
        #expect(via.host == "192.0.2.10")
        #expect(via.hostKind == .ipv4)
        #expect(via.port == 5060)
    }

    @Test func compactFormAndSeveralLines() throws {
        let fields = try #require(
            Self.fields(viaLines: [
                "v: SIP/2.0/TCP first.example.com;branch=z9hG4bKfirst",
                "Via: SIP/2.0/UDP second.example.com;branch=z9hG4bKsecond",
            ]))
        let via = try #require(Self.expectAgreement(fields, "compact"))
        #expect(via.host == "first.example.com")
        #expect(via.hostKind == .hostname)
        #expect(via.port == nil)
        #expect(via.branch == "z9hG4bKfirst")
    }

    @Test func firstOfSeveralValues() throws {
        let via = try #require(
            Self.summary("SIP/2.0/UDP a.example.com:5070;branch=z9hG4bKa , SIP/2.0/UDP b.example.com;branch=z9hG4bKb"))
        #expect(via.host == "a.example.com")
        #expect(via.port == 5070)
        #expect(via.branch == "z9hG4bKa")
        let tight = try #require(Self.summary("SIP/2.0/UDP a.example.com;branch=z9hG4bKa,SIP/2.0/UDP b.example.com"))
        #expect(tight.branch == "z9hG4bKa")
    }

    @Test func ipv6References() throws {
        let loopback = try #require(Self.summary("SIP/2.0/UDP [::1]:5060;branch=z9hG4bK6"))
        #expect(loopback.host == "::1")
        #expect(loopback.hostKind == .ipv6)
        #expect(loopback.port == 5060)
        let noPort = try #require(Self.summary("SIP/2.0/TLS [2001:db8::9:1];branch=z9hG4bK6"))
        #expect(noPort.host == "2001:db8::9:1")
        #expect(noPort.port == nil)
    }

    @Test func transportReceivedAndRport() throws {
        let plain = try #require(Self.summary("SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKa"))
        #expect(plain.transport == "UDP")
        #expect(plain.received == nil && !plain.hasReceived)
        #expect(plain.rport == nil)
        let requested = try #require(Self.summary("SIP/2.0/tcp host.example.com;RPORT;branch=z9hG4bKb"))
        #expect(requested.transport == "tcp")
        #expect(requested.rport == .requested)
        let stamped = try #require(
            Self.summary("SIP/2.0/UDP 10.0.0.1:5060;rport=40123;branch=z9hG4bKc;Received=203.0.113.9;received=x"))
        #expect(stamped.rport == .value(40123))
        #expect(stamped.received == "203.0.113.9")
        #expect(stamped.hasReceived)
        let flagged = try #require(Self.summary("SIP/2.0/UDP 10.0.0.1 ; received ; branch=z9hG4bKd"))
        #expect(flagged.received == nil && flagged.hasReceived)
        for value in [
            "SIP/2.0/UDP 10.0.0.1;rport=40123;branch=z9hG4bKc", "SIP / 2.0 / TLS [::1]:5061 ;rport = 7;received=\"q\"",
            "SIP/2.0/WSS h.example.com;received=192.0.2.4;rport",
        ] {
            Self.expectAgreement(try #require(Self.fields(viaLines: ["Via: " + value])), value)
        }
    }

    @Test func parameterNamesIgnoreCase() throws {
        let via = try #require(Self.summary("SIP/2.0/UDP host.example.com;BRANCH=z9hG4bKupper;RPort"))
        #expect(via.branch == "z9hG4bKupper")
        #expect(via.hasMagicCookie)
        let mixed = try #require(Self.summary("SIP/2.0/UDP host.example.com;Branch=Z9HG4BKnotTheCookie"))
        #expect(mixed.branch == "Z9HG4BKnotTheCookie")
        #expect(!mixed.hasMagicCookie)
    }

    @Test func branchAbsentOrWithoutCookie() throws {
        let none = try #require(Self.summary("SIP/2.0/UDP 192.0.2.1;received=192.0.2.2"))
        #expect(none.branch == nil)
        #expect(!none.hasMagicCookie)
        let flag = try #require(Self.summary("SIP/2.0/UDP 192.0.2.1;branch"))
        #expect(flag.branch == nil)
        let legacy = try #require(Self.summary("SIP/2.0/UDP 192.0.2.1;branch=1234"))
        #expect(legacy.branch == "1234")
        #expect(!legacy.hasMagicCookie)
        let bare = try #require(Self.summary("SIP/2.0/UDP 192.0.2.1;branch=z9hG4bK"))
        #expect(bare.hasMagicCookie)
        let first = try #require(Self.summary("SIP/2.0/UDP 192.0.2.1;branch=z9hG4bKone;branch=two"))
        #expect(first.branch == "z9hG4bKone")
    }

    @Test func whiteSpaceAndQuotedParameters() throws {
        let spaced = try #require(
            Self.summary("SIP / 2.0 / UDP   host.example.com : 5060 ; branch = z9hG4bKsp ; x=\"a;b,c\""))
        #expect(spaced.branch == "z9hG4bKsp")
        #expect(spaced.port == 5060)
        let folded = try #require(
            Self.fields(viaLines: ["Via: SIP/2.0/UDP host.example.com:5060\r\n  ;branch=z9hG4bKfold"]))
        #expect(Self.expectAgreement(folded, "folded")?.branch == "z9hG4bKfold")
    }

    @Test(
        "malformed values have no summary",
        arguments: [
            "SIP/2.0/UDP", "SIP/2.0 host.example.com", "SIP/2.0/UDP host.example.com:", "SIP/2.0/UDP host:99999",
            "SIP/2.0/UDP host;branch=\"z9hG4bK\"", "SIP/2.0/UDP host;branch=", "SIP/2.0/UDP host;rport=70000",
            "SIP/2.0/UDP host;ttl", "SIP/2.0/UDP host;ttl=256", "SIP/2.0/UDP -bad-.example.com", "SIP/2.0/UDP [::1",
            "SIP/2.0/UDP host;;branch=z9hG4bK1", "SIP/2.0/UDP host junk", "garbage", "SIP/2.0/UDP 1.2.3.4.5",
            "SIP/2.0/UDP host;ttl =1x",
        ])
    func malformed(_ value: String) {
        #expect(Self.summary(value) == nil)
    }

    /// Every one-byte replacement and insertion in a few Via values: the two readers must agree on all.
    @Test func mutationsAgree() {
        let seeds = [
            "SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bK776a;rport;ttl=5",
            "SIP/2.0/TCP Host-1.example.COM.;received=10.0.0.1;BRANCH=z9hG4bKx",
            "SIP/2.0/TLS [::1]:5061;branch=z9hG4bKy , SIP/2.0/UDP b",
        ]
        let alphabet = Array(" \t;=,:\"[]./aZ0-9\\".utf8)
        for seed in seeds {
            let bytes = Array(seed.utf8)
            for position in 0...bytes.count {
                for byte in alphabet {
                    var inserted = bytes
                    inserted.insert(byte, at: position)
                    check(inserted)
                    if position < bytes.count {
                        var replaced = bytes
                        replaced[position] = byte
                        check(replaced)
                    }
                }
            }
        }
        func check(_ value: [UInt8]) {
            var fields = SIPFields()
            fields.append(SIPField(name: .via, value: String(decoding: value, as: UTF8.self)))
            Self.expectAgreement(fields, String(decoding: value, as: UTF8.self))
        }
    }

    /// A summary read once serves another message only when its first Via field has the same bytes: a
    /// response that copied the request's Via; any other Via is read from its own bytes.
    @Test func reuseOnlyForTheSameViaBytes() throws {
        let request = try #require(Self.fields(viaLines: ["Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKa;rport=9"]))
        let known = try #require(request.topViaSummary)
        var copy = SIPFields()
        copy.append(SIPField(name: .via, value: "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKa;rport=9"))
        let reused = try #require(copy.topViaSummary(reusing: known))
        #expect(reused == known && reused.rport == .value(9))
        var other = SIPFields()
        other.append(SIPField(name: .via, value: "SIP/2.0/TCP 192.0.2.1:5070;branch=z9hG4bKa;rport=9"))
        let own = try #require(other.topViaSummary(reusing: known))
        #expect(own.port == 5070 && own.transport == "TCP")
        var longer = SIPFields()
        longer.append(SIPField(name: .via, value: "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKa;rport=90"))
        #expect(longer.topViaSummary(reusing: known)?.rport == .value(90))
        var malformed = SIPFields()
        malformed.append(SIPField(name: .via, value: "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKa;rport=99999"))
        #expect(malformed.topViaSummary(reusing: known) == nil)
        #expect(SIPFields().topViaSummary(reusing: known) == nil)
        #expect(copy.topViaSummary(reusing: nil) == known)
    }
}
