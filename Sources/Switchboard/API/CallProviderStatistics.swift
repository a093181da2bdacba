/// What a provider holds at one instant: the figures a soak test or a monitoring probe samples to see that
/// calls, sessions, transactions and media ports come back after the calls end (`CallProvider.statistics`).
/// Members may be added; read the ones you need.
public struct CallProviderStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Calls that have not ended.
    public var liveCalls = 0
    /// Call records kept: the live calls, and ended calls whose session still finishes (a BYE in flight).
    public var calls = 0
    /// INVITE sessions: dialogs, and INVITEs still being set up or wound down.
    public var sessions = 0
    /// SIP transactions, including those that linger after their final response (Timer J, K, L: 32 s).
    public var transactions = 0
    /// Calls with an open media stream (RTP and RTCP sockets).
    public var mediaStreams = 0
    /// RTP/RTCP port pairs of ended calls kept bound for reuse; each is closed after it rests 10 s unused.
    public var pooledPortPairs = 0
    /// Media streams opened so far on a pooled port pair (no system call), and on a newly bound one: under
    /// a steady call rate nearly every stream should find a pooled pair; `expectedCallRate` sizes the pool.
    public var reusedPortPairs = 0
    public var boundPortPairs = 0

    public init() {}

    public var description: String {
        "calls=\(calls) live=\(liveCalls) sessions=\(sessions) transactions=\(transactions) "
            + "media=\(mediaStreams) pooled_pairs=\(pooledPortPairs) reused_pairs=\(reusedPortPairs) "
            + "bound_pairs=\(boundPortPairs)"
    }
}
