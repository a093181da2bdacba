import Foundation
import Switchboard
import SwitchboardTesting
import Synchronization
import Testing

/// TLS runs over the virtual network as over sockets (OpenSSL over memory BIOs): certificates and host
/// names are checked, in virtual time.
@Suite struct VirtualTLSTests {
    /// Bob on 10.0.0.2 with a certificate for that address; Alice trusts `trusted`.
    private func callOverTLS(trusting trusted: (_ bob: SelfSignedCertificate, _ other: SelfSignedCertificate) -> String)
        async throws -> (connected: Bool, ended: Bool, trace: String)
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sb-vtls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bobDirectory = directory.appendingPathComponent("bob").path
        let otherDirectory = directory.appendingPathComponent("other").path
        try FileManager.default.createDirectory(atPath: bobDirectory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: otherDirectory, withIntermediateDirectories: true)
        let bobCertificate = try SelfSignedCertificate(host: "10.0.0.2", directory: bobDirectory)
        let otherCertificate = try SelfSignedCertificate(host: "10.0.0.9", directory: otherDirectory)

        let world = VirtualWorld(seed: 11)
        var bobConfiguration = CallProviderConfiguration(
            accounts: [Account(addressOfRecord: "sip:bob@10.0.0.2")], listeners: [.init(.tls, "0.0.0.0:5061")])
        bobConfiguration.tls = .init(
            certificateFile: bobCertificate.certificateFile, privateKeyFile: bobCertificate.privateKeyFile,
            verifiesPeer: false)
        let bob = try world.makeProvider(configuration: bobConfiguration, host: "10.0.0.2")
        let bobDelegate = Recorder(world: world)
        bob.setDelegate(bobDelegate, queue: nil)
        var aliceConfiguration = CallProviderConfiguration(
            accounts: [Account(addressOfRecord: "sip:alice@10.0.0.1", transport: .tls)],
            listeners: [.init(.udp, "0.0.0.0:5060")])
        aliceConfiguration.tls = .init(trustedCAFile: trusted(bobCertificate, otherCertificate), verifiesPeer: true)
        let alice = try world.makeProvider(configuration: aliceConfiguration, host: "10.0.0.1")
        let aliceDelegate = Recorder(world: world)
        alice.setDelegate(aliceDelegate, queue: nil)
        _ = try await CallController(provider: alice).startCall(to: Handle(type: .generic, value: "sip:bob@10.0.0.2"))
        world.run(
            until: { bobDelegate.invite.withLock { $0 } != nil || aliceDelegate.ended.withLock { $0 } },
            within: .seconds(10))
        if let invite = bobDelegate.invite.withLock({ $0 }) {
            try await CallController(provider: bob).answerCall(invite)
        }
        world.run(
            until: { aliceDelegate.connected.withLock { $0 } || aliceDelegate.ended.withLock { $0 } },
            within: .seconds(10))
        let connected = aliceDelegate.connected.withLock { $0 }
        let trace = world.network.records.map { String(decoding: $0.bytes.prefix(64), as: UTF8.self) }.joined()
        let ended = aliceDelegate.ended.withLock { $0 }
        alice.invalidate(timeout: .seconds(1))
        bob.invalidate(timeout: .seconds(1))
        return (connected, ended, trace)
    }

    @Test func aCallOverTLSConnectsWhenTheCertificateIsTrusted() async throws {
        let outcome = try await callOverTLS { bob, _ in bob.certificateFile }
        #expect(outcome.connected)
        // Only ciphertext crossed the network: no SIP start line in the clear.
        #expect(!outcome.trace.contains("INVITE sip:"))
    }

    @Test func anUntrustedCertificateEndsTheCallBeforeAnyINVITE() async throws {
        let outcome = try await callOverTLS { _, other in other.certificateFile }
        #expect(!outcome.connected)
        #expect(outcome.ended)
        #expect(!outcome.trace.contains("INVITE sip:"))
    }
}
