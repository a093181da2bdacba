import STUN
import Testing

@testable import ICE

/// The Binding responder of the agent (RFC 8445 §7.3, RFC 8489 §6.3.1, §9.1.3), one request at a time.
@Suite("ICE Binding responder")
struct ResponderTests {
    typealias F = Fixtures
    static let base = F.v4("10.0.0.1", 5000)
    static let peer = F.v4("10.0.0.2", 6000)

    static func agent() throws -> Agent {
        var agent = F.agent(.controlled, seed: 80)
        _ = try agent.addLocalCandidate(.host(address: base, localPreference: 65_534), at: .zero)
        return agent
    }

    static func request(
        username: String, key: STUNKey?, fingerprint: Bool = true, extra: [STUNAttribute] = [],
        priority: Bool = true, tieBreaker: UInt64 = 1
    ) -> [UInt8] {
        var generator = SplitMix64(seed: 81)
        var attributes: [STUNAttribute] = [.username(username)]
        if priority { attributes.append(.priority(1_862_270_975)) }
        attributes.append(.iceControlling(tieBreaker: tieBreaker))
        attributes += extra
        let message = STUNMessage(
            .request, .binding, transactionID: .random(using: &generator), attributes: attributes)
        return message.encoded(integrity: key.map { STUNIntegrity(key: $0) }, fingerprint: fingerprint)
    }

    static func response(_ actions: [ICEAgentAction]) -> STUNReceivedMessage? {
        for case .send(let bytes, let from, let to) in actions where from == base && to == peer {
            return try? STUNReceivedMessage(decoding: bytes)
        }
        return nil
    }

    @Test("a valid check gets XOR-MAPPED-ADDRESS, integrity with the local pwd and FINGERPRINT")
    func success() throws {
        var agent = try Self.agent()
        let key = STUNKey.shortTerm(password: agent.localCredentials.password)
        let bytes = Self.request(username: "\(agent.localCredentials.ufrag):peer", key: key)
        let response = try #require(Self.response(agent.receive(bytes, on: Self.base, from: Self.peer, at: .zero)))
        #expect(response.message.messageClass == .successResponse)
        #expect(response.message.xorMappedAddress == Self.peer)
        #expect(response.isAuthentic(with: key))
        #expect(response.hasFingerprint)
        // The source became a peer-reflexive remote candidate with the request's PRIORITY (§7.3.1.3).
        #expect(agent.remoteCandidates.first?.type == .peerReflexive)
        #expect(agent.remoteCandidates.first?.priority == 1_862_270_975)
        #expect(agent.pairList.first?.state == .waiting)
    }

    @Test(
        "refusals: 400, 401, 420 (RFC 8489 §6.3.1, §9.1.3)",
        arguments: ["no-integrity", "no-fingerprint", "wrong-ufrag", "wrong-key", "unknown", "no-priority"])
    func refusals(_ fault: String) throws {
        var agent = try Self.agent()
        let key = STUNKey.shortTerm(password: agent.localCredentials.password)
        let ufrag = agent.localCredentials.ufrag
        let bytes: [UInt8]
        let expected: STUNErrorCode
        switch fault {
        case "no-integrity": (bytes, expected) = (Self.request(username: "\(ufrag):p", key: nil), .badRequest)
        case "no-fingerprint":
            (bytes, expected) = (Self.request(username: "\(ufrag):p", key: key, fingerprint: false), .badRequest)
        case "wrong-ufrag": (bytes, expected) = (Self.request(username: "zzzz:p", key: key), .unauthenticated)
        case "wrong-key":
            (bytes, expected) = (
                Self.request(username: "\(ufrag):p", key: .shortTerm(password: "wrong")), .unauthenticated
            )
        case "unknown":
            (bytes, expected) = (
                Self.request(
                    username: "\(ufrag):p", key: key, extra: [STUNAttribute(type: .init(rawValue: 0x7F01), value: [1])]),
                .unknownAttribute
            )
        default: (bytes, expected) = (Self.request(username: "\(ufrag):p", key: key, priority: false), .badRequest)
        }
        let response = try #require(Self.response(agent.receive(bytes, on: Self.base, from: Self.peer, at: .zero)))
        #expect(response.message.messageClass == .errorResponse)
        #expect(response.message.errorCode?.code == expected)
        if expected == .unknownAttribute {
            #expect(response.message.unknownAttributes == [STUNAttributeType(rawValue: 0x7F01)])
            #expect(response.isAuthentic(with: key))
        }
        if expected == .unauthenticated { #expect(!response.hasMessageIntegrity) }
        #expect(agent.remoteCandidates.isEmpty)
    }

    @Test("garbage, other methods and unknown bases are ignored")
    func ignored() throws {
        var agent = try Self.agent()
        let actions = agent.receive([0x80, 1, 2, 3], on: Self.base, from: Self.peer, at: .zero)
        #expect(actions.allSatisfy { if case .send = $0 { false } else { true } })
        let key = STUNKey.shortTerm(password: agent.localCredentials.password)
        let bytes = Self.request(username: "\(agent.localCredentials.ufrag):p", key: key)
        #expect(Self.response(agent.receive(bytes, on: F.v4("10.9.9.9", 1), from: Self.peer, at: .zero)) == nil)
        #expect(agent.statistics.ignored == 2)
    }

    @Test("a controlled agent with the larger tie-breaker becomes controlling on ICE-CONTROLLED")
    func conflictOnRequest() throws {
        var agent = try Self.agent()
        let key = STUNKey.shortTerm(password: agent.localCredentials.password)
        var generator = SplitMix64(seed: 82)
        let message = STUNMessage(
            .request, .binding, transactionID: .random(using: &generator),
            attributes: [
                .username("\(agent.localCredentials.ufrag):p"), .priority(1), .iceControlled(tieBreaker: 0),
            ])
        let actions = agent.receive(
            message.encoded(integrity: STUNIntegrity(key: key), fingerprint: true), on: Self.base, from: Self.peer,
            at: .zero)
        #expect(agent.role == .controlling)
        #expect(actions.contains(.event(.roleChanged(.controlling))))
        #expect(Self.response(actions)?.message.messageClass == .successResponse)
        // With the largest tie-breaker the peer wins: 487.
        let other = STUNMessage(
            .request, .binding, transactionID: .random(using: &generator),
            attributes: [
                .username("\(agent.localCredentials.ufrag):p"), .priority(1), .iceControlling(tieBreaker: .max),
            ])
        var agent2 = agent
        let refused = agent2.receive(
            other.encoded(integrity: STUNIntegrity(key: key), fingerprint: true), on: Self.base, from: Self.peer,
            at: .zero)
        if agent2.tieBreaker == .max {
            #expect(Self.response(refused)?.message.errorCode?.code == .roleConflict)
        } else {
            #expect(agent2.role == .controlled)
        }
    }

    @Test("the password never shows in descriptions or mirrors")
    func redaction() throws {
        var agent = try Self.agent()
        var generator = SplitMix64(seed: 83)
        let remote = ICECredentials.random(using: &generator)
        _ = agent.setRemoteParameters(credentials: remote, isLite: false, at: .zero)
        _ = try agent.addRemoteCandidate(.host(address: Self.peer, localPreference: 1), at: .zero)
        _ = agent.advance(to: .milliseconds(1))
        var dumped = ""
        dump(agent, to: &dumped)
        for text in [agent.description, dumped, "\(agent)"] {
            #expect(!text.contains(agent.localCredentials.password))
            #expect(!text.contains(remote.password))
        }
    }

    @Test("memory: agent and per-pair state")
    func memory() {
        let agent = MemoryLayout<Agent>.size
        let pair = MemoryLayout<ICECandidatePair>.stride
        let check = MemoryLayout<ICEPendingCheck>.stride
        let candidate = MemoryLayout<ICECandidate>.stride
        print("ICE memory: agent \(agent) B, pair \(pair) B, pending check \(check) B, candidate \(candidate) B")
        #expect(pair <= 128)
    }
}
