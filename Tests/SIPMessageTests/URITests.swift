import SIPMessage
import Testing

@Suite("URIs")
struct URITests {
    @Test func sipURIComponents() throws {
        let uri = try SIPURI(
            "sip:alice:secret@atlanta.example.com:5070;transport=TCP;lr;maddr=239.255.255.1;ttl=15?subject=project%20x&priority=urgent"
        )
        #expect(uri.user == "alice")
        #expect(uri.password == "secret")
        #expect(uri.host.text == "atlanta.example.com")
        #expect(uri.host.kind == .hostname)
        #expect(uri.port == 5070)
        #expect(uri.transport == "tcp")
        #expect(uri.isLooseRouter)
        #expect(uri.maddr == "239.255.255.1")
        #expect(uri.ttl == 15)
        #expect(uri.headers == [Parameter("subject", "project%20x"), Parameter("priority", "urgent")])
        #expect(!uri.isSecure)
        #expect(
            uri.description
                == "sip:alice:secret@atlanta.example.com:5070;transport=TCP;lr;maddr=239.255.255.1;ttl=15?subject=project%20x&priority=urgent"
        )
    }

    @Test func hosts() throws {
        #expect(try SIPURI("sip:bob@192.0.2.4").host.kind == .ipv4)
        let v6 = try SIPURI("sips:[2001:db8::10]:5061")
        #expect(v6.host.kind == .ipv6)
        #expect(v6.host.text == "2001:db8::10")
        #expect(v6.isSecure)
        #expect(v6.port == 5061)
        #expect(v6.description == "sips:[2001:db8::10]:5061")
        #expect(try SIPURI("sip:[::ffff:192.0.2.1]").host.kind == .ipv6)
        #expect(SIPHost("::1")?.kind == .ipv6)
        #expect(SIPHost("[::1]")?.description == "[::1]")
        #expect(SIPHost("999.1.1.1") == nil)
        #expect(SIPHost("-bad.example") == nil)
        #expect(SIPHost("example.com.")?.kind == .hostname)
        #expect(SIPHost("2001:db8::1::2") == nil)
        #expect(throws: MessageError.self) { try SIPURI("sip:[2001:db8::1") }
        #expect(throws: MessageError.self) { try SIPURI("sip:alice@host:99999") }
    }

    @Test func telURIs() throws {
        guard case .tel(let global) = try URI("tel:+1-201-555-0123;ext=1234") else { throw Failure("not tel") }
        #expect(global.isGlobal)
        #expect(global.digits == "+12015550123")
        #expect(global.parameters["ext"] == "1234")
        guard case .tel(let local) = try URI("tel:7042;phone-context=example.com") else { throw Failure("not tel") }
        #expect(!local.isGlobal)
        #expect(local.phoneContext == "example.com")
        #expect(throws: MessageError.self) { try URI("tel:7042") }
        #expect(try URI("tel:+1(201)555-0123").isEquivalent(to: try URI("tel:+12015550123")))
        #expect(!(try URI("tel:+12015550123;ext=1").isEquivalent(to: try URI("tel:+12015550123"))))
        #expect(try URI("tel:+12015550123;a=1;b=2").isEquivalent(to: try URI("tel:+12015550123;B=2;a=1")))
    }

    @Test func otherSchemesStayOpaque() throws {
        let uri = try URI("urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6")
        #expect(uri == .other(AbsoluteURI(scheme: "urn", content: "uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6")))
        #expect(uri.description == "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6")
        #expect(throws: MessageError.self) { try URI("no scheme here") }
        #expect(throws: MessageError.self) { try URI("1sip:x") }
    }

    @Test func escaping() throws {
        var uri = SIPURI(user: "alice smith", host: try #require(SIPHost("example.com")))
        #expect(uri.description == "sip:alice%20smith@example.com")
        #expect(uri.user == "alice smith")
        uri.user = "a;b?c/d"
        #expect(uri.escapedUser == "a;b?c/d")
        uri.user = "a@b"
        #expect(uri.escapedUser == "a%40b")
        #expect(throws: MessageError.self) { try SIPURI("sip:a%4@example.com") }
        #expect(throws: MessageError.self) { try SIPURI("sip:a%zz@example.com") }
        // %00 is kept, not a terminator.
        #expect(try SIPURI("sip:%00x@example.com").user == "\u{00}x")
    }

    /// The examples of RFC 3261 §19.1.4.
    @Test(
        "equivalent URIs",
        arguments: [
            ("sip:%61lice@atlanta.com;transport=TCP", "sip:alice@AtLanTa.CoM;Transport=tcp"),
            ("sip:carol@chicago.com", "sip:carol@chicago.com;newparam=5"),
            ("sip:carol@chicago.com", "sip:carol@chicago.com;security=on"),
            ("sip:carol@chicago.com;newparam=5", "sip:carol@chicago.com;security=on"),
            (
                "sip:biloxi.com;transport=tcp;method=REGISTER?to=sip:bob%40biloxi.com",
                "sip:biloxi.com;method=REGISTER;transport=tcp?to=sip:bob%40biloxi.com"
            ),
            (
                "sip:alice@atlanta.com?subject=project%20x&priority=urgent",
                "sip:alice@atlanta.com?priority=urgent&subject=project%20x"
            ),
            ("sip:bob@[2001:db8::1]", "sip:bob@[2001:0db8:0:0:0:0:0:1]"),
        ])
    func equivalent(_ a: String, _ b: String) throws {
        #expect(try URI(a).isEquivalent(to: try URI(b)))
        #expect(try URI(b).isEquivalent(to: try URI(a)))
    }

    @Test(
        "non-equivalent URIs",
        arguments: [
            ("SIP:ALICE@AtLanTa.CoM;Transport=udp", "sip:alice@AtLanTa.CoM;Transport=UDP"),
            ("sip:bob@biloxi.com", "sip:bob@biloxi.com:5060"),
            ("sip:bob@biloxi.com", "sip:bob@biloxi.com;transport=udp"),
            ("sip:bob@biloxi.com", "sip:bob@biloxi.com:6000;transport=tcp"),
            ("sip:carol@chicago.com", "sip:carol@chicago.com?Subject=next%20meeting"),
            ("sip:bob@phone21.boxesbybob.com", "sip:bob@192.0.2.4"),
            ("sip:alice@atlanta.com", "sips:alice@atlanta.com"),
            ("sip:alice@atlanta.com;user=phone", "sip:alice@atlanta.com"),
            ("sip:alice@atlanta.com;maddr=239.255.255.1", "sip:alice@atlanta.com"),
            ("sip:a%3Bb@atlanta.com", "sip:a;b@atlanta.com"),
        ])
    func notEquivalent(_ a: String, _ b: String) throws {
        #expect(!(try URI(a).isEquivalent(to: try URI(b))))
        #expect(!(try URI(b).isEquivalent(to: try URI(a))))
    }

    @Test func roundTripThroughText() throws {
        for text in [
            "sip:alice@example.com", "sips:bob:pw@[::1]:5061;transport=tls", "tel:+15551234;phone-context=+1",
            "sip:example.com;lr", "sip:user;par=u%40example.net@example.com",
        ] {
            #expect(try URI(text).description == text)
        }
    }
}
