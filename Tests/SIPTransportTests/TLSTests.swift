import Foundation
import SIPMessage
import Testing

@testable import SIPTransport

@Suite("TLS on loopback", .serialized)
struct TLSTests {
    /// A TLS server with the test certificate and a client trusting `caFile`; sends one OPTIONS to
    /// `serverName` and returns the send outcome and whether the server got the request.
    func exchange(
        serverName: String?, trust caFile: String?, certificates: TestCertificates, address: SocketAddress = .loopback()
    )
        async throws -> (TransportError?, Bool)
    {
        let fixture = try LoopFixture()
        let server = SIPTransportLayer(
            loop: fixture.loop,
            configuration: TransportConfiguration(
                tls: TLSConfiguration(
                    certificateFile: certificates.certificateFile, privateKeyFile: certificates.keyFile)))
        let client = SIPTransportLayer(
            loop: fixture.loop, configuration: TransportConfiguration(tls: TLSConfiguration(trustedCAFile: caFile)))
        let inbox = Inbox()
        let outcome = Outcome()
        try await onLoop(fixture.loop) {
            inbox.attach(to: server)
            let bound = try server.listen(.tls, on: address)
            let destination = Destination(transport: .tls, address: bound, serverName: serverName)
            let via = try #require(client.makeVia(for: destination, branch: "z9hG4bK-tls"))
            client.send(
                request: try options(to: "sips:bob@\(serverName ?? bound.uriHost)", via: via), to: destination,
                completion: outcome.completion)
        }
        let result = await outcome.wait(timeout: .seconds(10))
        let got = !(await inbox.wait(for: 1, timeout: result == .some(nil) ? .seconds(5) : .milliseconds(100)).isEmpty)
        try await fixture.stop([server, client])
        return (result ?? TransportError(.timedOut, "no outcome"), got)
    }

    @Test func verifiedByDomainName() async throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let (error, received) = try await exchange(
            serverName: "sip.example.test", trust: certificates.caFile, certificates: certificates)
        #expect(error == nil)
        #expect(received)
    }

    @Test func nameMismatchIsRefused() async throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let (error, received) = try await exchange(
            serverName: "other.example.test", trust: certificates.caFile, certificates: certificates)
        #expect(error?.code == .nameMismatch)
        #expect(!received)
    }

    @Test func untrustedIssuerIsRefused() async throws {
        let certificates = try TestCertificates()
        let other = try TestCertificates()
        defer {
            certificates.remove()
            other.remove()
        }
        let (error, received) = try await exchange(
            serverName: "sip.example.test", trust: other.caFile, certificates: certificates)
        #expect(error?.code == .untrustedCertificate)
        #expect(!received)
    }

    @Test func ipLiteralChecksTheIPSubjectAltName() async throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let (error, received) = try await exchange(
            serverName: nil, trust: certificates.caFile, certificates: certificates)
        #expect(error == nil)
        #expect(received)
        let v6 = try await exchange(
            serverName: nil, trust: certificates.caFile, certificates: certificates, address: .loopbackIPv6())
        #expect(v6.0 == nil)
        // A certificate without the IP in its subjectAltName is refused for an IP literal.
        let named = try TestCertificates(altNames: "DNS:sip.example.test")
        defer { named.remove() }
        let refused = try await exchange(serverName: "127.0.0.1", trust: named.caFile, certificates: named)
        #expect(refused.0?.code == .nameMismatch)
    }
}
