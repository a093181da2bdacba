public import STUN

/// A full ICE agent (RFC 8445) for one data stream with one or more components, with consent freshness
/// (RFC 7675). Sans-I/O: the integrator passes candidates, datagrams and instants in, and carries out the
/// ``ICEAgentAction``s that come back.
///
/// Local candidates are gathered by the integrator (host, server-reflexive from STUN, relayed from TURN) and
/// given with ``addLocalCandidate(_:at:)``; the agent learns peer-reflexive ones itself. Remote candidates come
/// from signalling (``addRemoteCandidate(_:at:)``, trickled or all at once) and from checks. Only UDP candidates
/// are paired. The agent is always full: lite behaviour of its own is not implemented, but a lite peer is
/// handled (the agent is then controlling, §6.1.1).
///
/// Every table is bounded by ``ICEAgentConfiguration``; randomness (transaction IDs, the tie-breaker, consent
/// jitter) comes from the injected generator, which should be cryptographic outside tests (RFC 7675 §5.1).
public struct ICEAgent<Random: RandomNumberGenerator & Sendable>: Sendable {
    /// The configuration.
    public let configuration: ICEAgentConfiguration
    /// The current role.
    public internal(set) var role: ICERole
    /// The 64-bit tie-breaker of role conflicts (§7.3.1.1), drawn at creation.
    public let tieBreaker: UInt64
    /// This agent's ufrag and password (the password is never printed).
    public internal(set) var localCredentials: ICECredentials
    /// The peer's, once signalling has brought them.
    public internal(set) var remoteCredentials: ICECredentials?
    /// Whether the peer is an ice-lite agent.
    public internal(set) var isRemoteLite = false
    /// Where the check list is.
    public internal(set) var state: ICECheckListState = .running
    /// Counters.
    public internal(set) var statistics = ICEAgentStatistics()

    var previousLocalCredentials: ICECredentials?
    var random: Random
    var locals: [ICECandidate] = []
    var remotes: [ICECandidate] = []
    var pairs: [ICECandidatePair] = []
    var triggered: [ICETriggeredCheck] = []
    var pending: [ICEPendingCheck] = []
    var lastCheckAt: STUNInstant?
    var pacingDue: STUNInstant?
    /// The selected pair of each component, kept across a restart until a new one is selected.
    var selected: [Int: ICEPairInfo] = [:]
    /// Components selected since the last restart.
    var selectedNow: Set<Int> = []
    /// Component → the pair whose USE-CANDIDATE check is queued or in flight.
    var nominating: [Int: Int] = [:]
    var firstValidAt: [Int: STUNInstant] = [:]
    var consent: [Int: ICEConsent] = [:]
    var armed: STUNInstant?

    /// - Parameters:
    ///   - configuration: the role to start in, timers and bounds.
    ///   - credentials: this agent's ufrag and password (``ICECredentials/random(using:)``).
    ///   - generator: the source of transaction IDs, the tie-breaker and consent jitter.
    public init(configuration: ICEAgentConfiguration, credentials: ICECredentials, generator: Random) {
        self.configuration = configuration
        self.role = configuration.initialRole
        self.localCredentials = credentials
        self.random = generator
        self.tieBreaker = random.next()
    }

    /// Adds a local candidate gathered by the integrator and pairs it with the remote candidates (§6.1.2.2).
    /// - Throws: ``ICEAgentError`` if the table is full, the candidate is a duplicate, or it is not UDP of a
    ///   known type within 1...``ICEAgentConfiguration/maximumComponents``.
    public mutating func addLocalCandidate(_ candidate: ICECandidate, at now: STUNInstant) throws(ICEAgentError)
        -> [ICEAgentAction]
    {
        try checkPairable(candidate)
        guard !locals.contains(where: { $0.address == candidate.address && $0.component == candidate.component })
        else { throw ICEAgentError(.duplicateCandidate, "\(candidate.address)") }
        guard locals.count < configuration.maximumLocalCandidates else {
            throw ICEAgentError(.tableFull, "\(configuration.maximumLocalCandidates) local candidates")
        }
        locals.append(candidate)
        formPairs(local: locals.count - 1)
        var out: [ICEAgentAction] = []
        finish(at: now, into: &out)
        return out
    }

    /// The peer's ufrag and password and whether it is lite (from its SDP); checks can start once they are known.
    public mutating func setRemoteParameters(credentials: ICECredentials, isLite: Bool, at now: STUNInstant)
        -> [ICEAgentAction]
    {
        var out: [ICEAgentAction] = []
        remoteCredentials = credentials
        isRemoteLite = isLite
        if isLite, role == .controlled { switchRole(to: .controlling, into: &out) }
        finish(at: now, into: &out)
        return out
    }

    /// Adds a remote candidate from signalling and pairs it (§6.1.2.2). A candidate already learned as
    /// peer-reflexive takes the signalled type, priority and foundation.
    /// - Throws: ``ICEAgentError`` as ``addLocalCandidate(_:at:)``.
    public mutating func addRemoteCandidate(_ candidate: ICECandidate, at now: STUNInstant) throws(ICEAgentError)
        -> [ICEAgentAction]
    {
        try checkPairable(candidate)
        if let index = remotes.firstIndex(where: {
            $0.address == candidate.address && $0.component == candidate.component
        }) {
            guard remotes[index].type == .peerReflexive else {
                throw ICEAgentError(.duplicateCandidate, "\(candidate.address)")
            }
            remotes[index] = candidate
            recomputePriorities()
        } else {
            guard remotes.count < configuration.maximumRemoteCandidates else {
                throw ICEAgentError(.tableFull, "\(configuration.maximumRemoteCandidates) remote candidates")
            }
            remotes.append(candidate)
            formPairs(remote: remotes.count - 1)
        }
        var out: [ICEAgentAction] = []
        finish(at: now, into: &out)
        return out
    }

    /// A datagram that arrived on the local base `base` from `source`. Binding requests are answered, responses
    /// matched to checks; anything else (other STUN methods, non-STUN bytes) is ignored.
    public mutating func receive(
        _ bytes: [UInt8], on base: STUNTransportAddress, from source: STUNTransportAddress, at now: STUNInstant
    ) -> [ICEAgentAction] {
        var out: [ICEAgentAction] = []
        runDue(until: now, into: &out)
        if let received = try? STUNReceivedMessage(decoding: bytes), received.message.method == .binding {
            switch received.message.messageClass {
            case .request: answer(received, on: base, from: source, at: now, into: &out)
            case .successResponse, .errorResponse:
                handleResponse(received, on: base, from: source, at: now, into: &out)
            case .indication: statistics.ignored += 1
            }
        } else {
            statistics.ignored += 1
        }
        finish(at: now, into: &out)
        return out
    }

    /// The clock reached `now`: runs the pacing timer, retransmissions, nomination and consent that are due.
    public mutating func advance(to now: STUNInstant) -> [ICEAgentAction] {
        var out: [ICEAgentAction] = []
        finish(at: now, into: &out)
        return out
    }

    /// An ICE restart (§9): new local credentials, the remote candidates and every pair forgotten, peer-reflexive
    /// local candidates dropped. The selected pairs and their consent stay, for media, until new ones are
    /// selected. Give the peer's new parameters and candidates next.
    public mutating func restart(credentials: ICECredentials, at now: STUNInstant) -> [ICEAgentAction] {
        previousLocalCredentials = localCredentials
        localCredentials = credentials
        remoteCredentials = nil
        isRemoteLite = false
        locals.removeAll { $0.type == .peerReflexive }
        remotes = []
        pairs = []
        triggered = []
        pending = []
        nominating = [:]
        firstValidAt = [:]
        selectedNow = []
        pacingDue = nil
        state = .running
        var out: [ICEAgentAction] = []
        finish(at: now, into: &out)
        return out
    }

    /// The selected pair of `component`, if any (kept through a restart, dropped when consent is lost).
    public func selectedPair(component: Int) -> ICEPairInfo? { selected[component] }

    /// The check list and valid list, in descending priority.
    public var pairList: [ICEPairInfo] {
        pairs.indices.map(info).sorted { $0.priority > $1.priority }
    }

    /// The local candidates, peer-reflexive ones included.
    public var localCandidates: [ICECandidate] { locals }
    /// The remote candidates, peer-reflexive ones included.
    public var remoteCandidates: [ICECandidate] { remotes }

    /// What the controlling agent puts in `a=remote-candidates` of its re-offer after nomination (RFC 8839
    /// §5.2): the selected remote candidate of each component; `nil` before completion or when controlled.
    public var remoteCandidatesAttribute: [ICERemoteCandidate]? {
        guard role == .controlling, state == .completed else { return nil }
        let entries = components.sorted().compactMap { component in
            selected[component].map { ICERemoteCandidate(component: component, address: $0.remote.address) }
        }
        return entries.isEmpty ? nil : entries
    }

    /// The components the local candidates cover.
    var components: Set<Int> { Set(locals.filter { $0.type != .peerReflexive }.map(\.component)) }

    private func checkPairable(_ candidate: ICECandidate) throws(ICEAgentError) {
        guard candidate.transport == .udp, candidate.type.isKnown,
            (1...configuration.maximumComponents).contains(candidate.component)
        else {
            throw ICEAgentError(
                .unsupportedCandidate, "\(candidate.transport) \(candidate.type) component \(candidate.component)")
        }
    }
}

extension ICEAgent: CustomStringConvertible {
    /// Role, state, credentials (ufrags only) and table sizes.
    public var description: String {
        "ICEAgent(\(role), \(state), local \(localCredentials), \(locals.count) local, \(remotes.count) remote, "
            + "\(pairs.count) pairs, \(pending.count) in flight, \(selected.count) selected)"
    }
}

extension ICEAgent: CustomReflectable {
    /// What ``description`` shows: the transactions hold the peer's password as their key, so they stay hidden.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "role": role, "state": state, "localCredentials": localCredentials,
                "remoteCredentials": remoteCredentials as Any, "localCandidates": locals.count,
                "remoteCandidates": remotes.count, "pairs": pairs.count, "inFlight": pending.count,
                "selected": selected.count,
            ])
    }
}
