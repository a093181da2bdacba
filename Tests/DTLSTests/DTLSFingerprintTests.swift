import DTLS
import Foundation
import Media
import SDP
import Testing

@Suite("DTLS-SRTP fingerprints (RFC 5763 §5, RFC 8122)")
struct DTLSFingerprintTests {
    @Test func theIdentityHasASHA256Fingerprint() throws {
        let alice = try TestIdentities.alice()
        #expect(alice.fingerprint.hashFunction == "sha-256")
        #expect(alice.fingerprint.bytes.count == 32)
        let line = alice.fingerprint.attributeValue
        #expect(line.hasPrefix("sha-256 ") && line.count == 8 + 32 * 3 - 1)
        #expect(try Fingerprint(parsingAttributeValue: line) == alice.fingerprint)
        #expect(alice.fingerprint(hashFunction: "SHA-1")?.bytes.count == 20)
        #expect(alice.fingerprint(hashFunction: "sha-384")?.bytes.count == 48)
        #expect(alice.fingerprint(hashFunction: "sha-512")?.bytes.count == 64)
        #expect(alice.fingerprint(hashFunction: "md5") == nil)
        #expect(alice.fingerprint != (try TestIdentities.bob()).fingerprint)
        #expect(!alice.description.contains("PRIVATE"))
    }

    @Test func identitiesLoadFromPEM() throws {
        let alice = try TestIdentities.alice()
        let loaded = try DTLSIdentity(certificatePEM: alice.certificatePEM, privateKeyPEM: alice.privateKeyPEM)
        #expect(loaded.fingerprint == alice.fingerprint)
        #expect(alice.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        let bob = try TestIdentities.bob()
        #expect { try DTLSIdentity(certificatePEM: alice.certificatePEM, privateKeyPEM: bob.privateKeyPEM) } throws: {
            ($0 as? DTLSError)?.code == .badIdentity
        }
        #expect { try DTLSIdentity(certificatePEM: "not a certificate", privateKeyPEM: bob.privateKeyPEM) } throws: {
            ($0 as? DTLSError)?.code == .badIdentity
        }
        #expect {
            try DTLSIdentity(certificateFile: "/nonexistent/cert.pem", privateKeyFile: "/nonexistent/key.pem")
        } throws: { ($0 as? DTLSError)?.code == .badIdentity }
    }

    /// The client checks: the server (bob) is not who the SDP said (mallory). The client fails naming both
    /// fingerprints; the server hears a fatal alert.
    @Test func aMismatchFailsOnTheClientThatChecks() throws {
        let mallory = try TestIdentities.mallory()
        let pair = try DTLSPair(clientSees: mallory)
        pair.start()
        try pair.deliver()
        let error = try #require(DTLSPair.failure(pair.clientEvents))
        #expect(error.code == .fingerprintMismatch)
        #expect(error.expectedFingerprint == mallory.fingerprint)
        #expect(error.presentedFingerprint == (try TestIdentities.bob()).fingerprint)
        let alert = try #require(DTLSPair.failure(pair.serverEvents))
        #expect(alert.code == .alertReceived)
        #expect(alert.alert?.isFatal == true)
        #expect(pair.client.keys == nil && pair.server.keys == nil)
    }

    /// The server checks the client's certificate the same way.
    @Test func aMismatchFailsOnTheServerThatChecks() throws {
        let pair = try DTLSPair(serverSees: try TestIdentities.mallory())
        pair.start()
        try pair.deliver()
        #expect(DTLSPair.failure(pair.serverEvents)?.code == .fingerprintMismatch)
        #expect(DTLSPair.failure(pair.clientEvents)?.code == .alertReceived)
        #expect(pair.client.keys == nil && pair.server.keys == nil)
    }

    /// The offerer may hear the ClientHello before the answer's fingerprint (RFC 5763 §5): the handshake
    /// completes, and the keys wait for the fingerprint.
    @Test(arguments: [true, false])
    func keysWaitForALateFingerprint(_ matches: Bool) throws {
        let pair = try DTLSPair { _, server in server.remoteFingerprints = [] }
        pair.start()
        try pair.deliver()
        #expect(pair.server.state == .awaitingFingerprint)
        #expect(pair.server.keys == nil && DTLSPair.keys(pair.serverEvents) == nil)
        #expect(pair.server.nextDeadline != nil)
        let fingerprint = try (matches ? TestIdentities.alice() : TestIdentities.mallory()).fingerprint
        let actions = pair.server.setRemoteFingerprints([fingerprint], at: pair.now)
        if matches {
            #expect(DTLSPair.keys(actions) == pair.client.keys?.mirrored)
            #expect(pair.server.state == .connected)
        } else {
            #expect(DTLSPair.failure(actions)?.code == .fingerprintMismatch)
            #expect(pair.server.keys == nil)
        }
    }

    /// Without a fingerprint ever, no keys ever: the wait ends at the handshake deadline.
    @Test func noFingerprintMeansNoKeys() throws {
        let pair = try DTLSPair { _, server in server.remoteFingerprints = [] }
        pair.start()
        try pair.deliver()
        pair.advance(to: pair.now + .seconds(15))
        #expect(DTLSPair.failure(pair.serverEvents)?.code == .handshakeTimeout)
        #expect(pair.server.keys == nil)
    }

    /// The strongest hash function offered is the one that counts (RFC 8122 §5); sha-1 alone is accepted.
    @Test func theStrongestHashFunctionDecides() throws {
        let bob = try TestIdentities.bob()
        let mallory = try TestIdentities.mallory()
        func run(_ fingerprints: [Fingerprint]) throws -> DTLSError.Code? {
            let pair = try DTLSPair { client, _ in client.remoteFingerprints = fingerprints }
            pair.start()
            try pair.deliver()
            return pair.client.keys == nil ? DTLSPair.failure(pair.clientEvents)?.code : nil
        }
        func fingerprint(_ identity: DTLSIdentity, _ hash: String) throws -> Fingerprint {
            try #require(identity.fingerprint(hashFunction: hash))
        }
        #expect(try run([fingerprint(bob, "sha-1")]) == nil)
        #expect(try run([fingerprint(bob, "sha-512")]) == nil)
        #expect(try run([fingerprint(mallory, "sha-1"), fingerprint(bob, "sha-256")]) == nil)
        #expect(try run([fingerprint(bob, "sha-1"), fingerprint(mallory, "sha-256")]) == .fingerprintMismatch)
        #expect(try run([Fingerprint(hashFunction: "md5", bytes: Array(repeating: 1, count: 16))]) != nil)
    }
}

extension DTLSSRTPKeys {
    /// The peer's view of the same keys.
    var mirrored: DTLSSRTPKeys {
        DTLSSRTPKeys(profile: profile, localMasterKeySalt: remoteMasterKeySalt, remoteMasterKeySalt: localMasterKeySalt)
    }
}

@Suite("DTLS identities on disk")
struct DTLSIdentityFileTests {
    @Test func anIdentityLoadsFromPEMFiles() throws {
        let alice = try TestIdentities.alice()
        let folder = "/tmp/sb-dtls-identity-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try alice.certificatePEM.write(toFile: folder + "/cert.pem", atomically: true, encoding: .utf8)
        try alice.privateKeyPEM.write(toFile: folder + "/key.pem", atomically: true, encoding: .utf8)
        let loaded = try DTLSIdentity(certificateFile: folder + "/cert.pem", privateKeyFile: folder + "/key.pem")
        #expect(loaded.fingerprint == alice.fingerprint)
    }

    /// Generated certificates differ (fresh key, random serial) and carry the validity asked for.
    @Test func generatedIdentitiesAreFresh() throws {
        let one = try DTLSIdentity.generate(notBefore: 1_700_000_000, lifetime: .seconds(86_400))
        let two = try DTLSIdentity.generate(notBefore: 1_700_000_000, lifetime: .seconds(86_400))
        #expect(one.fingerprint != two.fingerprint)
        #expect(one.certificatePEM != two.certificatePEM)
    }
}
