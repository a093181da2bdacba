import DTLS
import Media
import SDP
import Testing

@Suite("DTLS-SRTP handshakes (RFC 5764)")
struct DTLSHandshakeTests {
    static let profiles = DTLSSRTPProfile.all

    /// Both sides derive the same keys, mirrored: what the client writes with the server reads with.
    @Test(arguments: profiles)
    func handshakeDerivesMirroredKeys(_ profile: DTLSSRTPProfile) throws {
        let pair = try DTLSPair(clientProfiles: [profile], serverProfiles: [profile])
        pair.start()
        try pair.deliver()
        let client = try #require(DTLSPair.keys(pair.clientEvents))
        let server = try #require(DTLSPair.keys(pair.serverEvents))
        #expect(client.profile == profile && server.profile == profile)
        #expect(client.localMasterKeySalt == server.remoteMasterKeySalt)
        #expect(client.remoteMasterKeySalt == server.localMasterKeySalt)
        #expect(client.localMasterKeySalt != client.remoteMasterKeySalt)
        #expect(client.localMasterKeySalt.count == profile.keyLength + profile.saltLength)
        #expect(pair.client.state == .connected && pair.server.state == .connected)
        #expect(pair.client.nextDeadline == nil && pair.server.nextDeadline == nil)
        #expect(pair.client.selectedProfile == profile)
        #expect(!client.description.contains("\(client.localMasterKeySalt)"))
    }

    /// The derived keys run the existing SRTP code: the client protects, the server unprotects, and back.
    @Test(arguments: profiles)
    func derivedKeysProtectAndUnprotectAPacket(_ profile: DTLSSRTPProfile) throws {
        let pair = try DTLSPair(clientProfiles: [profile], serverProfiles: [profile])
        pair.start()
        try pair.deliver()
        let client = try #require(pair.client.keys)
        let server = try #require(pair.server.keys)
        let rtp: [UInt8] =
            [0x80, 0x6F, 0x00, 0x01, 0, 0, 0, 160, 0xDE, 0xAD, 0xBE, 0xEF] + Array(repeating: 0x55, count: 160)
        for (sender, receiver) in [(client, server), (server, client)] {
            let outbound = try SRTPContext(
                suite: sender.cryptoSuite, masterKeySalt: sender.localMasterKeySalt, direction: .outbound)
            let inbound = try SRTPContext(
                suite: receiver.cryptoSuite, masterKeySalt: receiver.remoteMasterKeySalt, direction: .inbound)
            var packet = rtp
            try outbound.protect(&packet)
            #expect(packet != rtp)
            try inbound.unprotect(&packet)
            #expect(packet == rtp)
        }
    }

    /// The server's preference decides among the profiles the client offers (OpenSSL's use_srtp rule).
    @Test func theServersPreferenceDecides() throws {
        let gcm = try DTLSPair(
            clientProfiles: [.aes128CMSHA1_80, .aeadAES128GCM], serverProfiles: [.aeadAES128GCM, .aes128CMSHA1_80])
        gcm.start()
        try gcm.deliver()
        #expect(gcm.client.keys?.profile == .aeadAES128GCM)
        let only32 = try DTLSPair(clientProfiles: [.aes128CMSHA1_32])
        only32.start()
        try only32.deliver()
        #expect(only32.client.keys?.profile == .aes128CMSHA1_32 && only32.server.keys?.profile == .aes128CMSHA1_32)
    }

    @Test func noProfileInCommonFailsBothSides() throws {
        let pair = try DTLSPair(clientProfiles: [.aes128CMSHA1_32], serverProfiles: [.aeadAES128GCM])
        pair.start()
        try pair.deliver()
        #expect(DTLSPair.failure(pair.serverEvents)?.code == .noCommonSRTPProfile)
        let client = try #require(DTLSPair.failure(pair.clientEvents))
        #expect(client.code == .noCommonSRTPProfile || client.code == .closed)
        #expect(pair.client.keys == nil && pair.server.keys == nil)
    }

    /// Records stay within the configured datagram size (certificate flights included).
    @Test(arguments: [1200, 300])
    func datagramsFitTheMTU(_ size: Int) throws {
        let pair = try DTLSPair { client, server in
            client.maximumDatagramSize = size
            server.maximumDatagramSize = size
        }
        pair.start()
        try pair.deliver()
        #expect(pair.client.state == .connected)
        #expect(!pair.clientSent.isEmpty && !pair.serverSent.isEmpty)
        #expect((pair.clientSent + pair.serverSent).allSatisfy { $0.count <= size })
    }

    /// A close_notify ends the association on both sides.
    @Test func closeIsReportedToThePeer() throws {
        let pair = try DTLSPair()
        pair.start()
        try pair.deliver()
        pair.take(pair.client.close(), fromClient: true)
        try pair.deliver()
        #expect(pair.client.state == .closed)
        #expect(pair.server.state == .closed)
        #expect(pair.serverEvents.contains(.closed))
        #expect(throws: DTLSError.self) { try pair.server.receive(pair.clientSent[0], at: pair.now) }
    }
}
