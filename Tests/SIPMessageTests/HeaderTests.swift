import SIPMessage
import Testing

/// Typed views: parsed on demand from the raw fields, written back in wire form, round-tripping.
@Suite("Typed header views")
struct HeaderTests {
    func request(_ headers: String, body: String = "") throws -> SIPRequest {
        let text = "OPTIONS sip:bob@example.com SIP/2.0\r\n\(headers)\r\n\r\n\(body)"
        return try SIPRequest(parsing: Array(text.utf8))
    }

    @Test func via() throws {
        let r = try request(
            "Via: SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bK776;rport;received=192.0.2.99;maddr=224.0.0.1;ttl=16, SIP / 2.0 / TCP [2001:db8::1];branch=z9hG4bKx;rport=4321"
        )
        let vias = try r.via
        #expect(vias.count == 2)
        #expect(vias[0].transport == "UDP")
        #expect(vias[0].host.text == "192.0.2.10")
        #expect(vias[0].port == 5060)
        #expect(vias[0].branch == "z9hG4bK776")
        #expect(vias[0].hasMagicCookie)
        #expect(vias[0].rport == .requested)
        #expect(vias[0].received == "192.0.2.99")
        #expect(vias[0].maddr == "224.0.0.1")
        #expect(vias[0].ttl == 16)
        #expect(vias[1].host.kind == .ipv6)
        #expect(vias[1].rport == .value(4321))
        #expect(try r.topVia == vias[0])
        var v = vias[0]
        v.rport = .value(5070)
        v.received = "203.0.113.5"
        #expect(
            v.description
                == "SIP/2.0/UDP 192.0.2.10:5060;branch=z9hG4bK776;rport=5070;received=203.0.113.5;maddr=224.0.0.1;ttl=16"
        )
        #expect(try Via(v.description) == v)
        #expect(throws: MessageError.self) { try Via("SIP/2.0/UDP host;rport=x") }
        #expect(throws: MessageError.self) { try Via("SIP/2.0 host") }
        #expect(throws: MessageError.self) { try Via("SIP/2.0/UDP host;ttl=300") }
    }

    @Test func fromToAndTags() throws {
        let r = try request(
            #"From: "Alice \"A\" Smith" <sip:alice@example.com>;tag=1928301774"#
                + "\r\nTo: Bob <sip:bob@example.com>\r\n")
        let from = try #require(try r.from)
        #expect(from.displayName == #"Alice "A" Smith"#)
        #expect(from.tag == "1928301774")
        #expect(from.description == #""Alice \"A\" Smith" <sip:alice@example.com>;tag=1928301774"#)
        #expect(try NameAddress(from.description) == from)
        let to = try #require(try r.to)
        #expect(to.displayName == "Bob")
        #expect(to.tag == nil)
        var tagged = to
        tagged.tag = "a6c85cf"
        #expect(tagged.description == #""Bob" <sip:bob@example.com>;tag=a6c85cf"#)
    }

    @Test func contacts() throws {
        let r = try request(
            #"Contact: <sip:alice@192.0.2.10:5060;transport=tcp>;expires=3600;q=0.7;+sip.instance="<urn:uuid:00000000-0000-1000-8000-AABBCCDDEEFF>";reg-id=1, "Two" <sip:two@example.com>"#
        )
        let contacts = try r.contacts
        #expect(contacts.count == 2)
        #expect(contacts[0].expires == 3600)
        #expect(contacts[0].q == 0.7)
        #expect(contacts[0].instanceID == "urn:uuid:00000000-0000-1000-8000-AABBCCDDEEFF")
        #expect(contacts[0].regID == 1)
        #expect(contacts[0].uri?.sipURI?.transport == "tcp")
        #expect(contacts[1].nameAddress?.displayName == "Two")
        let star = try request("Contact: *\r\nExpires: 0")
        #expect(try star.contacts == [.wildcard])
        #expect(try star.expires == 0)
        #expect(Contact.wildcard.description == "*")
    }

    @Test func cseqCallIDMaxForwards() throws {
        let r = try request("CSeq: 4711 INVITE\r\nCall-ID: a84b4c76e66710@pc33.example.com\r\nMax-Forwards: 70")
        #expect(try r.cseq == CSeq(4711, .invite))
        #expect(try r.callID == "a84b4c76e66710@pc33.example.com")
        #expect(try r.maxForwards == 70)
        #expect(throws: MessageError.self) { try self.request("CSeq: 2147483648 INVITE").cseq }
        #expect(throws: MessageError.self) { try self.request("CSeq: 1").cseq }
        #expect(throws: MessageError.self) { try self.request("Max-Forwards: 256").maxForwards }
        #expect(throws: MessageError.self) { try self.request("Call-ID: a b").callID }
        #expect(CSeq(1, .bye).description == "1 BYE")
    }

    @Test func routes() throws {
        let r = try request(
            "Route: <sip:p1.example.com;lr>, <sip:p2.example.com;lr>\r\nRecord-Route: <sip:p3.example.com;lr>\r\nRoute: <sip:p4.example.com>"
        )
        #expect(
            try r.route.map { $0.uri.description } == [
                "sip:p1.example.com;lr", "sip:p2.example.com;lr", "sip:p4.example.com",
            ])
        #expect(try r.recordRoute.count == 1)
        #expect(try r.route.last?.uri.sipURI?.isLooseRouter == false)
    }

    @Test func contentHeaders() throws {
        let r = try request(
            "Content-Type: application/SDP;charset=utf-8\r\nContent-Encoding: gzip, identity\r\nContent-Disposition: session;handling=required\r\nAccept: application/sdp;q=0.9, text/*, */*\r\nContent-Length: 4",
            body: "v=0\n")
        let type = try #require(try r.contentType)
        #expect(type.matches(.sdp))
        #expect(type.parameters["charset"] == "utf-8")
        #expect(try r.contentEncoding == ["gzip", "identity"])
        #expect(try r.contentDisposition?.token == "session")
        #expect(try r.contentDisposition?.handling == "required")
        #expect(try r.accept.count == 3)
        #expect(try r.accept[1].matches(.textPlain))
        #expect(try r.contentLength == 4)
        #expect(r.bodyText == "v=0\n")
    }

    @Test func optionTagsAndMethods() throws {
        let r = try request(
            "Allow: INVITE, ACK, CANCEL, BYE\r\nSupported: replaces, timer\r\nRequire: 100rel\r\nProxy-Require: foo\r\nUnsupported: bar\r\nAllow-Events: presence, message-summary"
        )
        #expect(try r.allow == [.invite, .ack, .cancel, .bye])
        #expect(try r.supported == ["replaces", "timer"])
        #expect(try r.require == ["100rel"])
        #expect(try r.proxyRequire == ["foo"])
        #expect(try r.unsupported == ["bar"])
        #expect(try r.allowEvents == ["presence", "message-summary"])
        #expect(try self.request("Supported:").supported == [])
    }

    @Test func authentication() throws {
        let r = try request(
            #"WWW-Authenticate: Digest realm="asterisk", nonce="1234abcd", opaque="5ccc", algorithm=SHA-256, qop="auth,auth-int", stale=TRUE"#
                + "\r\n" + #"WWW-Authenticate: Digest realm="asterisk", nonce="5678", algorithm=MD5, qop="auth""#
                + "\r\n"
                + #"Authorization: Digest username="alice", realm="asterisk", nonce="1234abcd", uri="sip:example.com", response="6629fae49393a05397450978507c4ef1", algorithm=MD5, cnonce="0a4f113b", opaque="5ccc", qop=auth, nc=00000001"#
                + "\r\n" + "Proxy-Authorization: Bearer eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl=="
                + "\r\n"
                + #"Authentication-Info: nextnonce="47364c23432d2e131a5fb210812c", qop=auth, rspauth="abc", cnonce="0a4f113b", nc=00000001"#
        )
        let challenges = try r.wwwAuthenticate
        #expect(challenges.count == 2)
        #expect(challenges[0].isDigest)
        #expect(challenges[0].realm == "asterisk")
        #expect(challenges[0].nonce == "1234abcd")
        #expect(challenges[0].opaque == "5ccc")
        #expect(challenges[0].algorithm == "SHA-256")
        #expect(challenges[0].qopOptions == ["auth", "auth-int"])
        #expect(challenges[0].isStale)
        #expect(challenges[1].algorithm == "MD5")
        let credentials = try #require(try r.authorization.first)
        #expect(credentials.username == "alice")
        #expect(credentials.uri == "sip:example.com")
        #expect(credentials.nonceCount == 1)
        #expect(credentials.qop == "auth")
        let bearer = try #require(try r.proxyAuthorization.first)
        #expect(bearer.scheme == "Bearer")
        #expect(bearer.token68 == "eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl==")
        let info = try #require(try r.authenticationInfo)
        #expect(info.nextNonce == "47364c23432d2e131a5fb210812c")
        #expect(info.responseAuth == "abc")
        var built = Credentials(scheme: "Digest")
        built.parameters.setQuoted("username", "bob")
        built.parameters.setQuoted("realm", "biloxi.com")
        built.parameters.set("nc", to: "00000002")
        #expect(built.description == #"Digest username="bob", realm="biloxi.com", nc=00000002"#)
        // Two schemes in one field (RFC 7235 §4.1).
        let two = try request(#"WWW-Authenticate: Digest realm="a", nonce="b", Basic realm="c""#)
        #expect(try two.wwwAuthenticate.map(\.scheme) == ["Digest", "Basic"])
        #expect(try two.wwwAuthenticate[1].realm == "c")
    }

    @Test func reliableProvisionalsAndSessionTimers() throws {
        let r = try request(
            "RSeq: 988789\r\nRAck: 776656 1 INVITE\r\nSession-Expires: 1800;refresher=uas\r\nMin-SE: 90")
        #expect(try r.rseq == 988789)
        #expect(try r.rack == RAck(responseNumber: 776656, cseqNumber: 1, method: .invite))
        #expect(try r.sessionExpires?.deltaSeconds == 1800)
        #expect(try r.sessionExpires?.refresher == .uas)
        #expect(try r.minSE == 90)
        #expect(SessionExpires(deltaSeconds: 90, refresher: .uac).description == "90;refresher=uac")
    }

    @Test func eventsAndSubscriptions() throws {
        let r = try request(
            "Event: message-summary;id=17\r\nSubscription-State: terminated;reason=timeout;retry-after=30")
        #expect(try r.event?.package == "message-summary")
        #expect(try r.event?.id == "17")
        let state = try #require(try r.subscriptionState)
        #expect(state.isTerminated)
        #expect(state.reason == "timeout")
        #expect(state.retryAfter == 30)
        let active = try SubscriptionState("active;expires=3600")
        #expect(active.isActive)
        #expect(active.expires == 3600)
    }

    @Test func transferHeaders() throws {
        let r = try request(
            "Refer-To: <sip:carol@example.com?Replaces=12345%40192.168.118.3%3Bto-tag%3D12345%3Bfrom-tag%3D5FFE-3994>\r\nReferred-By: <sip:alice@example.com>\r\nReplaces: 98732@sip.example.com;from-tag=r33th4x0r;to-tag=ff87ff;early-only"
        )
        let referTo = try #require(try r.referTo?.uri.sipURI)
        #expect(referTo.headers.first?.name == "Replaces")
        #expect(try r.referredBy?.uri.sipURI?.user == "alice")
        let replaces = try #require(try r.replaces)
        #expect(replaces.callID == "98732@sip.example.com")
        #expect(replaces.fromTag == "r33th4x0r")
        #expect(replaces.toTag == "ff87ff")
        #expect(replaces.isEarlyOnly)
        #expect(try Replaces(replaces.description) == replaces)
        #expect(throws: MessageError.self) { try Replaces("abc;to-tag=1") }
    }

    @Test func reasonRetryAfterIdentity() throws {
        let r = try request(
            #"Reason: SIP;cause=200;text="Call completed elsewhere", Q.850;cause=16"# + "\r\n"
                + "Retry-After: 18000 (in a meeting);duration=3600\r\n"
                + #"P-Asserted-Identity: "Cullen Jennings" <sip:fluffy@cisco.com>, tel:+14085264000"#)
        let reasons = try r.reason
        #expect(reasons.count == 2)
        #expect(reasons[0].protocol == "SIP")
        #expect(reasons[0].cause == 200)
        #expect(reasons[0].text == "Call completed elsewhere")
        #expect(reasons[1].cause == 16)
        #expect(Reason(protocol: "SIP", cause: 603, text: "Decline").description == #"SIP;cause=603;text="Decline""#)
        let retry = try #require(try r.retryAfter)
        #expect(retry.seconds == 18000)
        #expect(retry.comment == "in a meeting")
        #expect(retry.duration == 3600)
        let ids = try r.pAssertedIdentity
        #expect(ids.count == 2)
        #expect(ids[0].displayName == "Cullen Jennings")
        #expect(ids[1].uri.scheme == "tel")
    }

    @Test func productDateTimestampWarning() throws {
        let r = try request(
            "User-Agent: Switchboard/0.1 (Linux)\r\nServer: Kamailio (5.6.3 (x86_64/linux))\r\nDate: Sat, 13 Nov 2010 23:29:00 GMT\r\nTimestamp: 54.21 0.3\r\nWarning: 399 pbx.example.com \"No answer body\"\r\nSubject: lunch"
        )
        #expect(r.userAgent == "Switchboard/0.1 (Linux)")
        #expect(r.server == "Kamailio (5.6.3 (x86_64/linux))")
        #expect(r.subject == "lunch")
        let date = try #require(try r.date)
        #expect(date.secondsSince1970 == 1_289_690_940)
        #expect(date.description == "Sat, 13 Nov 2010 23:29:00 GMT")
        #expect(SIPDate(secondsSince1970: 0).description == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(try r.timestamp == Timestamp(value: "54.21", delay: "0.3"))
        #expect(try r.warning.first == Warning(code: 399, agent: "pbx.example.com", text: "No answer body"))
        #expect(throws: MessageError.self) { try SIPDate("Sat, 13 Nov 2010 23:29:00 EST") }
    }

    @Test func malformedValuesNameTheField() throws {
        let r = try request("From: <sip:alice@example.com;tag=1")
        do {
            _ = try r.from
            Issue.record("expected an error")
        } catch {
            #expect(error.status == 400)
            #expect(error.fieldName == "from")
            #expect(error.reasonPhrase.hasPrefix("Malformed From header"))
        }
    }
}
