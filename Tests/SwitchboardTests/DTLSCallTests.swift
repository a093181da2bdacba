import DTLS
import Foundation
import Media
import SDP
import SIPTransport
import SwitchboardTesting
import Testing

@testable import Switchboard

/// DTLS-SRTP in calls between two providers in virtual time (RFC 5763, RFC 5764): the handshake on the media
/// path, keys from it in both directions, the WebRTC profile with ICE, and the failures that end a call.
@Suite("DTLS-SRTP calls between two providers", .serialized)
struct DTLSCallTests {
    @Test func twoProvidersKeyTheirMediaByDTLSAndHearEachOther() async throws {
        let pair = try ICEPair(
            alice: {
                $0.srtp = .mandatory
                $0.srtpKeying = .dtls
            },
            bob: { $0.srtp = .optional })
        defer { pair.close() }
        // Round trips longer than a packet interval: media ticks come while the handshake runs.
        pair.world.network.setConditions(LinkConditions(latency: .milliseconds(30)))
        let (alice, bob) = try await pair.connect()
        let aliceCall = try #require(pair.connectedCall(pair.aliceDelegate, alice))
        let bobCall = try #require(pair.connectedCall(pair.bobDelegate, bob))
        // `connected` comes once the keys are in force, with the suite both sides agreed on.
        #expect(aliceCall.isSecure && aliceCall.srtpKeying == .dtls && aliceCall.srtpSuite == .aesGCM128)
        #expect(bobCall.isSecure && bobCall.srtpKeying == .dtls && bobCall.srtpSuite == .aesGCM128)
        pair.world.advance(by: .seconds(2))
        // Each side's SRTP opens the other's: the keys agree in both directions.
        #expect(pair.hearsBothWays)
        #expect(pair.sipTrace.contains("UDP/TLS/RTP/SAVP "))
        #expect(pair.attributeValues("setup", from: ICEPair.aliceHost).first == "actpass")
        #expect(pair.attributeValues("setup", from: ICEPair.bobHost).first == "active")
        #expect(pair.attributeValues("fingerprint", from: ICEPair.bobHost).first?.hasPrefix("sha-256 ") == true)
        #expect(pair.attributeValues("crypto", from: ICEPair.aliceHost).isEmpty)
        // Bob (active) is the DTLS client; his media waits for the keys: no plain RTP before his second flight.
        #expect(pair.clientHellos(from: ICEPair.bobHost) == 1)
        let secondFlight = try #require(pair.dtlsRecords(from: ICEPair.bobHost).dropFirst().first?.time)
        let early = pair.world.network.records.filter { record in
            !record.isSIP && record.source.host == ICEPair.bobHost && record.time <= secondFlight
                && record.bytes.first.map { (128...191).contains($0) } == true
        }
        #expect(early.isEmpty)
        #expect(pair.clientHellos(from: ICEPair.aliceHost) == 0)
        #expect(!pair.dtlsRecords(from: ICEPair.aliceHost).isEmpty)
    }

    @Test func aStrayClientHelloDoesNotEndAPlainCall() async throws {
        let pair = try ICEPair(
            alice: {
                $0.srtp = .optional
                $0.mediaPorts = 40_000...40_001
                $0.dtlsHandshakeTimeout = .seconds(3)
            },
            bob: { $0.srtp = .off })
        defer { pair.close() }
        let (alice, _) = try await pair.connect()
        // Someone else starts a DTLS handshake on Alice's media port, and goes quiet.
        let stranger = try ScriptedPeer(world: pair.world, host: "10.0.0.66", port: 4444)
        let client = try DTLSEngine(configuration: .init(role: .client, identity: try DTLSIdentity.generate()))
        for case .send(let hello) in client.start(at: .zero) {
            stranger.send(bytes: hello, to: SocketAddress(ip: ICEPair.aliceHost, port: 40_000)!)
        }
        pair.world.advance(by: .seconds(10))
        // Alice's side answered it (a server for an offer of hers that the answer may still name), then let it
        // go when it timed out: the call, which has no DTLS, goes on.
        #expect(!pair.dtlsRecords(from: ICEPair.aliceHost).isEmpty)
        #expect(pair.alice.call(with: alice)?.state == .connected)
        #expect(pair.hearsBothWays)
    }

    @Test func theWebRTCProfileRunsOverICE() async throws {
        let pair = try ICEPair(
            alice: {
                $0.usesWebRTCProfile = true
                $0.codecs = [.opus]
                $0.icePolicy = .on
            },
            bob: {
                $0.srtp = .mandatory
                $0.codecs = [.opus]
                $0.icePolicy = .on
            })
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        let aliceCall = try #require(pair.connectedCall(pair.aliceDelegate, alice))
        #expect(aliceCall.srtpKeying == .dtls && aliceCall.srtpSuite == .aesGCM128)
        #expect(aliceCall.mediaPath?.candidateType == .host)
        #expect(pair.connectedCall(pair.bobDelegate, bob)?.srtpKeying == .dtls)
        pair.world.advance(by: .seconds(2))
        #expect(pair.hearsBothWays)
        #expect(pair.sipTrace.contains("UDP/TLS/RTP/SAVPF "))
        #expect(pair.attributeValues("group", from: ICEPair.aliceHost).first == "BUNDLE 0")
        #expect(pair.attributeValues("group", from: ICEPair.bobHost).first == "BUNDLE 0")
        #expect(pair.attributeValues("mid", from: ICEPair.bobHost).first == "0")
        #expect(
            pair.attributeValues("extmap", from: ICEPair.aliceHost).first == "1 urn:ietf:params:rtp-hdrext:sdes:mid")
        #expect(pair.sipTrace.contains("a=rtcp-rsize"))
        #expect(pair.clientHellos(from: ICEPair.bobHost) == 1)
    }

    @Test func anOpportunisticDTLSOfferToAPlainPeerGivesAPlainCall() async throws {
        let pair = try ICEPair(
            alice: {
                $0.srtp = .optional
                $0.srtpKeying = .dtls
            },
            bob: { $0.srtp = .off })
        defer { pair.close() }
        let (alice, _) = try await pair.connect()
        let aliceCall = try #require(pair.connectedCall(pair.aliceDelegate, alice))
        #expect(!aliceCall.isSecure && aliceCall.srtpKeying == nil)
        #expect(pair.sipTrace.contains("RTP/AVP "))
        #expect(pair.attributeValues("fingerprint", from: ICEPair.aliceHost).count == 1)
        #expect(pair.attributeValues("fingerprint", from: ICEPair.bobHost).isEmpty)
        pair.world.advance(by: .seconds(2))
        #expect(pair.hearsBothWays)
        #expect(pair.dtlsRecords(from: ICEPair.aliceHost).isEmpty)
    }

    @Test func aWebRTCOfferRefusedByAPlainPeerGoesOutAgainPlain() async throws {
        let pair = try ICEPair(alice: { $0.usesWebRTCProfile = true }, bob: { $0.srtp = .off })
        defer { pair.close() }
        let (alice, _) = try await pair.connect()
        let aliceCall = try #require(pair.connectedCall(pair.aliceDelegate, alice))
        #expect(!aliceCall.isSecure && aliceCall.srtpKeying == nil)
        // The first INVITE offered the profile and got 488; the second offered RTP/AVP.
        #expect(pair.sipTrace.contains("SIP/2.0 488"))
        #expect(pair.sipTrace.contains("UDP/TLS/RTP/SAVPF"))
        #expect(pair.sipTrace.components(separatedBy: "INVITE sip:").count - 1 == 2)
        pair.world.advance(by: .seconds(2))
        #expect(pair.hearsBothWays)
    }

    @Test func aSuppliedCertificateIsTheOneTheSDPNames() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-dtls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = try SelfSignedCertificate(host: "alice.example.com", directory: folder.path)
        let expected = try DTLSIdentity(certificateFile: files.certificateFile, privateKeyFile: files.privateKeyFile)
        let pair = try ICEPair(
            alice: {
                $0.srtp = .mandatory
                $0.srtpKeying = .dtls
                $0.dtlsCertificateFile = files.certificateFile
                $0.dtlsPrivateKeyFile = files.privateKeyFile
            },
            bob: { $0.srtp = .optional })
        defer { pair.close() }
        let (alice, _) = try await pair.connect()
        #expect(pair.connectedCall(pair.aliceDelegate, alice)?.srtpKeying == .dtls)
        #expect(
            pair.attributeValues("fingerprint", from: ICEPair.aliceHost).first == expected.fingerprint.attributeValue)
        // A certificate without its key is refused at start.
        var halfConfigured = CallProviderConfiguration(srtp: .optional)
        halfConfigured.dtlsCertificateFile = files.certificateFile
        #expect(throws: CallError.self) {
            _ = try pair.world.makeProvider(configuration: halfConfigured, host: "10.0.0.9")
        }
    }

    @Test func signallingOnlyDTLSCallsConnectWithoutAHandshake() async throws {
        let pair = try ICEPair(
            alice: {
                $0.usesWebRTCProfile = true
                $0.mediaMode = .signallingOnly
            },
            bob: {
                $0.srtp = .optional
                $0.mediaMode = .signallingOnly
            })
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        // Load tests negotiate the profile without media: `connected` does not wait for keys that never come.
        #expect(pair.connectedCall(pair.aliceDelegate, alice)?.srtpKeying == .dtls)
        #expect(pair.connectedCall(pair.bobDelegate, bob)?.srtpSuite == nil)
    }

    @Test func aFingerprintMismatchEndsTheCallOnBothSides() async throws {
        let pair = try ICEPair(
            alice: {
                $0.srtp = .mandatory
                $0.srtpKeying = .dtls
                $0.advertisesForeignDTLSFingerprint = true
            },
            bob: { $0.srtp = .optional })
        defer { pair.close() }
        let uuid = try await pair.aliceController.startCall(to: Handle(type: .generic, value: pair.bobURI))
        let invite = try #require(await pair.bobDelegate.invite(seconds: 15))
        try await pair.bobController.answerCall(invite.callUUID)
        let bobEnd = try #require(await pair.bobDelegate.ended(invite.callUUID, seconds: 15))
        let aliceEnd = try #require(await pair.aliceDelegate.ended(uuid, seconds: 15))
        // Bob checks Alice's certificate against her SDP's fingerprint, and refuses it.
        #expect(bobEnd.reason == .mediaSecurityFailed)
        #expect(bobEnd.mediaSecurityFailure?.kind == .fingerprintMismatch)
        #expect(bobEnd.reasonPhrase == "DTLS fingerprint mismatch")
        // Alice hears Bob's alert.
        #expect(aliceEnd.reason == .mediaSecurityFailed)
        #expect(aliceEnd.mediaSecurityFailure?.kind == .peerRefused)
        #expect(pair.connectedCall(pair.aliceDelegate, uuid) == nil)
    }

    @Test func aSilentPeerEndsTheCallAtTheHandshakeTimeout() async throws {
        let pair = try ICEPair(
            alice: {
                $0.srtp = .mandatory
                $0.srtpKeying = .dtls
                $0.mediaPorts = 40_000...40_001
                $0.dtlsHandshakeTimeout = .seconds(5)
            },
            bob: {
                $0.srtp = .optional
                $0.dtlsHandshakeTimeout = .seconds(5)
            })
        defer { pair.close() }
        // Nothing Bob sends to Alice's RTP port arrives: his ClientHellos are lost, and Alice hears nothing.
        pair.world.network.blockUDP(from: ICEPair.bobHost, to: ICEPair.aliceHost, port: 40_000)
        let start = pair.world.loop.elapsedTime
        let uuid = try await pair.aliceController.startCall(to: Handle(type: .generic, value: pair.bobURI))
        let invite = try #require(await pair.bobDelegate.invite(seconds: 15))
        try await pair.bobController.answerCall(invite.callUUID)
        let aliceEnd = try #require(await pair.aliceDelegate.ended(uuid, seconds: 30))
        let bobEnd = try #require(await pair.bobDelegate.ended(invite.callUUID, seconds: 30))
        let elapsed = pair.world.loop.elapsedTime - start
        #expect(aliceEnd.reason == .mediaSecurityFailed)
        #expect(aliceEnd.mediaSecurityFailure?.kind == .handshakeTimeout)
        #expect(aliceEnd.reasonPhrase == "DTLS handshake timeout")
        #expect(bobEnd.reason == .mediaSecurityFailed || bobEnd.reason == .remoteEnded)
        #expect(elapsed >= .seconds(5) && elapsed < .seconds(8))
        #expect(pair.world.network.blockedDatagrams > 0)
    }

    @Test func holdAndResumeKeepTheAssociation() async throws {
        let pair = try ICEPair(
            alice: {
                $0.srtp = .mandatory
                $0.srtpKeying = .dtls
            },
            bob: { $0.srtp = .optional })
        defer { pair.close() }
        let (alice, _) = try await pair.connect()
        pair.world.advance(by: .seconds(1))
        try await pair.aliceController.request(CallTransaction(action: SetHeldCallAction(call: alice, onHold: true)))
        pair.world.advance(by: .seconds(1))
        try await pair.aliceController.request(CallTransaction(action: SetHeldCallAction(call: alice, onHold: false)))
        pair.world.advance(by: .seconds(2))
        // Re-offers keep the tls-id (RFC 8842 §5.2) and the answer its role: no new handshake.
        let tlsIDs = pair.attributeValues("tls-id", from: ICEPair.aliceHost)
        #expect(tlsIDs.count >= 3 && Set(tlsIDs).count == 1)
        #expect(Set(pair.attributeValues("setup", from: ICEPair.bobHost)) == ["active"])
        #expect(pair.clientHellos(from: ICEPair.bobHost) == 1)
        #expect(pair.hearsBothWays)
    }
    @Test func opusDTXSilenceSendsLittleAndTheMediaTimeoutWaits() async throws {
        let pair = try ICEPair(
            alice: {
                $0.usesWebRTCProfile = true
                $0.codecs = [.opus]
                $0.audio = CallAudio(input: .silence)
                $0.mediaTimeout = .seconds(2)
            },
            bob: {
                $0.srtp = .optional
                $0.codecs = [.opus]
                $0.audio = CallAudio(input: .silence)
                $0.mediaTimeout = .seconds(2)
            })
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        // Alice's offer asks for DTX (RFC 7587 §6.1): Bob's encoder stops sending in silence.
        #expect(pair.attributeValues("fmtp", from: ICEPair.aliceHost).first?.hasSuffix(";usedtx=1") == true)
        pair.world.advance(by: .seconds(2))
        let start = pair.world.loop.elapsedTime
        pair.world.advance(by: .seconds(10))
        let fromBob = pair.world.network.records.filter { record in
            !record.isSIP && record.source.host == ICEPair.bobHost && record.time >= start
                && record.bytes.count > 1 && record.bytes[0] >= 128 && !(192...223).contains(record.bytes[1])
        }
        // 500 packets in 10 s without DTX; libopus sends a frame every 400 ms or so in DTX.
        #expect(fromBob.count < 100, "\(fromBob.count) packets")
        #expect(pair.alice.call(with: alice)?.state == .connected)
        #expect(pair.bob.call(with: bob)?.state == .connected)
    }
}
