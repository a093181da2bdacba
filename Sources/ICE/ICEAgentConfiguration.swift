public import STUN

/// The knobs of an ``ICEAgent``: pacing, retransmissions, consent, and the bounds of every table.
public struct ICEAgentConfiguration: Hashable, Sendable {
    /// The role to start in (RFC 8445 §6.1.1): the offerer is controlling unless the peer is lite.
    public var initialRole: ICERole
    /// Ta, the pacing of new checks (§14.2), 50 ms by default.
    public var pacing: Duration
    /// Rc and Rm of connectivity checks; the RTO is computed per §14.3 as max(500 ms, Ta × checks in Waiting or
    /// In-Progress), and `checkTimers.rto` is its floor.
    public var checkTimers: STUNTransactionTimers
    /// How long the controlling agent waits, after the first valid pair of a component, for a better pair still
    /// being checked before it nominates the best valid one (§8.1.1), 500 ms by default.
    public var nominationDelay: Duration
    /// The mean interval of consent checks (RFC 7675 §5.1), 5 s, randomized to 0.8...1.2 of it.
    public var consentInterval: Duration
    /// Consent expires this long after the last consent response (RFC 7675 §5.1), 30 s.
    public var consentTimeout: Duration
    /// Retransmissions of one consent check.
    public var consentTimers: STUNTransactionTimers
    /// The most candidate pairs, valid pairs included (default 100, §6.1.2.5).
    public var maximumPairs: Int
    /// The most local candidates, peer-reflexive ones included (default 32).
    public var maximumLocalCandidates: Int
    /// The most remote candidates, peer-reflexive ones included (default 64).
    public var maximumRemoteCandidates: Int
    /// The most entries in the triggered-check queue (default 100).
    public var maximumTriggeredChecks: Int
    /// The most connectivity-check transactions outstanding at once (default 64).
    public var maximumPendingChecks: Int
    /// The most components (default 2: RTP and RTCP).
    public var maximumComponents: Int

    /// The defaults of RFC 8445 and RFC 7675.
    public init(initialRole: ICERole) {
        self.initialRole = initialRole
        self.pacing = .milliseconds(50)
        self.checkTimers = STUNTransactionTimers(rto: .milliseconds(500), rc: 7, rm: 16)
        self.nominationDelay = .milliseconds(500)
        self.consentInterval = .seconds(5)
        self.consentTimeout = .seconds(30)
        self.consentTimers = STUNTransactionTimers(rto: .milliseconds(500), rc: 4, rm: 8)
        self.maximumPairs = 100
        self.maximumLocalCandidates = 32
        self.maximumRemoteCandidates = 64
        self.maximumTriggeredChecks = 100
        self.maximumPendingChecks = 64
        self.maximumComponents = 2
    }
}

/// Why the agent refused an input.
///
/// The codes grow over time, so match with `==` against the static members of ``Code``.
public struct ICEAgentError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let raw: UInt8
        let name: String

        public var description: String { name }

        /// A table is full (``ICEAgentConfiguration`` bounds).
        public static let tableFull = Code(raw: 1, name: "table full")
        /// The candidate's transport, type or component is not one the agent pairs.
        public static let unsupportedCandidate = Code(raw: 2, name: "unsupported candidate")
        /// The candidate is already known.
        public static let duplicateCandidate = Code(raw: 3, name: "duplicate candidate")

        public static func == (a: Code, b: Code) -> Bool { a.raw == b.raw }
        public func hash(into hasher: inout Hasher) { hasher.combine(raw) }
    }

    /// What went wrong.
    public let code: Code
    /// More detail, fit for a log line.
    public let detail: String

    init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    public var description: String { detail.isEmpty ? code.name : "\(code.name): \(detail)" }
}
