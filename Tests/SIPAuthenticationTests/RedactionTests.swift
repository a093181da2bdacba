import SIPAuthentication
import SIPMessage
import Testing

/// No description, debug description, dump or error of this module shows a password or a stored hash.
@Suite("Secrets stay out of text")
struct RedactionTests {
    static let password = "Pa55-w0rd:unique!"

    static func texts(of value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), dumped]
    }

    static func expectNoSecret(_ value: Any, _ secrets: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for text in texts(of: value) {
            for secret in secrets {
                #expect(!text.contains(secret), "\(type(of: value)) shows a secret", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func nothingShowsThePassword() throws {
        let ha1 = try DigestAlgorithm.sha256.credentialsHash(
            username: "alice", realm: "example.com", password: Self.password)
        let md5ha1 = try DigestAlgorithm.md5.credentialsHash(
            username: "alice", realm: "example.com", password: Self.password)
        let secrets = [Self.password, ha1, md5ha1]

        let credentials = DigestCredentials(username: "alice", password: Self.password)
        Self.expectNoSecret(credentials, secrets)
        Self.expectNoSecret(credentials.secret, secrets)
        Self.expectNoSecret(DigestSecret.credentialsHash(ha1, algorithm: .sha256), secrets)
        #expect(String(describing: credentials).contains("alice"))

        // A whole exchange, including a failure and an rspauth check.
        let directory = Directory(["example.com": ["alice": Self.password]])
        let keychain = Keychain(["example.com": ("alice", Self.password)])
        var server = TestServer(
            [DigestVerifier(realm: "example.com", opaque: "op", random: SeededRandom(seed: 1))], directory: directory)
        server.sendsNextNonce = true
        var client = DigestAuthenticator(random: SeededRandom(seed: 2), credentials: keychain.lookup)
        let exchange = try Exchange.run(
            try Messages.request(.register, "sip:example.com"), client: &client, server: &server)
        #expect(exchange.final?.statusCode == 200)
        let ok = try #require(exchange.final)
        #expect(try client.verify(ok, for: exchange.sent[1]))
        Self.expectNoSecret(client, secrets)
        Self.expectNoSecret(server.verifiers[0], secrets)
        for verdict in server.verdicts { Self.expectNoSecret(verdict, secrets) }
        #expect(server.verdicts.last?.isAuthorized == true)
        for message in exchange.sent { #expect(!message.description.contains(Self.password)) }

        var errors: [AuthenticationError] = []
        var forged = ok
        var parameters = try #require(try ok.authenticationInfo).parameters
        parameters.setQuoted("rspauth", String(repeating: "1", count: 64))
        forged.headerFields.set(.authenticationInfo, AuthenticationInfo(parameters: parameters))
        do {
            try client.verify(forged, for: exchange.sent[1])
        } catch {
            errors.append(error)
        }

        directory.set(realm: "example.com", user: "alice", password: "changed")
        client.reset()
        do {
            _ = try Exchange.run(
                try Messages.request(.register, "sip:example.com", cseq: 9), client: &client, server: &server)
        } catch let error as AuthenticationError {
            errors.append(error)
        }
        do {
            _ = try client.respond(to: SIPResponse(statusCode: 401), for: exchange.sent[0])
        } catch {
            errors.append(error)
        }
        #expect(errors.map(\.code) == [.responseAuthMismatch, .authenticationFailed, .notAChallenge])
        for error in errors { Self.expectNoSecret(error, secrets) }
        Self.expectNoSecret(client, secrets)
    }

    @Test func errorsReadWell() throws {
        let request = try Messages.request(.register, "sip:example.com")
        var response = Messages.response(401, to: request)
        response.headerFields.append(
            name: .wwwAuthenticate, value: #"Digest realm="example.com", nonce="n", qop="auth""#)
        var client = DigestAuthenticator(random: SeededRandom(seed: 3)) { _ in nil }
        let error = try #require(throws: AuthenticationError.self) { try client.respond(to: response, for: request) }
        #expect(error.code == .noCredentials)
        #expect(error.description == #"no credentials for realm "example.com" [401 Unauthorized]"#)
    }
}
