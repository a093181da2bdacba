import Testing

@testable import SIPMessage

/// The fast readers of the usual Via, name-addr and SIP URI shapes (`Via.parseFast`, `NameAddress.parseFast`,
/// `SIPURI.fastLayout`) must give exactly what the general readers give, or step aside (`nil`) and leave the value
/// to them: on every value of the corpora, on hand-made near misses, and on each of those with one byte changed.
@Suite("Header fast paths")
struct HeaderFastPathTests {
    /// Values of the shapes the fast readers take, and the near misses each of them must leave alone.
    static let addresses = [
        "\"Alice Smith\" <sip:alice@example.com>;tag=1928301774", "<sip:bob@example.org>",
        "<sip:alice@192.0.2.10:5060;transport=udp>", "<sips:proxy.example.org;lr>", "<SIP:Bob@Example.ORG:5070>",
        "\"A\"<sip:a@b>", "\"A\"  <sip:a@b>;x", "\"A\" \t<sip:a@b>;tag=1;tag=2", "<sip:a@b>;tag", "<sip:a@b>;tag=",
        "<sip:a@b>;tag=\"q\"", "<sip:a@b> ;tag=1", "<sip:a@b>; tag=1", "<sip:a@b>;tag =1", "<sip:a@b>;tag= 1",
        "<sip:a@b>;tag=1 ", "<sip:a@b>;tag=1,<sip:c@d>", "<sip:a@b>;;tag=1", "<sip:a@b>;tag=1;", "<sip:a%41@b>",
        "<sip:a:pw@b>", "<sip:@b>", "<sip:a@b@c>", "<sip:a@[2001:db8::1]:5060>", "<sip:a@b?subject=x>",
        "<sip:a@b;p=%41>", "<sip:a@b;p=>", "<sip:a@b;=1>", "<sip:a@b:>", "<sip:a@b:123456>", "<sip:a@b:65536>",
        "<sip:a@b:0065535>", "<sip:a@-b->", "<sip:a@1.2.3.4.5>", "<sip:a@1.2.3>", "<sip:a@b..c>", "<sip:a@b.>",
        "<sip:b;lr>", "<sip:b;maddr=1.2.3.4>", "<sip:>", "<sip:a@b", "<tel:+1-201-555-0123>", "<urn:x:y>",
        "sip:a@b;tag=1", "Bob <sip:b@c>", "\"A\\\"B\" <sip:a@b>", "\"A\r\n B\" <sip:a@b>", "\"A\"\r\n <sip:a@b>",
        "\"unterminated <sip:a@b>", "<sip:a@b>;x=[2001:db8::1]", "<sip:a@b>;x=a:b", "<sip:a@b>;x/y",
        "<sip:a@b>;+sip.instance=\"<urn:uuid:1>\"", "<sip:a b@c>", "<sip:a@b c>", " <sip:a@b>",
        // No user: the search for an '@' stops at the '>' (not at one in the parameters after it).
        "<sip:b>;tag=1", "<sip:b:5060;lr>;x=\"a@b\"", "<sip:b>;x=a@b", "<sip:b>>", "<sip:b>x@y>", "<sip:[::1]>",
        "<sip:[::1]>;x=]", "<sip:a@b;lr>;tag=1>", "<sips:b>",
        // Token display names and bare addr-specs, as sipp and many phones write them.
        "sipp <sip:sipp@127.0.0.1:5061>;tag=4242SIPpTag001", "sut <sip:service@127.0.0.1:5060>",
        "sip:sipp@127.0.0.1:5061", "Bob  Jones\t<sip:b@c>", "a.b-c! <sip:x@y>", "sip:a@b;tag=1,sip:c@d",
        "sip:a@b?x=y", "sip:a@b ;tag=1", "tel:+1234;tag=1", "sips:b:5061;x", "sip:a@[::1]:5060;tag=1", "sip:a@b,",
        "Bob <sip:b@c> ;tag=1", "Bob\r\n <sip:b@c>", "Bob sip:b@c", "sip:a@b;tag=\"q\"", "sip:a@b:99999",
    ]

    static let vias = [
        "SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bK776asdhds-1a2b3c;rport",
        "SIP/2.0/UDP 192.0.2.10:5060;received=192.0.2.10;branch=z9hG4bK776;rport=5060", "SIP/2.0/TCP host.example.com",
        "SIP/2.0/TLS [2001:db8::1]:5061;branch=z9hG4bKx", "SIP / 2.0 / UDP h;branch=z9hG4bKx", "SIP/2.0/UDP  h",
        "SIP/2.0/UDP\th", "SIP/2.0/UDPh", "SIP/2.0/UDP h :5060", "SIP/2.0/UDP h: 5060", "SIP/2.0/UDP h:",
        "SIP/2.0/UDP h:65536", "SIP/2.0/UDP h:0000000000000000000005060", "SIP/2.0/UDP h;branch",
        "SIP/2.0/UDP h;branch=",
        "SIP/2.0/UDP h;branch=\"x\"", "SIP/2.0/UDP h;rport=x", "SIP/2.0/UDP h;rport=70000", "SIP/2.0/UDP h;ttl=300",
        "SIP/2.0/UDP h;ttl", "SIP/2.0/UDP h;ttl=1;maddr=224.2.0.1", "SIP/2.0/UDP h;branch=a;branch=b",
        "SIP/2.0/UDP h ;branch=a", "SIP/2.0/UDP h;branch=a ,SIP/2.0/UDP g", "SIP/2.0/UDP h;branch=a,SIP/2.0/UDP g",
        "SIP/2.0/UDP h;received=[2001:db8::1]", "SIP/2.0/", "SIP/2.0/UDP", "SIP/2.0/UDP ", "/2.0/UDP h", "SIP//UDP h",
        "SIP/2.0/UDP 1.2.3.4.5", "SIP/2.0/UDP -h", "SIP/2.0/UDP h;x=\"a b\";y",
    ]

    static let uris = [
        "sip:bob@example.org", "sips:bob@example.org:5061", "SIP:bob@EXAMPLE.org", "sip:example.org", "sip:1.2.3.4",
        "sip:1.2.3.4:5060;transport=tcp;lr", "sip:a@b;user=phone;lr", "sip:a@b?h=v", "sip:a@b;p=%41", "sip:a%20b@c",
        "sip:a:b@c", "sip:a:@c", "sip:@c", "sip:a@b@c", "sip:a@", "sip:", "sip:a@b:", "sip:a@b:99999",
        "sip:a@[::1]", "sip:a@b;", "sip:a@b;=", "sip:a@b;x=", "sip:a@b;x=y=z", "sips:a", "sipx:a@b", "tel:+12015550123",
        "sip:a@b c", "sip:a@b\u{7F}", "sip:user;par=1@host", "sip:alice;day=tuesday@atlanta.com",
    ]

    /// Each value, and each value with one byte replaced by one of these or removed.
    static let replacements: [UInt8] = Array(" \t\r\n\"<>;,=:@%[]?\\/a0-.".utf8)

    static func variants(_ values: [String]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for value in values {
            let bytes = Array(value.utf8)
            out.append(bytes)
            for i in bytes.indices {
                var removed = bytes
                removed.remove(at: i)
                out.append(removed)
                for b in replacements where b != bytes[i] {
                    var changed = bytes
                    changed[i] = b
                    out.append(changed)
                }
            }
        }
        return out
    }

    /// The values of `header` in every message of the corpora that parses.
    static func corpusValues(_ header: KnownHeader) -> [[UInt8]] {
        var paths = TestData.files(in: "bench", suffix: ".sip").map { "bench/\($0)" }
        paths += TestData.files(in: "rfc4475", suffix: ".dat").map { "rfc4475/\($0)" }
        var out: [[UInt8]] = []
        for path in paths {
            guard let message = try? Message(parsing: TestData.bytes(path)) else { continue }
            let fields = message.headerFields
            for entry in fields.entries where entry.id == header.rawValue {
                out.append(Array(fields.storage[entry.valueRange]))
            }
        }
        return out
    }

    /// Runs `fast` and `general` on `value` as the typed views do (after leading white space); returns whether the
    /// fast reader took it. Fails when the fast reader takes a value the general one rejects or reads differently.
    static func compare<T>(
        _ value: [UInt8], fast: (inout ByteScanner) -> T?,
        general: (inout ByteScanner) throws(MessageError) -> T
    ) -> Bool {
        let took = try? ByteScanner.scan(value, 0..<value.count) { (scanner) throws(MessageError) -> Bool in
            scanner.skipLWS()
            var fastScanner = scanner
            guard let quick = fast(&fastScanner) else {
                #expect(
                    fastScanner.index == scanner.index,
                    "moved without a result: \(String(decoding: value, as: UTF8.self))")
                return false
            }
            var slowScanner = scanner
            let text = String(decoding: value, as: UTF8.self)
            guard let slow = try? general(&slowScanner) else {
                Issue.record("the fast reader took what the general one rejects: \(text)")
                return true
            }
            var a = ""
            var b = ""
            dump(quick, to: &a)
            dump(slow, to: &b)
            #expect(a == b, "different values for \(text)")
            #expect(fastScanner.index == slowScanner.index, "different ends for \(text)")
            return true
        }
        return took ?? false
    }

    @Test func addressesReadAsTheGeneralReaderReadsThem() {
        var taken = 0
        let values =
            Self.variants(Self.addresses) + Self.corpusValues(.from) + Self.corpusValues(.to)
            + Self.corpusValues(.contact) + Self.corpusValues(.recordRoute) + Self.corpusValues(.route)
        for value in values {
            let took = Self.compare(
                value, fast: { NameAddress.parseFast(&$0) },
                general: { (scanner) throws(MessageError) in try NameAddress.parseGeneral(&scanner, field: .from) })
            if took { taken += 1 }
        }
        // The usual shapes do take the fast path, so the comparison means something.
        #expect(taken > values.count / 10)
    }

    @Test func viasReadAsTheGeneralReaderReadsThem() {
        var taken = 0
        let values = Self.variants(Self.vias) + Self.corpusValues(.via)
        for value in values {
            let took = Self.compare(
                value, fast: { Via.parseFast(&$0) },
                general: { (scanner) throws(MessageError) in try Via.parseGeneral(&scanner, field: .via) })
            if took { taken += 1 }
        }
        #expect(taken > values.count / 10)
    }

    @Test func sipURIsReadAsTheGeneralReaderReadsThem() {
        var taken = 0
        let values = Self.variants(Self.uris)
        for value in values {
            let took = Self.compare(
                value,
                fast: { (scanner) -> SIPURILayout? in
                    guard
                        let layout = SIPURI.fastLayout(
                            scanner.bytes, owner: scanner.ownerPointer, scanner.index, scanner.end)
                    else { return nil }
                    scanner.index = scanner.end
                    return layout
                },
                general: { (scanner) throws(MessageError) -> SIPURILayout in
                    guard let layout = try URI.parseSIPLayoutGeneral(&scanner) else {
                        throw .malformedURI("not a SIP URI")
                    }
                    return layout
                })
            if took { taken += 1 }
        }
        #expect(taken > values.count / 10)
    }

    static let cseqs = [
        "314159 INVITE", "1 ACK", "0000000001 BYE", "2147483647 X-EXT", "2147483648 INVITE", "4294967296 INVITE",
        "12345678901 INVITE", "1  INVITE", "1\tINVITE", "1 INVITE ", "1 INV@ITE", "1", "1 ", " 1 INVITE", "1 INVITE,",
        "1 \r\n INVITE", "-1 INVITE", "1 INVITE extra", "01 OPTIONS",
    ]

    static let callIDs = [
        "a84b4c76e66710-3f9a2c1d@192.0.2.10", "843817637684230@998sdasdh09", "abc", "a@", "@b", "a@b@c", "a b",
        "a@b c", "a\"b", "a<b>@c", "a/b:c?d{e}@[f]", "a%b", "a@b ", "a,b",
    ]

    @Test func cseqsReadAsTheGeneralReaderReadsThem() {
        var taken = 0
        let values = Self.variants(Self.cseqs) + Self.corpusValues(.cseq)
        for value in values {
            let took = Self.compare(
                value, fast: { CSeq.parseFast(&$0) },
                general: { (scanner) throws(MessageError) in try CSeq.parse(&scanner, field: .cseq) })
            if took { taken += 1 }
        }
        #expect(taken > values.count / 10)
    }

    @Test func callIDsReadAsTheGeneralReaderReadsThem() {
        var taken = 0
        let values = Self.variants(Self.callIDs) + Self.corpusValues(.callID)
        for value in values {
            let took = Self.compare(
                value, fast: { CallIDValue.parseFast(&$0) },
                general: { (scanner) throws(MessageError) in try CallIDValue.parse(&scanner, field: .callID) })
            if took { taken += 1 }
        }
        #expect(taken > values.count / 10)
    }

    /// The typed views that try the fast readers first (top Via, From, To, first Contact, CSeq, Call-ID) give what
    /// the general readers alone give, values and errors, whatever the value's shape and wherever it ends.
    @Test func hotViewsGiveWhatTheGeneralReadersGive() throws {
        var messages: [Message] = []
        var paths = TestData.files(in: "bench", suffix: ".sip").map { "bench/\($0)" }
        paths += TestData.files(in: "rfc4475", suffix: ".dat").map { "rfc4475/\($0)" }
        for path in paths { if let message = try? Message(parsing: TestData.bytes(path)) { messages.append(message) } }
        let groups: [([String], [String])] = [
            (Self.vias, ["Via", "v"]), (Self.addresses, ["From", "To", "Contact", "f", "t", "m"]),
            (Self.cseqs, ["CSeq"]), (Self.callIDs, ["Call-ID", "i"]),
        ]
        func add(_ name: String, _ value: [UInt8], tails: [String]) {
            let head = Array("OPTIONS sip:a@b SIP/2.0\r\n\(name): ".utf8) + value
            for tail in tails {
                if let message = try? Message(parsing: head + Array(tail.utf8)) { messages.append(message) }
            }
        }
        for (values, names) in groups {
            // Every value under every name, ending the line, followed by another value, or by white space.
            for value in values {
                for name in names {
                    add(
                        name, Array(value.utf8),
                        tails: ["\r\nContent-Length: 0\r\n\r\n", ", <sip:x@y>\r\n\r\n", " \r\n\r\n"])
                }
            }
            // The usual shape with every byte changed or removed.
            for value in Self.variants([values[0]]) { add(names[0], value, tails: ["\r\n\r\n"]) }
        }
        #expect(messages.count > 3_000)
        for message in messages {
            let mismatch = message.headerFields.hotViewMismatch()
            #expect(mismatch == nil, "\(mismatch ?? "")")
        }
        // Fields built through the API keep the white space they were given: the general readers read them.
        var fields = SIPFields()
        fields.append(name: .via, value: " SIP/2.0/UDP h;branch=z9hG4bK1 ")
        fields.append(name: .from, value: "<sip:a@b>;tag=1 ")
        fields.append(name: .cseq, value: "1 INVITE ")
        fields.append(name: .callID, value: " x@y")
        fields.append(name: .contact, value: "* ")
        #expect(fields.hotViewMismatch() == nil)
        #expect(try fields.topVia?.branch == "z9hG4bK1")
        #expect(try fields.cseq == CSeq(1, .invite))
    }

    /// Fields holding `value` under `name`, or `nil` when the message does not parse.
    static func fields(_ name: String, _ value: [UInt8]) -> SIPFields? {
        let bytes = Array("INVITE sip:a@b SIP/2.0\r\n\(name): ".utf8) + value + Array("\r\n\r\n".utf8)
        return (try? Message(parsing: bytes))?.headerFields
    }

    /// `cseqNumber` and `cseqNumber(ifMethodIs:)`, which make no method, give the number, `nil` or error of the
    /// full CSeq parse (and its method compared), on near misses and on each of them with one byte changed.
    @Test func cseqNumberReadersGiveWhatTheFullParseGives() {
        var read = 0
        for value in Self.cseqs.map({ Array($0.utf8) }) + Self.variants(Self.cseqs) {
            guard let fields = Self.fields("CSeq", value) else { continue }
            let full = Result { () throws(MessageError) in try fields.parseSingle(.cseq, as: CSeq.self) }
            let number = Result { () throws(MessageError) in try fields.cseqNumber }
            #expect(number == full.map { $0?.sequenceNumber }, "\(String(decoding: value, as: UTF8.self))")
            for method: SIPMethod in [.invite, .ack, .bye, "X-EXT", "invite", "INVITEX", "INVIT"] {
                let matching = Result { () throws(MessageError) in try fields.cseqNumber(ifMethodIs: method) }
                let expected = full.map { $0?.method == method ? $0?.sequenceNumber : nil }
                #expect(matching == expected, "\(String(decoding: value, as: UTF8.self)) \(method)")
            }
            if case .success(.some) = number { read += 1 }
        }
        #expect(read > 100)
    }

    /// `firstContactURI`, which makes no address, gives the URI (value and wire form), `nil` or error of the full
    /// Contact parse, on the address near misses, `*`, a list, and each of them with one byte changed.
    @Test func firstContactURIGivesWhatTheFullParseGives() {
        var read = 0
        let values =
            (Self.addresses + ["*", "<sip:a@b>, <sip:c@d>"]).map { Array($0.utf8) } + Self.variants(Self.addresses)
        for value in values {
            guard let fields = Self.fields("Contact", value) else { continue }
            let full = Result { () throws(MessageError) in try fields.parseFirst(.contact, as: Contact.self)?.uri }
            let uri = Result { () throws(MessageError) in try fields.firstContactURI }
            let text = String(decoding: value, as: UTF8.self)
            #expect(uri == full, "\(text)")
            #expect((try? uri.get())??.description == (try? full.get())??.description, "\(text)")
            if case .success(.some) = uri { read += 1 }
        }
        #expect(read > 100)
    }

    @Test func benchInviteReadsItsValues() throws {
        // The values of a whole message, read through the public views (the fast readers take all of them).
        let message = try Message(parsing: TestData.bench("01_invite.sip"))
        let via = try #require(try message.headerFields.topVia)
        #expect(via.host.text == "192.0.2.10" && via.port == 5060 && via.branch == "z9hG4bK776asdhds-1a2b3c")
        #expect(via.rport == .requested && via.transport == "UDP")
        let from = try #require(try message.headerFields.from)
        #expect(from.displayName == "Alice Smith" && from.tag == "1928301774")
        #expect(from.uri.sipURI?.user == "alice" && from.uri.sipURI?.host.text == "example.com")
        let contact = try #require(try message.headerFields.firstContact?.nameAddress)
        #expect(contact.uri.sipURI?.port == 5060 && contact.uri.sipURI?.transport == "udp")
    }
}
