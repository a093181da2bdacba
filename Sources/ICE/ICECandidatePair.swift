import STUN

/// One entry of the check list or the valid list (RFC 8445 §6.1.2): indices into the agent's candidate tables.
struct ICECandidatePair: Sendable {
    var local: Int
    var remote: Int
    var component: Int
    var priority: UInt64
    /// The local foundation, a colon, the remote foundation (§6.1.2.6: a pair's foundation is both).
    var foundation: String
    var state: ICEPairState
    /// In the check list (scheduled for checks); `false` for a valid pair that only a check's mapped address
    /// produced (§7.2.5.3.2).
    var isInCheckList: Bool
    var isValid = false
    var isNominated = false
    /// The controlled agent saw USE-CANDIDATE before this pair's check succeeded (§7.3.1.5).
    var nominateOnSuccess = false
    /// The valid pair this pair's check produced.
    var validPair: Int?
    /// When the last success response for this pair (or a check producing it) came.
    var lastResponse: STUNInstant?
}

/// A connectivity check in flight.
struct ICEPendingCheck: Sendable {
    var transaction: STUNBindingTransaction
    var pair: Int
    var isNomination: Bool
    var role: ICERole
    var base: STUNTransportAddress
    var destination: STUNTransportAddress
    var deadline: STUNInstant
    /// PRIORITY as sent: the priority of a peer-reflexive candidate learned from the response (§7.2.5.3.1).
    var reflexivePriority: UInt32
    /// Replaced by a triggered check (§7.3.1.4): no more retransmissions and no failure on timeout, but a
    /// response still counts.
    var isCancelled = false
}

/// An entry of the triggered-check queue (§6.1.4.1).
struct ICETriggeredCheck: Hashable, Sendable {
    var pair: Int
    var isNomination: Bool
}

/// Consent freshness on a selected pair (RFC 7675).
struct ICEConsent: Sendable {
    var pair: ICEPairInfo
    var nextCheck: STUNInstant
    var expiry: STUNInstant
    var transactions: [(transaction: STUNBindingTransaction, deadline: STUNInstant)] = []
}

/// Where an ``ICEAgent``'s check list is (RFC 8445 §6.1.2.1); fixed by the RFC, so the set is closed.
public enum ICECheckListState: Hashable, Sendable {
    /// Checks are under way (or waiting for candidates).
    case running
    /// Every component has a selected pair.
    case completed
    /// Every pair failed.
    case failed
}

/// Counters of an ``ICEAgent``'s work.
public struct ICEAgentStatistics: Hashable, Sendable {
    /// Connectivity checks started (first sends; consent checks excluded).
    public var checksStarted = 0
    /// Binding requests sent for connectivity checks, retransmissions included.
    public var checkRequestsSent = 0
    /// Success responses to connectivity checks.
    public var checkSuccesses = 0
    /// Requests from the peer answered (success or error).
    public var requestsAnswered = 0
    /// Consent checks sent, retransmissions included.
    public var consentRequestsSent = 0
    /// Datagrams ignored: not STUN, not Binding, unknown transaction, failed integrity on a response.
    public var ignored = 0
}
