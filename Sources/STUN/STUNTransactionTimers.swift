/// The retransmission parameters of a STUN client transaction (RFC 8489 §6.2.1, §6.2.2).
///
/// Over UDP the request is sent up to Rc times, the first interval RTO doubling after each send, and the
/// transaction fails Rm × RTO after the last send: with the defaults at 0, 0.5, 1.5, 3.5, 7.5, 15.5 and 31.5 s,
/// failing at 39.5 s. Over TCP or TLS it is sent once and fails after Ti.
public struct STUNTransactionTimers: Hashable, Sendable {
    /// The initial retransmission timeout, 500 ms by default (§6.2.1 recommends at least 500 ms).
    public var rto: Duration
    /// The most times a request is sent over UDP, 7 by default.
    public var rc: Int
    /// After the last send the client waits Rm × RTO, 16 by default.
    public var rm: Int
    /// How long a request over a reliable transport waits for its response, 39.5 s by default (§6.2.2).
    public var ti: Duration

    /// - Parameters:
    ///   - rto: the initial retransmission timeout.
    ///   - rc: the most sends over UDP (at least 1 is used).
    ///   - rm: the multiple of RTO waited after the last send.
    ///   - ti: the timeout over reliable transports.
    public init(
        rto: Duration = .milliseconds(500), rc: Int = 7, rm: Int = 16, ti: Duration = .milliseconds(39_500)
    ) {
        self.rto = rto
        self.rc = rc
        self.rm = rm
        self.ti = ti
    }
}
