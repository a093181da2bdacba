public import STUN

/// What an ``ICEAgent`` asks its driver to do, in order.
public enum ICEAgentAction: Hashable, Sendable {
    /// Send `bytes` from the local base `from` to `to`. A base that is a relayed candidate's address is sent
    /// through its TURN allocation by the driver; any other base is a local socket.
    case send([UInt8], from: STUNTransportAddress, to: STUNTransportAddress)
    /// Call ``ICEAgent/advance(to:)`` at this instant (it replaces any earlier request).
    case armTimer(at: STUNInstant)
    /// Something the integrator should know.
    case event(ICEEvent)
}

/// What happened in an ``ICEAgent``.
public enum ICEEvent: Hashable, Sendable {
    /// A connectivity check succeeded (RFC 8445 §7.2.5.3): the valid pair it produced.
    case pairSucceeded(ICEPairInfo)
    /// The pair for a component is selected (§8.1.1): send media from its local base to its remote address.
    /// A later selection for the same component replaces it (after an ICE restart, say).
    case selected(ICEPairInfo)
    /// Every component has a selected pair: the check list is Completed (§8.1.2).
    case completed
    /// The check list failed (§8.1.2): every pair failed and some component has no valid pair.
    case failed
    /// No consent response for 30 s on the selected pair of this component (RFC 7675 §5.1): media on it must
    /// stop now; the pair is no longer selected.
    case consentLost(ICEPairInfo)
    /// The agent's role changed: a role conflict was repaired (§7.3.1.1, §7.2.5.1) or the peer is lite.
    case roleChanged(ICERole)
}

/// The agent's role (RFC 8445 §6.1.1); there are two, so the set is closed.
public enum ICERole: Hashable, Sendable, CustomStringConvertible {
    /// Nominates pairs.
    case controlling
    /// Follows the controlling agent's nominations.
    case controlled

    public var description: String {
        switch self {
        case .controlling: "controlling"
        case .controlled: "controlled"
        }
    }
}

/// The state of a candidate pair (RFC 8445 §6.1.2.6); fixed by the RFC, so the set is closed.
public enum ICEPairState: Hashable, Sendable {
    /// Waiting for a pair of the same foundation to succeed.
    case frozen
    /// Ready for a check.
    case waiting
    /// A check is outstanding.
    case inProgress
    /// A check succeeded.
    case succeeded
    /// A check failed.
    case failed
}

/// A candidate pair as the integrator sees it: its component, candidates, priority and state.
public struct ICEPairInfo: Hashable, Sendable, CustomStringConvertible {
    /// The component ID.
    public var component: Int
    /// The local candidate (its ``ICECandidate/base`` is where media leaves from).
    public var local: ICECandidate
    /// The remote candidate.
    public var remote: ICECandidate
    /// The pair priority (§6.1.2.3).
    public var priority: UInt64
    /// The state.
    public var state: ICEPairState
    /// Whether the pair is nominated (§8.1.1).
    public var isNominated: Bool

    /// - Parameters:
    ///   - component: the component ID.
    ///   - local: the local candidate.
    ///   - remote: the remote candidate.
    ///   - priority: the pair priority.
    ///   - state: the state.
    ///   - isNominated: whether the pair is nominated.
    public init(
        component: Int, local: ICECandidate, remote: ICECandidate, priority: UInt64, state: ICEPairState,
        isNominated: Bool
    ) {
        self.component = component
        self.local = local
        self.remote = remote
        self.priority = priority
        self.state = state
        self.isNominated = isNominated
    }

    /// `1: host 192.0.2.1:5000 (base ...) -> srflx 198.51.100.7:6000`.
    public var description: String {
        "\(component): \(local.type) \(local.address) (base \(local.base)) -> \(remote.type) \(remote.address)"
    }
}
