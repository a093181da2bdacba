/// The media timeout's bookkeeping: it counts only while packets are due (the negotiated direction
/// receives), and each time receiving starts the wait starts again, so a held call never times out.
@usableFromInline
struct MediaTimeoutWatch: Sendable {
    /// Since when packets have been due without a break; `nil` while none are.
    private(set) var expectingSince: MediaInstant?
    /// When the latest RTP packet arrived.
    var lastReceived: MediaInstant?

    /// Notes whether packets are due now.
    mutating func update(isReceiving: Bool, at now: MediaInstant) {
        expectingSince = isReceiving ? expectingSince ?? now : nil
    }

    /// When the timeout fires unless a packet comes first; `nil` while no packets are due.
    func deadline(after timeout: Duration) -> MediaInstant? {
        guard let since = expectingSince else { return nil }
        return max(lastReceived ?? since, since) + timeout
    }

    /// Whether the timeout fired by `now`; the next wait starts then.
    mutating func hasTimedOut(after timeout: Duration, at now: MediaInstant) -> Bool {
        guard let deadline = deadline(after: timeout), now >= deadline else { return false }
        expectingSince = now
        return true
    }
}
