import STUN
import Testing

@testable import ICE

/// An RFC 5245-era peer (baresip 1.0 on libre 1.1) may nominate aggressively: USE-CANDIDATE on its very first
/// check. The controlled agent notes it and selects the pair once its own triggered check succeeds (RFC 8445
/// §7.3.1.5, which keeps this working for ICE2 agents).
@Suite("ICE: aggressive nomination from an RFC 5245 peer")
struct AggressiveNominationTests {
    typealias F = Fixtures
    static let base = F.v4("10.0.0.1", 5000)
    static let peer = F.v4("10.0.0.2", 6000)

    @Test("USE-CANDIDATE on the first check selects once the triggered check succeeds")
    func firstCheckNominates() throws {
        var agent = F.agent(.controlled, seed: 90)
        _ = try agent.addLocalCandidate(.host(address: Self.base, localPreference: 65_534), at: .zero)
        var generator = SplitMix64(seed: 91)
        let peerCredentials = ICECredentials.random(using: &generator)
        _ = agent.setRemoteParameters(credentials: peerCredentials, isLite: false, at: .zero)
        _ = try agent.addRemoteCandidate(.host(address: Self.peer, localPreference: 65_534), at: .zero)
        let request = STUNMessage(
            .request, .binding, transactionID: .random(using: &generator),
            attributes: [
                .username("\(agent.localCredentials.ufrag):\(peerCredentials.ufrag)"), .priority(1_862_270_975),
                .iceControlling(tieBreaker: 1), .useCandidate,
            ])
        let key = STUNKey.shortTerm(password: agent.localCredentials.password)
        let peerKey = STUNKey.shortTerm(password: peerCredentials.password)
        var actions = agent.receive(
            request.encoded(integrity: STUNIntegrity(key: key), fingerprint: true), on: Self.base, from: Self.peer,
            at: .zero)
        var now = STUNInstant.zero
        var selected: ICEPairInfo?
        var checks = 0
        for _ in 0..<40 where selected == nil {
            for case .send(let bytes, let from, let to) in actions where from == Self.base && to == Self.peer {
                guard let check = try? STUNReceivedMessage(decoding: bytes), check.message.messageClass == .request
                else { continue }
                checks += 1
                // A controlled agent never nominates.
                #expect(!check.message.hasUseCandidate)
                let id = check.message.transactionID
                let response = STUNMessage(
                    .successResponse, .binding, transactionID: id,
                    attributes: [.xorMappedAddress(Self.base, transactionID: id)])
                actions += agent.receive(
                    response.encoded(integrity: STUNIntegrity(key: peerKey), fingerprint: true), on: Self.base,
                    from: Self.peer, at: now)
            }
            for case .event(.selected(let pair)) in actions { selected = pair }
            now = now + .milliseconds(50)
            actions = agent.advance(to: now)
        }
        #expect(selected?.remote.address == Self.peer)
        #expect(selected?.local.address == Self.base)
        #expect(agent.selectedPair(component: 1)?.isNominated == true)
        #expect(checks == 1)
    }
}
