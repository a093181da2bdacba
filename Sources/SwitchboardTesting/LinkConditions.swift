/// How a virtual link treats what crosses it. Datagrams can be lost, delayed, reordered (by jitter) and
/// duplicated; stream bytes are only delayed, in order, as TCP would deliver them.
public struct LinkConditions: Sendable, Hashable {
    /// One-way delay of every datagram and stream segment.
    public var latency: Duration
    /// Extra delay drawn uniformly from zero to this, per datagram; more than the packet spacing reorders.
    public var jitter: Duration
    /// The fraction of datagrams dropped (0...1).
    public var loss: Double
    /// The fraction of datagrams delivered twice (0...1).
    public var duplication: Double

    /// - Parameters:
    ///   - latency: one-way delay.
    ///   - jitter: the largest extra delay per datagram.
    ///   - loss: the fraction of datagrams dropped.
    ///   - duplication: the fraction of datagrams delivered twice.
    public init(
        latency: Duration = .milliseconds(1), jitter: Duration = .zero, loss: Double = 0, duplication: Double = 0
    ) {
        self.latency = latency
        self.jitter = jitter
        self.loss = loss
        self.duplication = duplication
    }

    /// A clean link with 1 ms of latency.
    public static let perfect = LinkConditions()

    /// A link that drops everything (a partition).
    public static let down = LinkConditions(loss: 1)
}
