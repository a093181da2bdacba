import SIPMessage
import Testing

/// The typed accessors' fast paths (IPv4 hosts read in one pass, `sip:`/`sips:` recognised without reading the
/// scheme as a token, parameter names compared as one word, getters inlined into callers) must read exactly what
/// the general paths read.
@Suite("Accessor fast paths")
struct AccessorFastPathTests {
    static func request(_ headers: String) throws -> SIPRequest {
        try SIPRequest(
            parsing: Array(("OPTIONS sip:bob@example.org SIP/2.0\r\n" + headers + "Content-Length: 0\r\n\r\n").utf8))
    }

    @Test(
        arguments: [
            ("sip:a@192.0.2.10", SIPHost.Kind.ipv4, "192.0.2.10", nil),
            ("sip:a@192.0.2.10:5060", .ipv4, "192.0.2.10", 5060),
            ("sip:a@192.0.2.10;transport=udp", .ipv4, "192.0.2.10", nil),
            ("sip:a@0.0.0.0", .ipv4, "0.0.0.0", nil),
            ("sip:a@255.255.255.255:1", .ipv4, "255.255.255.255", 1),
        ] as [(String, SIPHost.Kind, String, UInt16?)])
    func ipv4Hosts(uri: String, kind: SIPHost.Kind, host: String, port: UInt16?) throws {
        let parsed = try SIPURI(uri)
        #expect(parsed.host.kind == kind)
        #expect(parsed.host.text == host)
        #expect(parsed.port == port)
    }

    @Test(arguments: [
        "sip:a@256.1.1.1", "sip:a@1.2.3", "sip:a@1.2.3.4.5", "sip:a@1.2.3.4.", "sip:a@1..2.3", "sip:a@0001.2.3.4",
        "sip:a@1.2.3.4-x", "sip:a@1.2.3.4a",
    ])
    func notIPv4(uri: String) {
        // None of these is an address, and none is a hostname (the top label starts with a digit).
        #expect(throws: MessageError.self) { try SIPURI(uri) }
    }

    @Test func hostnamesStartingWithDigits() throws {
        let uri = try SIPURI("sip:a@1.2.3.example:5070")
        #expect(uri.host.kind == .hostname)
        #expect(uri.host.text == "1.2.3.example")
        #expect(uri.port == 5070)
        let via = try Via("SIP/2.0/UDP 10.0.0.1.example.net;branch=z9hG4bKx")
        #expect(via.host.kind == .hostname)
        #expect(via.host.text == "10.0.0.1.example.net")
    }

    @Test func schemesInAnyCase() throws {
        let upper = try SIPURI("SIP:alice@Example.COM")
        #expect(!upper.isSecure)
        #expect(upper.escapedUser == "alice")
        #expect(upper.host.text == "Example.COM")
        #expect(upper.description == "SIP:alice@Example.COM")
        let secure = try SIPURI("SiPs:bob@example.org:5061")
        #expect(secure.isSecure)
        #expect(secure.port == 5061)
        // Schemes that begin like `sip` are other URIs.
        guard case .other(let other) = try URI("sipx:whatever") else {
            Issue.record("sipx: read as a SIP URI")
            return
        }
        #expect(other.scheme == "sipx")
        guard case .other = try URI("sipsx:whatever") else {
            Issue.record("sipsx: read as a SIP URI")
            return
        }
        #expect(throws: MessageError.self) { try SIPURI("si:alice@example.com") }
    }

    @Test func brokenEscapes() throws {
        #expect(try SIPURI("sip:%41lice@example.com").user == "Alice")
        #expect(throws: MessageError.self) { try SIPURI("sip:al%4@example.com") }
        #expect(throws: MessageError.self) { try SIPURI("sip:al%4") }
        #expect(throws: MessageError.self) { try SIPURI("sip:a@example.com;transport=u%d") }
    }

    @Test func parameterNamesInAnyCaseAndAtTheEnd() throws {
        // `branch` last in the value, so that fewer than 8 bytes follow the name's start.
        let atEnd = try Via("SIP/2.0/UDP h;BRANCH=z9hG4bK1")
        #expect(atEnd.branch == "z9hG4bK1")
        let flag = try Via("SIP/2.0/UDP h;rport;branch")
        #expect(flag.branch == nil)
        #expect(flag.rport == .requested)
        // Eight-byte names, and names that only share a prefix with `branch` or `tag`.
        let long = try Via("SIP/2.0/UDP h;received=192.0.2.1;branches=x;branch=y;rport=5060")
        #expect(long.received == "192.0.2.1")
        #expect(long.branch == "y")
        #expect(long.rport == .value(5060))
        #expect(throws: MessageError.self) { try Via("SIP/2.0/UDP h;RPort=x") }
        let address = try NameAddress("<sip:a@b>;tags=1;TAG=2")
        #expect(address.tag == "2")
        #expect(try NameAddress("<sip:a@b>;ta=1").tag == nil)
    }

    @Test func headersReadTwiceAndAfterAnEdit() throws {
        var request = try Self.request(
            "v: SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bK776asdhds-1a2b3c;rport\r\n"
                + "f: \"Alice\" <sip:alice@example.com>;tag=1928301774\r\n"
                + "t: <sip:bob@example.org>\r\n"
                + "i: a84b4c76e66710@192.0.2.10\r\n"
                + "CSeq: 314159 OPTIONS\r\n"
                + "m: <sip:alice@192.0.2.10:5070;transport=udp>;expires=60\r\n")
        for _ in 0..<2 {
            let via = try #require(try request.topVia)
            #expect(via.host.text == "192.0.2.10")
            #expect(via.host.kind == .ipv4)
            #expect(via.port == 5060)
            #expect(via.branch == "z9hG4bK776asdhds-1a2b3c")
            let from = try #require(try request.from)
            #expect(from.tag == "1928301774")
            #expect(from.uri.sipURI?.escapedUser == "alice")
            #expect(from.uri.sipURI?.host.text == "example.com")
            let to = try #require(try request.to)
            #expect(to.tag == nil)
            #expect(to.uri.sipURI?.escapedUser == "bob")
            #expect(try request.callID == "a84b4c76e66710@192.0.2.10")
            #expect(try request.cseq == CSeq(314159, .options))
            let contact = try #require(try request.firstContact?.uri?.sipURI)
            #expect(contact.host.text == "192.0.2.10")
            #expect(contact.port == 5070)
        }

        // Edits of the values, then of the fields: each read sees the new bytes.
        var via = try #require(try request.topVia)
        via.branch = "z9hG4bKnew"
        via.host = try #require(SIPHost("proxy.example.net"))
        via.port = nil
        #expect(via.branch == "z9hG4bKnew")
        #expect(via.host.text == "proxy.example.net")
        #expect(via.port == nil)
        var to = try #require(try request.to)
        to.tag = "a6c85cf-99887766"
        #expect(to.tag == "a6c85cf-99887766")
        var uri = try #require(to.uri.sipURI)
        uri.user = "carol"
        uri.host = try #require(SIPHost("198.51.100.7"))
        uri.port = 5080
        to.uri = .sip(uri)
        #expect(to.uri.sipURI?.escapedUser == "carol")
        #expect(to.uri.sipURI?.host.kind == .ipv4)
        #expect(to.tag == "a6c85cf-99887766")

        request.headerFields.set(.via, via)
        request.headerFields.set(.to, to)
        let reread = try #require(try request.topVia)
        #expect(reread.branch == "z9hG4bKnew")
        #expect(reread.host.text == "proxy.example.net")
        #expect(reread.port == nil)
        let rereadTo = try #require(try request.to)
        #expect(rereadTo.tag == "a6c85cf-99887766")
        #expect(rereadTo.uri.sipURI?.port == 5080)
        #expect(rereadTo.uri.sipURI?.host.text == "198.51.100.7")
    }

    @Test func shortValuesOfEveryLength() throws {
        // Values of up to 15 bytes are copied into small strings with overlapping word moves.
        let letters = Array("abcdefghijklmnopqrstuvwxyz".utf8)
        for length in 1...20 {
            let text = String(decoding: letters[0..<length], as: UTF8.self)
            let address = try NameAddress("<sip:\(text)@\(text).example>;tag=\(text)")
            #expect(address.tag == text)
            #expect(address.uri.sipURI?.escapedUser == text)
            #expect(address.uri.sipURI?.host.text == "\(text).example")
            let via = try Via("SIP/2.0/UDP \(text).example;branch=\(text)")
            #expect(via.branch == text)
        }
        #expect(try NameAddress("<sip:a@b>;tag=\"\"").tag == "\"\"")
    }

    @Test func builtValuesReadThroughTheSameGetters() throws {
        let host = try #require(SIPHost("192.0.2.1"))
        let via = Via(transport: "TCP", host: host, port: 5061, branch: "z9hG4bKbuilt")
        #expect(via.branch == "z9hG4bKbuilt")
        #expect(via.host.text == "192.0.2.1")
        #expect(via.port == 5061)
        var address = NameAddress(
            uri: SIPURI(user: "bob", host: host, port: 5062), parameters: [Parameter("tag", "t1")])
        #expect(address.tag == "t1")
        address.tag = nil
        #expect(address.tag == nil)
        #expect(address.uri.sipURI?.user == "bob")
        #expect(address.uri.sipURI?.port == 5062)
    }
}
