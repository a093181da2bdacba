import Foundation
import SIPTransport
import STUN
import SwitchboardTesting
import Synchronization
import Testing

@testable import Switchboard

/// ICE in calls between two providers in virtual time (RFC 8445, SDP per RFC 8839): candidates in the SDP,
/// the selected pair in the events, a peer without ICE, restarts and consent.
@Suite("ICE calls between two providers", .serialized)
struct ICECallTests {
    @Test func hostPairCarriesTheCallBothWays() async throws {
        let pair = try ICEPair(alice: { $0.icePolicy = .on }, bob: { $0.icePolicy = .on })
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        let aliceCall = try #require(pair.connectedCall(pair.aliceDelegate, alice))
        let bobCall = try #require(pair.connectedCall(pair.bobDelegate, bob))
        #expect(
            aliceCall.mediaPath
                == CallMediaPath(
                    candidateType: .host, localAddress: "10.0.0.1:\(port(aliceCall))",
                    remoteAddress: "10.0.0.2:\(port(bobCall))"))
        #expect(bobCall.mediaPath?.candidateType == .host)
        #expect(bobCall.mediaPath?.remoteAddress == aliceCall.mediaPath?.localAddress)
        pair.world.advance(by: .seconds(2))
        #expect(pair.hearsBothWays)
        // RFC 8839: credentials, ice2, the candidates (component 2 offered, since rtcp-mux is not mux-only),
        // rtcp-mux accepted so the answer has component 1 only.
        let offered = pair.attributeValues("candidate", from: ICEPair.aliceHost)
        let answered = pair.attributeValues("candidate", from: ICEPair.bobHost)
        #expect(offered.contains { $0.contains(" 1 UDP ") && $0.hasSuffix("typ host") })
        #expect(offered.contains { $0.contains(" 2 UDP ") && $0.hasSuffix("typ host") })
        #expect(!answered.isEmpty && answered.allSatisfy { $0.contains(" 1 UDP ") })
        #expect(pair.attributeValues("ice-options", from: ICEPair.aliceHost).first == "ice2")
        #expect(pair.attributeValues("ice-ufrag", from: ICEPair.bobHost).first?.count == 8)
        #expect(pair.attributeValues("rtcp-mux", from: ICEPair.bobHost).isEmpty)
        #expect(pair.sipTrace.contains("a=rtcp-mux"))
        if ProcessInfo.processInfo.environment["ICE_TRACE"] != nil { print(pair.sipTrace) }
    }

    /// The port of a call's path's local address.
    private func port(_ call: Call) -> String {
        String(call.mediaPath?.localAddress.split(separator: ":").last ?? "")
    }

    @Test func aPeerWithoutICEGetsAPlainCall() async throws {
        let pair = try ICEPair(alice: { $0.icePolicy = .on }, bob: { $0.icePolicy = .off })
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        #expect(pair.connectedCall(pair.aliceDelegate, alice)?.mediaPath == nil)
        #expect(pair.connectedCall(pair.bobDelegate, bob)?.mediaPath == nil)
        #expect(pair.attributeValues("ice-ufrag", from: ICEPair.bobHost).isEmpty)
        pair.world.advance(by: .seconds(2))
        #expect(pair.hearsBothWays)
    }

    @Test func anOfferWithoutICEIsAnsweredPlainly() async throws {
        let pair = try ICEPair(alice: { $0.icePolicy = .off }, bob: { $0.icePolicy = .on })
        defer { pair.close() }
        let (_, bob) = try await pair.connect()
        #expect(pair.connectedCall(pair.bobDelegate, bob)?.mediaPath == nil)
        #expect(pair.attributeValues("candidate", from: ICEPair.bobHost).isEmpty)
        pair.world.advance(by: .seconds(2))
        #expect(pair.hearsBothWays)
    }

    @Test func aSTUNServerIsAskedAndANATlessMappingIsNotOffered() async throws {
        let world = VirtualWorld(seed: 3)
        let stun = try ScriptedSTUNServer(world: world, host: "192.0.2.50")
        let pair = try ICEPair(
            world: world, alice: { $0.stunServers = [STUNServer(host: "192.0.2.50")] },
            bob: { $0.stunServers = [STUNServer(host: "192.0.2.50")] })
        defer { pair.close() }
        let (alice, _) = try await pair.connect()
        // A server configured and no policy: ICE is on. Without a NAT the mapping is the host address, which
        // RFC 8445 §5.1.3 calls redundant: only host candidates go out.
        #expect(pair.connectedCall(pair.aliceDelegate, alice)?.mediaPath?.candidateType == .host)
        #expect(stun.answered >= 3)
        #expect(!pair.sipTrace.contains("typ srflx"))
    }

    @Test func relayOnlyWithoutATURNServerFailsTheCall() async throws {
        let pair = try ICEPair(alice: { $0.icePolicy = .relayOnly }, bob: { $0.icePolicy = .on })
        defer { pair.close() }
        let uuid = try await pair.aliceController.startCall(to: Handle(type: .generic, value: pair.bobURI))
        let details = try #require(await pair.aliceDelegate.ended(uuid))
        #expect(details.reason == .failed)
        #expect(details.reasonPhrase == "No ICE candidate")
        #expect(!pair.sipTrace.contains("INVITE sip:"))
    }

    /// RFC 8445 §12.1: media goes on a valid pair before anything is selected. Every nomination is lost here,
    /// so neither side ever selects: each connects on its valid pair a second after it has one (not at the
    /// 10 s connectivity timeout, and without failing), and the audio flows both ways.
    @Test func mediaFlowsOnAValidPairWhileEveryNominationIsLost() async throws {
        let pair = try ICEPair(alice: { $0.icePolicy = .on }, bob: { $0.icePolicy = .on })
        defer { pair.close() }
        pair.world.network.dropDatagrams { view in
            (try? STUNReceivedMessage(decoding: view.bytes))?.message.hasUseCandidate ?? false
        }
        let uuid = try await pair.aliceController.startCall(to: Handle(type: .generic, value: pair.bobURI))
        let invite = try #require(await pair.bobDelegate.invite(seconds: 5))
        try await pair.bobController.answerCall(invite.callUUID)
        let answered = pair.world.loop.elapsedTime
        let aliceCall = try #require(await pair.aliceDelegate.connected(uuid, seconds: 15))
        let bobCall = try #require(await pair.bobDelegate.connected(invite.callUUID, seconds: 15))
        #expect(pair.world.loop.elapsedTime - answered < .seconds(3))
        #expect(aliceCall.mediaPath?.candidateType == .host)
        #expect(bobCall.mediaPath?.remoteAddress == aliceCall.mediaPath?.localAddress)
        pair.world.advance(by: .seconds(2))
        #expect(pair.hearsBothWays)
        #expect(pair.aliceDelegate.events.withLock { $0 }.allSatisfy { $0.kind != .ended })
    }

    @Test func consentLossEndsTheCallWithin30Seconds() async throws {
        let pair = try ICEPair(alice: { $0.icePolicy = .on }, bob: { $0.icePolicy = .on })
        defer { pair.close() }
        let (alice, _) = try await pair.connect()
        pair.world.advance(by: .seconds(8))
        let cut = pair.world.loop.elapsedTime
        pair.world.network.setConditions(.down, between: ICEPair.aliceHost, and: ICEPair.bobHost)
        let details = try #require(await pair.aliceDelegate.ended(alice, seconds: 60))
        let after = pair.world.loop.elapsedTime - cut
        #expect(details.reason == .connectivityLost)
        #expect(details.reasonPhrase == "ICE consent lost")
        // RFC 7675 §5.1: 30 s after the last response, which came at most one consent interval (4-6 s) before
        // the cut.
        #expect(after <= .seconds(30))
        #expect(after >= .seconds(23))
    }

    @Test func holdAndResumeKeepTheCredentials() async throws {
        let pair = try ICEPair(alice: { $0.icePolicy = .on }, bob: { $0.icePolicy = .on })
        defer { pair.close() }
        let (alice, _) = try await pair.connect()
        pair.world.advance(by: .seconds(1))
        try await pair.aliceController.request(CallTransaction(action: SetHeldCallAction(call: alice, onHold: true)))
        pair.world.advance(by: .seconds(1))
        try await pair.aliceController.request(CallTransaction(action: SetHeldCallAction(call: alice, onHold: false)))
        pair.world.advance(by: .seconds(2))
        // Re-offers after completion name the selected pair only, with the same credentials (no restart).
        let bobUfrags = pair.attributeValues("ice-ufrag", from: ICEPair.bobHost)
        let aliceUfrags = pair.attributeValues("ice-ufrag", from: ICEPair.aliceHost)
        #expect(bobUfrags.count >= 3 && Set(bobUfrags).count == 1)
        #expect(aliceUfrags.count >= 3 && Set(aliceUfrags).count == 1)
        #expect(pair.attributeValues("remote-candidates", from: ICEPair.aliceHost).count >= 2)
        #expect(pair.attributeValues("remote-candidates", from: ICEPair.bobHost).isEmpty)
        #expect(pair.hearsBothWays)
        #expect(pair.alice.call(with: alice)?.mediaPath?.candidateType == .host)
    }
}

@Suite("ICE restarts", .serialized)
struct ICERestartTests {
    @Test func aReofferWithNewCredentialsRestartsBothSides() async throws {
        let pair = try ICEPair(alice: { $0.icePolicy = .on }, bob: { $0.icePolicy = .on })
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        pair.world.advance(by: .seconds(1))
        pair.alice.restartICE(for: alice)
        pair.world.advance(by: .seconds(3))
        // RFC 8445 §9: the offer has new credentials, so the answer has new ones too; the pair selected anew is
        // the same host pair, so no media-path update is reported, and audio goes on.
        let aliceUfrags = pair.attributeValues("ice-ufrag", from: ICEPair.aliceHost)
        let bobUfrags = pair.attributeValues("ice-ufrag", from: ICEPair.bobHost)
        #expect(Set(aliceUfrags).count == 2)
        #expect(Set(bobUfrags).count == 2)
        #expect(pair.alice.call(with: alice)?.mediaPath?.candidateType == .host)
        #expect(pair.bob.call(with: bob)?.state == .connected)
        let updates = pair.aliceDelegate.events.withLock { $0 }.filter { $0.update?.mediaPath != nil }
        #expect(updates.isEmpty)
        pair.world.advance(by: .seconds(1))
        #expect(pair.hearsBothWays)
        // Consent keeps running on the new pair: the call outlives the old pair's 30 s.
        pair.world.advance(by: .seconds(40))
        #expect(pair.alice.call(with: alice)?.state == .connected)
    }
}

/// rtcp-mux (RFC 5761, RFC 8858) accepted and declined, with ICE and without.
@Suite("rtcp-mux with and without ICE", .serialized)
struct RTCPMuxCallTests {
    @Test(arguments: [ICEPolicy.on, .off])
    func aDeclinedMuxFallsBackToTheRTCPPort(_ policy: ICEPolicy) async throws {
        let pair = try ICEPair(
            alice: { $0.icePolicy = policy },
            bob: {
                $0.icePolicy = policy
                $0.offersRTCPMux = false
            })
        defer { pair.close() }
        let (alice, bob) = try await pair.connect()
        pair.world.advance(by: .seconds(12))
        #expect(pair.attributeValues("rtcp-mux", from: ICEPair.bobHost).isEmpty)
        // RTCP crossed both ways on the separate port: each side has a round-trip time from SR/RR.
        #expect(pair.alice.call(with: alice)?.quality?.roundTripMilliseconds != nil)
        #expect(pair.bob.call(with: bob)?.quality?.roundTripMilliseconds != nil)
        #expect(pair.hearsBothWays)
        if policy == .on {
            // Component 2 is checked too: Bob's answer offers it, both sides select a pair for it.
            #expect(pair.attributeValues("candidate", from: ICEPair.bobHost).contains { $0.contains(" 2 UDP ") })
            let rtcpPort = pair.world.network.records.contains { record in
                !record.isSIP && record.source.host == ICEPair.aliceHost && record.source.port % 2 == 1
                    && record.bytes.count > 1 && (200...204).contains(record.bytes[1])
            }
            #expect(rtcpPort)
        }
    }

    @Test func anAcceptedMuxUsesOnePort() async throws {
        let pair = try ICEPair(alice: { $0.icePolicy = .on }, bob: { $0.icePolicy = .on })
        defer { pair.close() }
        let (alice, _) = try await pair.connect()
        pair.world.advance(by: .seconds(12))
        #expect(pair.alice.call(with: alice)?.quality?.roundTripMilliseconds != nil)
        let oddPorts = pair.world.network.records.filter { record in
            !record.isSIP && (record.source.port % 2 == 1 || record.destination.port % 2 == 1)
        }
        #expect(oddPorts.isEmpty)
    }
}
