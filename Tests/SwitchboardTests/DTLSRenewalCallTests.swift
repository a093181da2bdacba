import Foundation
import SIPTransport
import SwitchboardTesting
import Synchronization
import Testing

@testable import Switchboard

extension ICEPair {
    /// DTLS records (first byte 20...63, RFC 7983) Alice or Bob sent on the media path.
    func dtlsRecords(from host: String) -> [NetworkRecord] {
        world.network.records.filter { record in
            !record.isSIP && record.source.host == host && record.bytes.first.map { (20...63).contains($0) } == true
        }
    }

    /// ClientHellos sent (a handshake record, 22, whose message type is 1), counted once per datagram.
    func clientHellos(from host: String) -> Int {
        dtlsRecords(from: host).filter { $0.bytes.count > 13 && $0.bytes[0] == 22 && $0.bytes[13] == 1 }.count
    }

    /// ChangeCipherSpec records (content type 20, RFC 6347 §4.1) Alice or Bob sent: one per side and handshake
    /// that reached its keys.
    func changeCipherSpecs(from host: String) -> Int {
        dtlsRecords(from: host).reduce(0) { count, record in
            var found = 0
            var offset = 0
            let bytes = record.bytes
            while offset + 13 <= bytes.count {
                if bytes[offset] == 20 { found += 1 }
                offset += 13 + (Int(bytes[offset + 11]) << 8 | Int(bytes[offset + 12]))
            }
            return count + found
        }
    }

    /// The SIP requests of a method Alice and Bob sent (retransmissions included).
    func requests(_ method: String) -> Int { sipTrace.components(separatedBy: "\(method) sip:").count - 1 }

    /// Whether a delegate heard the call end.
    func ended(_ delegate: RecordingDelegate, _ uuid: UUID) -> Bool {
        delegate.events.withLock { $0 }.contains { $0.kind == .ended && $0.call?.uuid == uuid }
    }
}

/// A new DTLS association asked for mid-call (RFC 8842 §5.2): a re-INVITE with a new tls-id from either side
/// makes a new handshake with new keys while the call keeps its audio; a re-INVITE that keeps the tls-id (an
/// ICE restart among them) makes none; a call that cannot renew sends nothing.
@Suite("New DTLS associations in calls", .serialized)
struct DTLSRenewalCallTests {
    private static let alice = ICEPair.aliceHost
    private static let bob = ICEPair.bobHost

    /// Alice offers DTLS-SRTP; Bob is configured for SDES offers and answers her DTLS.
    private func dtlsPair() throws -> ICEPair {
        try ICEPair(
            alice: {
                $0.srtp = .mandatory
                $0.srtpKeying = .dtls
            },
            bob: { $0.srtp = .optional })
    }

    @Test func theOffererRenewsAndANewHandshakeKeysTheCall() async throws {
        let pair = try dtlsPair()
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        pair.world.advance(by: .seconds(1))
        #expect(pair.clientHellos(from: Self.bob) == 1)
        try pair.alice.renewDTLSAssociation(for: alice)
        pair.world.advance(by: .seconds(2))
        // Alice's re-INVITE names a new association (a new tls-id, actpass); Bob's answer has a new tls-id too
        // and keeps him active, so he starts a second handshake, and both sides reach its keys.
        let aliceIDs = pair.attributeValues("tls-id", from: Self.alice)
        let bobIDs = pair.attributeValues("tls-id", from: Self.bob)
        #expect(aliceIDs.count == 2 && Set(aliceIDs).count == 2)
        #expect(bobIDs.count == 2 && Set(bobIDs).count == 2)
        #expect(pair.attributeValues("setup", from: Self.alice) == ["actpass", "actpass"])
        #expect(pair.attributeValues("setup", from: Self.bob) == ["active", "active"])
        #expect(pair.requests("INVITE") == 2)
        #expect(pair.clientHellos(from: Self.bob) == 2)
        #expect(pair.clientHellos(from: Self.alice) == 0)
        #expect(pair.changeCipherSpecs(from: Self.alice) == 2 && pair.changeCipherSpecs(from: Self.bob) == 2)
        // Nothing is sent without keys: the tones heard in the last second crossed under the new ones.
        #expect(pair.hearsBothWays)
        #expect(pair.alice.call(with: alice)?.state == .connected && pair.bob.call(with: bob)?.state == .connected)
        #expect(pair.alice.call(with: alice)?.srtpSuite == .aesGCM128)
        #expect(!pair.ended(pair.aliceDelegate, alice) && !pair.ended(pair.bobDelegate, bob))
    }

    @Test func theAnswererRenewsAndTheRolesTurn() async throws {
        let pair = try dtlsPair()
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        pair.world.advance(by: .seconds(1))
        try pair.bob.renewDTLSAssociation(for: bob)
        pair.world.advance(by: .seconds(2))
        // Bob, who answered the call (and is configured for SDES offers), re-offers DTLS with a new tls-id and
        // actpass; Alice answers with a new tls-id as the active side, and this handshake is hers.
        let aliceIDs = pair.attributeValues("tls-id", from: Self.alice)
        let bobIDs = pair.attributeValues("tls-id", from: Self.bob)
        #expect(aliceIDs.count == 2 && Set(aliceIDs).count == 2)
        #expect(bobIDs.count == 2 && Set(bobIDs).count == 2)
        #expect(pair.attributeValues("setup", from: Self.bob) == ["active", "actpass"])
        #expect(pair.attributeValues("setup", from: Self.alice) == ["actpass", "active"])
        #expect(pair.attributeValues("crypto", from: Self.bob).isEmpty)
        #expect(pair.clientHellos(from: Self.bob) == 1)
        #expect(pair.clientHellos(from: Self.alice) == 1)
        #expect(pair.changeCipherSpecs(from: Self.alice) == 2 && pair.changeCipherSpecs(from: Self.bob) == 2)
        #expect(pair.hearsBothWays)
        #expect(pair.alice.call(with: alice)?.state == .connected && pair.bob.call(with: bob)?.state == .connected)
        #expect(!pair.ended(pair.aliceDelegate, alice) && !pair.ended(pair.bobDelegate, bob))
    }

    @Test func anICERestartKeepsTheAssociation() async throws {
        let pair = try ICEPair(
            alice: {
                $0.usesWebRTCProfile = true
                $0.icePolicy = .on
            },
            bob: {
                $0.srtp = .mandatory
                $0.icePolicy = .on
            })
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        pair.world.advance(by: .seconds(1))
        pair.alice.restartICE(for: alice)
        pair.world.advance(by: .seconds(3))
        // New ICE credentials both ways, the same tls-ids: RFC 8842 §5.2, an ICE restart alone is no new
        // association, so no second handshake.
        #expect(Set(pair.attributeValues("ice-ufrag", from: Self.alice)).count == 2)
        #expect(Set(pair.attributeValues("ice-ufrag", from: Self.bob)).count == 2)
        let aliceIDs = pair.attributeValues("tls-id", from: Self.alice)
        let bobIDs = pair.attributeValues("tls-id", from: Self.bob)
        #expect(aliceIDs.count >= 2 && Set(aliceIDs).count == 1)
        #expect(bobIDs.count >= 2 && Set(bobIDs).count == 1)
        #expect(pair.clientHellos(from: Self.bob) == 1)
        #expect(pair.changeCipherSpecs(from: Self.alice) == 1 && pair.changeCipherSpecs(from: Self.bob) == 1)
        #expect(pair.hearsBothWays)
        #expect(pair.bob.call(with: bob)?.state == .connected)
    }

    @Test(arguments: [SRTPPolicy.off, .mandatory])
    func aCallWithoutDTLSRefusesAndSendsNothing(_ srtp: SRTPPolicy) async throws {
        let pair = try ICEPair(alice: { $0.srtp = srtp }, bob: { $0.srtp = srtp })
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        let invites = pair.requests("INVITE")
        // A plain call, or one keyed by SDES: nothing to renew.
        let error = try #require(throws: CallError.self) { try pair.alice.renewDTLSAssociation(for: alice) }
        #expect(error.kind == .invalidAction)
        #expect(error.detail?.contains("no DTLS association") == true)
        #expect(throws: CallError.unknownCallUUID) { try pair.bob.renewDTLSAssociation(for: UUID()) }
        pair.world.advance(by: .seconds(2))
        #expect(pair.requests("INVITE") == invites)
        #expect(pair.bob.call(with: bob)?.state == .connected)
        #expect(pair.hearsBothWays)
    }

    @Test func aSecondRenewalWhileTheFirstIsOutIsRefused() async throws {
        let pair = try dtlsPair()
        defer { pair.close() }
        let (alice, _) = try await pair.connect()
        pair.world.advance(by: .seconds(1))
        try pair.alice.renewDTLSAssociation(for: alice)
        // The first re-INVITE awaits its answer: the second is refused, not queued.
        let error = try #require(throws: CallError.self) { try pair.alice.renewDTLSAssociation(for: alice) }
        #expect(error.kind == .invalidAction)
        #expect(error.detail?.contains("in progress") == true)
        pair.world.advance(by: .seconds(2))
        #expect(pair.requests("INVITE") == 2)
        #expect(Set(pair.attributeValues("tls-id", from: Self.alice)).count == 2)
        #expect(pair.clientHellos(from: Self.bob) == 2)
        #expect(pair.hearsBothWays)
        // Once answered, the call can renew again.
        try pair.alice.renewDTLSAssociation(for: alice)
        pair.world.advance(by: .seconds(2))
        #expect(Set(pair.attributeValues("tls-id", from: Self.alice)).count == 3)
        #expect(pair.clientHellos(from: Self.bob) == 3)
        #expect(pair.hearsBothWays)
    }
}
