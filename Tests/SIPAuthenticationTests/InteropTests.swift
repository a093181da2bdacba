import SIPAuthentication
import SIPMessage
import Testing

/// Exchanges shaped like those of real PBXes, replayed from wire text.
@Suite("PBX-style exchanges")
struct InteropTests {
    static func wire(_ lines: [String], body: String = "") -> [UInt8] {
        Array((lines.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8)
    }

    /// Recomputes `response` of credentials the client sent, from the building blocks.
    static func expectedResponse(
        _ credentials: Credentials, algorithm: DigestAlgorithm, user: String, password: String, method: String,
        body: [UInt8] = []
    ) throws -> String {
        let realm = try #require(credentials.realm)
        let nonce = try #require(credentials.nonce)
        let ha1 = try algorithm.credentialsHash(username: user, realm: realm, password: password)
        let qop = credentials.qop.flatMap(DigestQop.init(rawValue:))
        return try algorithm.response(
            sessionKey: ha1, nonce: nonce, nonceCount: credentials.nonceCount, cnonce: credentials.cnonce, qop: qop,
            method: method, uri: try #require(credentials.uri), body: body)
    }

    static let asteriskRegister = wire([
        "REGISTER sip:pbx.example.com SIP/2.0",
        "Via: SIP/2.0/UDP 192.0.2.10:5060;rport;branch=z9hG4bKPj7d1f2c",
        "Max-Forwards: 70",
        "From: <sip:1001@pbx.example.com>;tag=6a3f0b2e",
        "To: <sip:1001@pbx.example.com>",
        "Call-ID: 5f1c9e2a-4b7d-4c11-9e0f-3a2b1c0d9e8f",
        "CSeq: 30271 REGISTER",
        "Contact: <sip:1001@192.0.2.10:5060;ob>",
        "Expires: 300",
        "Content-Length: 0",
    ])

    /// Asterisk (res_pjsip): realm "asterisk", qop="auth", an opaque to echo, SHA-256 offered first, then
    /// MD5 spelled in lower case.
    static let asterisk401 = wire([
        "SIP/2.0 401 Unauthorized",
        "Via: SIP/2.0/UDP 192.0.2.10:5060;rport=5060;received=192.0.2.10;branch=z9hG4bKPj7d1f2c",
        "Call-ID: 5f1c9e2a-4b7d-4c11-9e0f-3a2b1c0d9e8f",
        "From: <sip:1001@pbx.example.com>;tag=6a3f0b2e",
        "To: <sip:1001@pbx.example.com>;tag=z9hG4bKPj7d1f2c",
        "CSeq: 30271 REGISTER",
        #"WWW-Authenticate: Digest realm="asterisk",nonce="1700000000/2b8f0a6c1e3d4f5a6b7c8d9e0f1a2b3c",opaque="19a4c0d2e6f87b35",algorithm=SHA-256,qop="auth""#,
        #"WWW-Authenticate: Digest realm="asterisk",nonce="1700000000/2b8f0a6c1e3d4f5a6b7c8d9e0f1a2b3c",opaque="19a4c0d2e6f87b35",algorithm=md5,qop="auth""#,
        "Server: Asterisk PBX 22.2.0",
        "Content-Length:  0",
    ])

    @Test func asteriskRegister() throws {
        let keychain = Keychain(["asterisk": ("1001", "s3cret-1001")])
        var client = DigestAuthenticator(random: SeededRandom(seed: 11), credentials: keychain.lookup)
        let register = try SIPRequest(parsing: Self.asteriskRegister)
        let challenge = try SIPResponse(parsing: Self.asterisk401)

        let answered = try Messages.nextAttempt(try client.respond(to: challenge, for: register))
        // Through the wire and back, as Asterisk would read it.
        let received = try SIPRequest(parsing: answered.serialized())
        let credentials = try #require(try received.authorization.first)
        #expect(try received.authorization.count == 1)
        #expect(credentials.username == "1001")
        #expect(credentials.realm == "asterisk")
        #expect(credentials.nonce == "1700000000/2b8f0a6c1e3d4f5a6b7c8d9e0f1a2b3c")
        #expect(credentials.uri == "sip:pbx.example.com")
        #expect(credentials.algorithm == "SHA-256")
        #expect(credentials.qop == "auth")
        #expect(credentials.parameters["nc"] == "00000001")
        #expect(credentials.opaque == "19a4c0d2e6f87b35")
        #expect(credentials.cnonce?.isEmpty == false)
        #expect(
            credentials.response
                == (try Self.expectedResponse(
                    credentials, algorithm: .sha256, user: "1001", password: "s3cret-1001", method: "REGISTER")))
        #expect(try received.cseq == CSeq(30272, .register))

        // The refresh an hour later goes out pre-authorized, next nc, opaque still echoed.
        var refresh = try SIPRequest(parsing: Self.asteriskRegister)
        refresh.headerFields.set(.cseq, CSeq(30273, .register))
        #expect(try client.authorize(&refresh))
        let again = try #require(try refresh.authorization.first)
        #expect(again.parameters["nc"] == "00000002")
        #expect(again.opaque == "19a4c0d2e6f87b35")
        #expect(again.cnonce == credentials.cnonce)
        #expect(
            again.response
                == (try Self.expectedResponse(
                    again, algorithm: .sha256, user: "1001", password: "s3cret-1001", method: "REGISTER")))
    }

    @Test func asteriskWithAnMD5StoredHashAnswersTheMD5Challenge() throws {
        // Asterisk's md5_cred: the account holds H(user:realm:password) for MD5 only, so the MD5 challenge is
        // the strongest one it can answer.
        let ha1 = try DigestAlgorithm.md5.credentialsHash(username: "1001", realm: "asterisk", password: "s3cret-1001")
        var client = DigestAuthenticator(random: SeededRandom(seed: 12)) { realm in
            realm == "asterisk"
                ? DigestCredentials(username: "1001", secret: .credentialsHash(ha1, algorithm: .md5)) : nil
        }
        let answered = try client.respond(
            to: try SIPResponse(parsing: Self.asterisk401), for: try SIPRequest(parsing: Self.asteriskRegister))
        let credentials = try #require(try answered.authorization.first)
        #expect(credentials.algorithm == "MD5")
        #expect(
            credentials.response
                == (try Self.expectedResponse(
                    credentials, algorithm: .md5, user: "1001", password: "s3cret-1001", method: "REGISTER")))
    }

    /// FreeSWITCH (mod_sofia): REGISTER challenged by 401, INVITE by 407, realm = the domain, nonces are UUIDs,
    /// no opaque.
    @Test func freeswitchRegisterThenInvite() throws {
        let keychain = Keychain(["fs.example.com": ("1000", "1234-fs")])
        var client = DigestAuthenticator(random: SeededRandom(seed: 13), credentials: keychain.lookup)

        let register = try SIPRequest(
            parsing: Self.wire([
                "REGISTER sip:fs.example.com SIP/2.0",
                "Via: SIP/2.0/UDP 192.0.2.20:5060;branch=z9hG4bK-524287-1",
                "Max-Forwards: 70",
                "From: <sip:1000@fs.example.com>;tag=8d5e6f70",
                "To: <sip:1000@fs.example.com>",
                "Call-ID: reg-1@192.0.2.20",
                "CSeq: 1 REGISTER",
                "Contact: <sip:1000@192.0.2.20:5060>",
                "Content-Length: 0",
            ]))
        let unauthorized = try SIPResponse(
            parsing: Self.wire([
                "SIP/2.0 401 Unauthorized",
                "Via: SIP/2.0/UDP 192.0.2.20:5060;branch=z9hG4bK-524287-1;received=192.0.2.20",
                "From: <sip:1000@fs.example.com>;tag=8d5e6f70",
                "To: <sip:1000@fs.example.com>;tag=Q7gS1y0aB9p3e",
                "Call-ID: reg-1@192.0.2.20",
                "CSeq: 1 REGISTER",
                "User-Agent: FreeSWITCH-mod_sofia/1.10.12-release~64bit",
                #"WWW-Authenticate: Digest realm="fs.example.com", nonce="3b1e6f5c-8a4d-4d2e-9d7b-2f6a1c9e0b44", algorithm=MD5, qop="auth""#,
                "Content-Length: 0",
            ]))
        let answeredRegister = try client.respond(to: unauthorized, for: register)
        let registerCredentials = try #require(try answeredRegister.authorization.first)
        #expect(registerCredentials.realm == "fs.example.com")
        #expect(registerCredentials.uri == "sip:fs.example.com")
        #expect(registerCredentials.opaque == nil)
        #expect(try answeredRegister.proxyAuthorization.isEmpty)
        #expect(
            registerCredentials.response
                == (try Self.expectedResponse(
                    registerCredentials, algorithm: .md5, user: "1000", password: "1234-fs", method: "REGISTER")))

        let sdp =
            "v=0\r\no=- 1 1 IN IP4 192.0.2.20\r\ns=-\r\nc=IN IP4 192.0.2.20\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\n"
        var invite = try SIPRequest(
            parsing: Self.wire(
                [
                    "INVITE sip:1001@fs.example.com SIP/2.0",
                    "Via: SIP/2.0/UDP 192.0.2.20:5060;branch=z9hG4bK-524287-2",
                    "Max-Forwards: 70",
                    "From: <sip:1000@fs.example.com>;tag=a1b2c3",
                    "To: <sip:1001@fs.example.com>",
                    "Call-ID: call-1@192.0.2.20",
                    "CSeq: 1 INVITE",
                    "Contact: <sip:1000@192.0.2.20:5060>",
                    "Content-Type: application/sdp",
                    "Content-Length: \(sdp.utf8.count)",
                ], body: sdp))
        try client.authorize(&invite)
        let proxyChallenge = try SIPResponse(
            parsing: Self.wire([
                "SIP/2.0 407 Proxy Authentication Required",
                "Via: SIP/2.0/UDP 192.0.2.20:5060;branch=z9hG4bK-524287-2;received=192.0.2.20",
                "From: <sip:1000@fs.example.com>;tag=a1b2c3",
                "To: <sip:1001@fs.example.com>;tag=HK3t9c5a0Zp1m",
                "Call-ID: call-1@192.0.2.20",
                "CSeq: 1 INVITE",
                #"Proxy-Authenticate: Digest realm="fs.example.com", nonce="a7c2d4e6-1f3b-4c5d-8e9f-0a1b2c3d4e5f", algorithm=MD5, qop="auth""#,
                "Content-Length: 0",
            ]))
        let answeredInvite = try Messages.nextAttempt(try client.respond(to: proxyChallenge, for: invite))
        let received = try SIPRequest(parsing: answeredInvite.serialized())
        let proxyCredentials = try #require(try received.proxyAuthorization.first)
        #expect(try received.proxyAuthorization.count == 1)
        #expect(proxyCredentials.realm == "fs.example.com")
        #expect(proxyCredentials.nonce == "a7c2d4e6-1f3b-4c5d-8e9f-0a1b2c3d4e5f")
        #expect(proxyCredentials.uri == "sip:1001@fs.example.com")
        #expect(proxyCredentials.parameters["nc"] == "00000001")
        #expect(
            proxyCredentials.response
                == (try Self.expectedResponse(
                    proxyCredentials, algorithm: .md5, user: "1000", password: "1234-fs", method: "INVITE")))
        #expect(received.bodyText == sdp)
        // The same realm string as a registrar and as a proxy: two nonces, counted apart.
        #expect(client.nonceCount(realm: "fs.example.com", kind: .proxy) == 1)
        #expect(client.nonceCount(realm: "fs.example.com", kind: .www) == 3)
        #expect(try received.authorization.map(\.nonceCount) == [3])
    }
}
