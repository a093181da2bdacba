import ICE
import STUN

typealias Agent = ICEAgent<SplitMix64>

enum Fixtures {
    static func v4(_ text: String, _ port: UInt16) -> STUNTransportAddress {
        let octets = text.split(separator: ".").compactMap { UInt32($0) }
        return STUNTransportAddress(address: .v4(octets.reduce(0) { $0 << 8 | $1 }), port: port)
    }

    static func ip(_ text: String) -> UInt32 {
        text.split(separator: ".").compactMap { UInt32($0) }.reduce(0) { $0 << 8 | $1 }
    }

    static func agent(
        _ role: ICERole, seed: UInt64, configure: (inout ICEAgentConfiguration) -> Void = { _ in }
    ) -> Agent {
        var configuration = ICEAgentConfiguration(initialRole: role)
        configure(&configuration)
        var generator = SplitMix64(seed: seed &* 1000)
        let credentials = ICECredentials.random(using: &generator)
        return Agent(configuration: configuration, credentials: credentials, generator: SplitMix64(seed: seed))
    }

    static let stunServer = v4("192.0.2.200", 3478)
    static let turnServer = STUNIPAddress.v4(ip("192.0.2.100"))
}

/// An ice-lite peer (RFC 8445 §2.5) in miniature: it answers checks and notes USE-CANDIDATE, nothing more.
struct LitePeer: SimulatedPeer {
    var credentials: ICECredentials
    var nominated: STUNTransportAddress?

    mutating func receive(
        _ bytes: [UInt8], on base: STUNTransportAddress, from source: STUNTransportAddress, at now: STUNInstant
    ) -> [ICEAgentAction] {
        let key = STUNKey.shortTerm(password: credentials.password)
        guard let received = try? STUNReceivedMessage(decoding: bytes), received.message.messageClass == .request,
            received.isAuthentic(with: key)
        else { return [] }
        if received.message.hasUseCandidate { nominated = source }
        let id = received.message.transactionID
        let response = STUNMessage(
            .successResponse, .binding, transactionID: id, attributes: [.xorMappedAddress(source, transactionID: id)])
        return [.send(response.encoded(integrity: STUNIntegrity(key: key), fingerprint: true), from: base, to: source)]
    }

    mutating func advance(to now: STUNInstant) -> [ICEAgentAction] { [] }
}

extension Simulation where A == Agent, B == Agent {
    /// Both agents get their local candidates; A learns B's parameters now, B learns A's after `answerDelay`.
    mutating func exchange(
        aLocal: [ICECandidate], bLocal: [ICECandidate], answerDelay: Duration = .zero
    ) throws {
        for candidate in aLocal { apply(try a.addLocalCandidate(candidate, at: now), from: 0) }
        for candidate in bLocal { apply(try b.addLocalCandidate(candidate, at: now), from: 1) }
        try signalToA(bLocal)
        if answerDelay > .zero { run(until: now + answerDelay) }
        try signalToB(aLocal)
    }

    mutating func signalToA(_ candidates: [ICECandidate]) throws {
        apply(a.setRemoteParameters(credentials: b.localCredentials, isLite: false, at: now), from: 0)
        for candidate in candidates { apply(try a.addRemoteCandidate(candidate, at: now), from: 0) }
    }

    mutating func signalToB(_ candidates: [ICECandidate]) throws {
        apply(b.setRemoteParameters(credentials: a.localCredentials, isLite: false, at: now), from: 1)
        for candidate in candidates { apply(try b.addRemoteCandidate(candidate, at: now), from: 1) }
    }

    var bothCompleted: Bool { a.state == .completed && b.state == .completed }

    /// When the later of the two agents selected its pair (component 1), in milliseconds.
    var selectionTime: Int64? {
        guard let x = firstTime(0, where: Self.isSelected), let y = firstTime(1, where: Self.isSelected) else {
            return nil
        }
        return max(x, y).nanoseconds / 1_000_000
    }

    static func isSelected(_ event: ICEEvent) -> Bool {
        if case .selected = event { return true }
        return false
    }

    /// A line for the report: time to selection and checks started on each side.
    func summary(_ name: String) -> String {
        "ICE \(name): selected at \(selectionTime.map(String.init) ?? "-") ms virtual; checks started A=\(a.statistics.checksStarted) B=\(b.statistics.checksStarted), "
            + "requests sent A=\(a.statistics.checkRequestsSent) B=\(b.statistics.checkRequestsSent), dropped \(network.dropped)"
    }
}
