import Foundation
import SIPMessage
import Testing

/// Messages built from typed values must serialize to exactly the bytes in Data/golden (checked by hand
/// against RFC 3261 §7 and §25 when they were written).
@Suite("Golden messages built from typed values")
struct GoldenTests {
    static func host(_ text: String) -> SIPHost {
        guard let host = SIPHost(text) else { fatalError("bad host in test: \(text)") }
        return host
    }

    static func invite() -> SIPRequest {
        let alice = SIPURI(user: "alice", host: host("atlanta.example.com"))
        let bob = SIPURI(user: "bob", host: host("biloxi.example.com"))
        var request = SIPRequest(method: .invite, uri: .sip(bob))
        var via = Via(transport: "UDP", host: host("192.0.2.10"), port: 5060, branch: "z9hG4bK74bf9")
        via.rport = .requested
        request.headerFields.append(.via, via)
        request.headerFields.append(.maxForwards, 70)
        var from = NameAddress(displayName: "Alice", uri: alice)
        from.tag = "9fxced76sl"
        request.headerFields.append(.from, from)
        request.headerFields.append(.to, NameAddress(displayName: "Bob", uri: bob))
        request.headerFields.append(.callID, "3848276298220188511@atlanta.example.com")
        request.headerFields.append(.cseq, CSeq(31862, .invite))
        var contact = SIPURI(user: "alice", host: host("192.0.2.10"), port: 5060)
        contact.transport = "udp"
        request.headerFields.append(.contact, Contact.address(NameAddress(uri: contact)))
        request.headerFields.append(.allow, "INVITE, ACK, CANCEL, BYE, OPTIONS")
        request.headerFields.append(.contentType, MediaType.sdp)
        request.body = Array(
            "v=0\r\no=alice 2890844526 2890844526 IN IP4 192.0.2.10\r\ns=-\r\nc=IN IP4 192.0.2.10\r\nt=0 0\r\nm=audio 49170 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n"
                .utf8)
        return request
    }

    static func register() -> SIPRequest {
        let registrar = SIPURI(host: host("example.com"))
        let aor = SIPURI(user: "alice", host: host("example.com"))
        var request = SIPRequest(method: .register, uri: .sip(registrar))
        request.headerFields.append(
            .via,
            Via(transport: "TLS", host: host("2001:db8::10"), port: 5061, branch: "z9hG4bKnashds7"))
        request.headerFields.append(.maxForwards, 70)
        var from = NameAddress(uri: aor)
        from.tag = "456248"
        request.headerFields.append(.from, from)
        request.headerFields.append(.to, NameAddress(uri: aor))
        request.headerFields.append(.callID, "843817637684230@998sdasdh09")
        request.headerFields.append(.cseq, CSeq(1826, .register))
        var contact = NameAddress(uri: SIPURI(user: "alice", host: host("2001:db8::10"), port: 5061, isSecure: true))
        contact.parameters.setQuoted("+sip.instance", "<urn:uuid:00000000-0000-1000-8000-000A95A0E128>")
        contact.parameters["reg-id"] = "1"
        request.headerFields.append(.contact, Contact.address(contact))
        request.headerFields.append(.expires, 3600)
        var credentials = Credentials(scheme: "Digest")
        credentials.parameters.setQuoted("username", "alice")
        credentials.parameters.setQuoted("realm", "example.com")
        credentials.parameters.setQuoted("nonce", "ea9c8e88df84f1cec4341ae6cbe5a359")
        credentials.parameters.setQuoted("uri", "sip:example.com")
        credentials.parameters.setQuoted("response", "dfe56131d1958046689d83306477ecc")
        credentials.parameters.set("algorithm", to: "MD5")
        request.headerFields.append(.authorization, credentials)
        return request
    }

    static func ok() -> SIPResponse {
        var response = SIPResponse(statusCode: 200)
        var via = Via(transport: "UDP", host: host("192.0.2.10"), port: 5060, branch: "z9hG4bK74bf9")
        via.received = "203.0.113.7"
        via.rport = .value(40222)
        response.headerFields.append(.via, via)
        var to = NameAddress(displayName: "Bob", uri: SIPURI(user: "bob", host: host("biloxi.example.com")))
        to.tag = "8321234356"
        var from = NameAddress(displayName: "Alice", uri: SIPURI(user: "alice", host: host("atlanta.example.com")))
        from.tag = "9fxced76sl"
        response.headerFields.append(.from, from)
        response.headerFields.append(.to, to)
        response.headerFields.append(.callID, "3848276298220188511@atlanta.example.com")
        response.headerFields.append(.cseq, CSeq(31862, .invite))
        response.headerFields.append(.supported, "100rel, timer")
        response.headerFields.append(.sessionExpires, SessionExpires(deltaSeconds: 1800, refresher: .uac))
        response.headerFields.append(.reason, Reason(protocol: "SIP", cause: 200, text: "Call completed elsewhere"))
        return response
    }

    static let cases: [(String, [UInt8])] = [
        ("invite.sip", invite().serialized()),
        ("register.sip", register().serialized()),
        ("ok.sip", ok().serialized()),
    ]

    @Test("golden bytes", arguments: ["invite.sip", "register.sip", "ok.sip"])
    func matchesGolden(_ name: String) throws {
        let built = try #require(Self.cases.first { $0.0 == name }).1
        if ProcessInfo.processInfo.environment["SWITCHBOARD_WRITE_GOLDEN"] == "1" {
            try Data(built).write(to: TestData.directory.appendingPathComponent("golden/\(name)"))
        }
        let golden = TestData.bytes("golden/\(name)")
        #expect(built == golden, "\(String(decoding: built, as: UTF8.self))")
        // And what was written parses back to what was built.
        let parsed = try Message(parsing: golden)
        #expect(parsed.serialized() == golden)
    }

    @Test func builtValuesReadBack() throws {
        let register = try SIPRequest(parsing: Self.register().serialized())
        #expect(try register.topVia?.host.kind == .ipv6)
        #expect(try register.firstContact?.instanceID == "urn:uuid:00000000-0000-1000-8000-000A95A0E128")
        #expect(try register.authorization.first?.response == "dfe56131d1958046689d83306477ecc")
        #expect(try register.validate() == ())
        let ok = try SIPResponse(parsing: Self.ok().serialized())
        #expect(try ok.topVia?.rport == .value(40222))
        #expect(try ok.reason.first?.text == "Call completed elsewhere")
        #expect(ok.reasonPhrase == "OK")
    }
}
