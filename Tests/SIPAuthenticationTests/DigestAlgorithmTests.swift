import SIPAuthentication
import SIPMessage
import Testing

/// The worked examples of RFC 2617 §3.5 and RFC 7616 §3.9, checked through the same code the client uses.
@Suite("Digest computation")
struct DigestAlgorithmTests {
    /// Reads challenges from WWW-Authenticate values, as a client would.
    static func challenges(_ values: [String]) throws -> [DigestChallenge] {
        let fields = SIPFields(values.map { SIPField(name: .wwwAuthenticate, value: $0) })
        return try fields.wwwAuthenticate.map { try #require(DigestChallenge($0, kind: .www)) }
    }

    @Test func hashFunctionsMatchFIPSVectors() throws {
        // FIPS 180-4 / RFC 1321 "abc" examples: SHA-512/256 must be the real one, not truncated SHA-512.
        #expect(try DigestAlgorithm.md5.hash(Array("abc".utf8)) == "900150983cd24fb0d6963f7d28e17f72")
        #expect(
            try DigestAlgorithm.sha256.hash(Array("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            try DigestAlgorithm.sha512_256.hash(Array("abc".utf8))
                == "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23")
        for algorithm in DigestAlgorithm.all { #expect(algorithm.isAvailable, "\(algorithm)") }
    }

    @Test func algorithmNamesAreCaseInsensitive() {
        #expect(DigestAlgorithm(name: "md5") == .md5)
        #expect(DigestAlgorithm(name: "SHA-256-SESS") == .sha256Session)
        #expect(DigestAlgorithm(name: "sha-512-256") == .sha512_256)
        #expect(DigestAlgorithm(name: "SHA3-256") == nil)
        #expect(DigestAlgorithm(name: "SHA-512") == nil)
    }

    /// RFC 2617 §3.5: MD5, qop=auth.
    @Test func rfc2617Example() throws {
        let challenge = try #require(
            Self.challenges([
                #"Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41""#
            ]).first)
        #expect(challenge.algorithm == .md5)
        #expect(challenge.preferredQop == .auth)
        let credentials = try challenge.credentials(
            DigestCredentials(username: "Mufasa", password: "Circle Of Life"), method: "GET", uri: "/dir/index.html",
            nonceCount: 1, cnonce: "0a4f113b")
        #expect(credentials.response == "6629fae49393a05397450978507c4ef1")
        #expect(credentials.username == "Mufasa")
        #expect(credentials.realm == "testrealm@host.com")
        #expect(credentials.nonce == "dcd98b7102dd2f0e8b11d0f600bfb0c093")
        #expect(credentials.uri == "/dir/index.html")
        #expect(credentials.qop == "auth")
        #expect(credentials.parameters["nc"] == "00000001")
        #expect(credentials.cnonce == "0a4f113b")
        #expect(credentials.opaque == "5ccc069c403ebaf9f0171e9517f40e41")

        // The same figure from the building blocks.
        let md5 = DigestAlgorithm.md5
        let ha1 = try md5.credentialsHash(username: "Mufasa", realm: "testrealm@host.com", password: "Circle Of Life")
        let response = try md5.response(
            sessionKey: ha1, nonce: "dcd98b7102dd2f0e8b11d0f600bfb0c093", nonceCount: 1, cnonce: "0a4f113b",
            qop: .auth, method: "GET", uri: "/dir/index.html")
        #expect(response == "6629fae49393a05397450978507c4ef1")
    }

    /// RFC 7616 §3.9.1: SHA-256 and MD5 offered together (password "Circle of Life", erratum 4495).
    @Test func rfc7616SHA256AndMD5Example() throws {
        let offered = try Self.challenges([
            #"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#,
            #"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#,
        ])
        #expect(offered.map(\.algorithm) == [.sha256, .md5])
        let user = DigestCredentials(username: "Mufasa", password: "Circle of Life")
        let expected = [
            "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1",
            "8ca523f5e9506fed4657c9700eebdbec",
        ]
        for (challenge, response) in zip(offered, expected) {
            let credentials = try challenge.credentials(
                user, method: "GET", uri: "/dir/index.html", nonceCount: 1,
                cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ")
            #expect(credentials.response == response, "\(challenge.algorithm)")
            #expect(credentials.algorithm == challenge.algorithm.name)
            #expect(credentials.qop == "auth")
            #expect(credentials.opaque == "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS")
        }
    }

    /// RFC 7616 §3.9.2: SHA-512-256, a non-ASCII user name, userhash.
    ///
    /// The RFC prints username 488869477bf257147b804c45308cd62ac4e25eb717b12b298c79e62dcea254ec and response
    /// ae66e67d6b427bd3f120414a82e4acff38e8ecd9101d6c861229025f607a79dd; those are SHA-512 truncated to 256 bits.
    /// Erratum 4897 gives the values for SHA-512/256 as FIPS 180-4 §6.7 defines it, which this module implements.
    @Test func rfc7616SHA512_256UserhashExample() throws {
        let challenge = try #require(
            Self.challenges([
                #"Digest realm="api@example.org", qop="auth", algorithm=SHA-512-256, nonce="5TsQWLVdgBdmrQ0XsxbDODV+57QdFR34I9HAbC/RVvkK", opaque="HRPCssKJSGjCrkzDg8OhwpzCiGPChXYjwrI2QmXDnsOS", charset=UTF-8, userhash=true"#
            ]).first)
        #expect(challenge.algorithm == .sha512_256)
        #expect(challenge.isUserhash)
        let username = "J\u{E4}s\u{F8}n Doe"
        #expect(Array(username.utf8) == [0x4A, 0xC3, 0xA4, 0x73, 0xC3, 0xB8, 0x6E, 0x20, 0x44, 0x6F, 0x65])

        let credentials = try challenge.credentials(
            DigestCredentials(username: username, password: "Secret, or not?"), method: "GET", uri: "/doe.json",
            nonceCount: 1, cnonce: "NTg6RKcb9boFIAS3KrFK9BGeh+iDa/sm6jUMp2wds69v")
        #expect(credentials.username == "793263caabb707a56211940d90411ea4a575adeccb7e360aeb624ed06ece9b0b")
        #expect(credentials.response == "3798d4131c277846293534c3edc11bd8a5e4cdcbff78b05db9d95eeb1cec68a5")
        #expect(credentials.parameters["userhash"] == "true")
        #expect(credentials.opaque == "HRPCssKJSGjCrkzDg8OhwpzCiGPChXYjwrI2QmXDnsOS")
        #expect(credentials.username != "488869477bf257147b804c45308cd62ac4e25eb717b12b298c79e62dcea254ec")
        #expect(credentials.response != "ae66e67d6b427bd3f120414a82e4acff38e8ecd9101d6c861229025f607a79dd")
    }

    @Test func authIntHashesTheBody() throws {
        let algorithm = DigestAlgorithm.sha256
        let key = try algorithm.credentialsHash(username: "alice", realm: "example.com", password: "pw")
        func response(_ body: String, _ qop: DigestQop) throws -> String {
            try algorithm.response(
                sessionKey: key, nonce: "n", nonceCount: 1, cnonce: "c", qop: qop, method: "INVITE",
                uri: "sip:bob@example.com", body: Array(body.utf8))
        }
        // auth-int: A2 = method:uri:H(body) (RFC 7616 §3.4.3).
        let bodyHash = try algorithm.hash(Array("v=0\r\n".utf8))
        let a2 = try algorithm.hash(joining: "INVITE", "sip:bob@example.com", bodyHash)
        #expect(try response("v=0\r\n", .authInt) == algorithm.hash(joining: key, "n", "00000001", "c", "auth-int", a2))
        #expect(try response("v=0\r\n", .authInt) != response("v=1\r\n", .authInt))
        // auth ignores the body.
        #expect(try response("v=0\r\n", .auth) == response("v=1\r\n", .auth))
    }

    @Test func legacyFormWithoutQop() throws {
        // RFC 2069 / RFC 2617 §3.2.2.1: response = H(HA1:nonce:HA2), no nc, no cnonce.
        let challenge = try #require(
            Self.challenges([#"Digest realm="testrealm@host.com", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093""#]).first)
        #expect(challenge.preferredQop == nil)
        let credentials = try challenge.credentials(
            DigestCredentials(username: "Mufasa", password: "Circle Of Life"), method: "GET", uri: "/dir/index.html",
            nonceCount: 1, cnonce: "unused")
        let md5 = DigestAlgorithm.md5
        let ha1 = try md5.hash(joining: "Mufasa", "testrealm@host.com", "Circle Of Life")
        let ha2 = try md5.hash(joining: "GET", "/dir/index.html")
        #expect(credentials.response == (try md5.hash(joining: ha1, "dcd98b7102dd2f0e8b11d0f600bfb0c093", ha2)))
        #expect(credentials.qop == nil)
        #expect(credentials.cnonce == nil)
        #expect(credentials.parameters["nc"] == nil)
    }

    @Test func sessionVariantsMixNonceAndCnonceIntoHA1() throws {
        let base = try DigestAlgorithm.sha256.credentialsHash(username: "u", realm: "r", password: "p")
        let key = try DigestAlgorithm.sha256Session.sessionKey(credentialsHash: base, nonce: "n", cnonce: "c")
        #expect(key == (try DigestAlgorithm.sha256.hash(joining: base, "n", "c")))
        #expect(try DigestAlgorithm.sha256.sessionKey(credentialsHash: base, nonce: "n", cnonce: "c") == base)
    }

    @Test func storedCredentialsHashAnswersLikeThePassword() throws {
        let challenge = DigestChallenge(kind: .www, realm: "example.com", nonce: "abc", algorithm: .sha256Session)
        let hash = try DigestAlgorithm.sha256.credentialsHash(username: "alice", realm: "example.com", password: "pw")
        let withPassword = try challenge.credentials(
            DigestCredentials(username: "alice", password: "pw"), method: "REGISTER", uri: "sip:example.com",
            nonceCount: 3, cnonce: "xyz")
        let withHash = try challenge.credentials(
            DigestCredentials(username: "alice", secret: .credentialsHash(hash, algorithm: .sha256)),
            method: "REGISTER", uri: "sip:example.com", nonceCount: 3, cnonce: "xyz")
        #expect(withPassword.response == withHash.response)
        #expect(withHash.parameters["nc"] == "00000003")
        // A hash made with another function cannot answer.
        let md5Only = DigestCredentials(username: "alice", secret: .credentialsHash(hash, algorithm: .md5))
        #expect(throws: AuthenticationError.self) {
            try challenge.credentials(md5Only, method: "REGISTER", uri: "sip:example.com", nonceCount: 1, cnonce: "x")
        }
    }

    @Test func unusableChallengesAreNotRead() throws {
        let fields = SIPFields([
            SIPField(name: .wwwAuthenticate, value: #"Basic realm="x""#),
            SIPField(name: .wwwAuthenticate, value: #"Digest realm="x", nonce="n", algorithm=SHA3-256"#),
            SIPField(name: .wwwAuthenticate, value: #"Digest nonce="n""#),
            SIPField(name: .wwwAuthenticate, value: #"Digest realm="x""#),
            SIPField(name: .wwwAuthenticate, value: #"Digest realm="x", nonce="n", qop="auth-conf""#),
            SIPField(name: .wwwAuthenticate, value: #"Digest realm="x", nonce="n", algorithm=MD5-sess"#),
            SIPField(name: .wwwAuthenticate, value: #"Digest realm="x", nonce="n", qop="auth-conf,auth-int""#),
        ])
        let read = try fields.wwwAuthenticate.map { DigestChallenge($0, kind: .www) }
        #expect(read.prefix(6).allSatisfy { $0 == nil })
        #expect(read[6]?.qopOptions == [.authInt])
        #expect(read[6]?.preferredQop == .authInt)
    }
}
