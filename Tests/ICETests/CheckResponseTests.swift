import ICE
import STUN
import Testing

/// Responses to the agent's own checks (RFC 8445 §7.2.5): symmetry, success, 487, and peer-reflexive locals.
@Suite("ICE check responses")
struct CheckResponseTests {
    typealias F = Fixtures
    static let base = F.v4("10.0.0.1", 5000)
    static let peer = F.v4("10.0.0.2", 6000)

    /// A controlling agent whose first check to `peer` is out, with the peer's credentials and the request.
    static func agentWithCheck() throws -> (Agent, ICECredentials, STUNMessage) {
        var agent = F.agent(.controlling, seed: 90)
        var generator = SplitMix64(seed: 91)
        let remote = ICECredentials.random(using: &generator)
        _ = try agent.addLocalCandidate(.host(address: base, localPreference: 65_534), at: .zero)
        _ = agent.setRemoteParameters(credentials: remote, isLite: false, at: .zero)
        let actions = try agent.addRemoteCandidate(.host(address: peer, localPreference: 65_534), at: .zero)
        var request: STUNMessage?
        for case .send(let bytes, let from, let to) in actions where from == base && to == peer {
            request = try? STUNReceivedMessage(decoding: bytes).message
        }
        let sent = try #require(request)
        #expect(sent.username == "\(remote.ufrag):\(agent.localCredentials.ufrag)")
        #expect(sent.iceControlling == agent.tieBreaker)
        #expect(sent.priority != nil)
        return (agent, remote, sent)
    }

    static func response(
        to request: STUNMessage, mapped: STUNTransportAddress, key: STUNKey, code: STUNErrorCode? = nil
    )
        -> [UInt8]
    {
        let id = request.transactionID
        let message =
            code.map {
                STUNMessage(.errorResponse, .binding, transactionID: id, attributes: [.errorCode($0, reason: "x")])
            }
            ?? STUNMessage(
                .successResponse, .binding, transactionID: id,
                attributes: [.xorMappedAddress(mapped, transactionID: id)])
        return message.encoded(integrity: STUNIntegrity(key: key), fingerprint: true)
    }

    @Test("a symmetric success makes the pair valid")
    func success() throws {
        var (agent, remote, request) = try Self.agentWithCheck()
        let bytes = Self.response(to: request, mapped: Self.base, key: .shortTerm(password: remote.password))
        let actions = agent.receive(bytes, on: Self.base, from: Self.peer, at: .milliseconds(3))
        #expect(actions.contains { if case .event(.pairSucceeded) = $0 { true } else { false } })
        #expect(agent.pairList.first?.state == .succeeded)
        #expect(agent.statistics.checkSuccesses == 1)
    }

    @Test("§7.2.5.2.1: a response from another address fails the check")
    func notSymmetric() throws {
        var (agent, remote, request) = try Self.agentWithCheck()
        let bytes = Self.response(to: request, mapped: Self.base, key: .shortTerm(password: remote.password))
        _ = agent.receive(bytes, on: Self.base, from: F.v4("10.0.0.3", 6000), at: .milliseconds(3))
        #expect(agent.pairList.first?.state == .failed)
        #expect(agent.state == .failed)
    }

    @Test("a response that does not verify is ignored")
    func badIntegrity() throws {
        var (agent, _, request) = try Self.agentWithCheck()
        let bytes = Self.response(to: request, mapped: Self.base, key: .shortTerm(password: "not the password"))
        _ = agent.receive(bytes, on: Self.base, from: Self.peer, at: .milliseconds(3))
        #expect(agent.pairList.first?.state == .inProgress)
        #expect(agent.statistics.ignored == 1)
    }

    @Test("§7.2.5.1: 487 switches the role and checks the pair again")
    func roleConflictResponse() throws {
        var (agent, remote, request) = try Self.agentWithCheck()
        let bytes = Self.response(
            to: request, mapped: Self.base, key: .shortTerm(password: remote.password), code: .roleConflict)
        let actions = agent.receive(bytes, on: Self.base, from: Self.peer, at: .milliseconds(3))
        #expect(agent.role == .controlled)
        #expect(actions.contains(.event(.roleChanged(.controlled))))
        let later = agent.advance(to: .milliseconds(60))
        let resent = later.compactMap { action -> STUNMessage? in
            guard case .send(let bytes, _, _) = action else { return nil }
            return try? STUNReceivedMessage(decoding: bytes).message
        }
        #expect(resent.first?.iceControlled == agent.tieBreaker)
    }

    @Test("§7.2.5.3.1: an unknown mapped address becomes a peer-reflexive local candidate")
    func peerReflexiveLocal() throws {
        var (agent, remote, request) = try Self.agentWithCheck()
        let mapped = F.v4("198.51.100.1", 61_000)
        let bytes = Self.response(to: request, mapped: mapped, key: .shortTerm(password: remote.password))
        _ = agent.receive(bytes, on: Self.base, from: Self.peer, at: .milliseconds(3))
        let learned = try #require(agent.localCandidates.first { $0.type == .peerReflexive })
        #expect(learned.address == mapped && learned.base == Self.base)
        #expect(learned.priority == request.priority)
        #expect(agent.pairList.contains { $0.local.type == .peerReflexive && $0.state == .succeeded })
    }

    @Test("checks time out on the RTO schedule and fail the pair")
    func timeout() throws {
        var (agent, _, _) = try Self.agentWithCheck()
        var sends = 1
        var now = STUNInstant.zero
        while now < .milliseconds(60_000) {
            now = now + .milliseconds(100)
            for case .send in agent.advance(to: now) { sends += 1 }
        }
        #expect(sends == 7)
        #expect(agent.state == .failed)
    }
}
