/// The settings of a `TransactionLayer`: timer values and the limits that keep a peer from filling memory.
public struct TransactionConfiguration: Sendable, Hashable {
    /// T1, T2, T4 and the values derived from them.
    public var timers: TransactionTimers
    /// The most live transactions, client and server together. A new request beyond it is answered 503
    /// statelessly; a new client transaction beyond it is refused with `TransactionError.tooManyTransactions`.
    public var maximumTransactions: Int
    /// The Retry-After, in seconds, of the 503 sent when the table is full (§21.5.4).
    public var retryAfterSeconds: UInt32
    /// Whether a request without a To tag that matches no transaction but has the From tag, Call-ID and
    /// CSeq of a live one is answered 482 (§8.2.2.2). A user agent wants this; a proxy turns it off.
    public var detectsMergedRequests: Bool
    /// Salts the To tags of the responses the layer writes itself (482, 503). The driver should set it from
    /// a random source once (§19.3 asks for unguessable tags); the layer never reads one.
    public var tagSeed: UInt64
    /// Transactions the layer makes room for when it is created (slots and index buckets, at most
    /// `maximumTransactions`), so that a busy layer does not stop to grow its tables: growing copies every
    /// slot and rehashes every key, which at a hundred thousand transactions holds the loop for tens of
    /// milliseconds. A UAS taking N calls per second keeps about 64·N server transactions (each call's INVITE
    /// and BYE stay 64*T1 = 32 s over UDP). Zero (the default) starts empty and grows as needed; the memory
    /// is reserved, not touched, until it is used.
    public var initialCapacity: Int

    public init(
        timers: TransactionTimers = TransactionTimers(), maximumTransactions: Int = 32_768,
        retryAfterSeconds: UInt32 = 10, detectsMergedRequests: Bool = true, tagSeed: UInt64 = 0,
        initialCapacity: Int = 0
    ) {
        self.timers = timers
        self.maximumTransactions = maximumTransactions
        self.retryAfterSeconds = retryAfterSeconds
        self.detectsMergedRequests = detectsMergedRequests
        self.tagSeed = tagSeed
        self.initialCapacity = initialCapacity
    }
}

extension TransactionConfiguration {
    /// The room tables holding an entry per transaction make up front: `initialCapacity`, at most
    /// `maximumTransactions`, never negative.
    public var reservedCapacity: Int { Swift.max(0, Swift.min(initialCapacity, maximumTransactions)) }
}
