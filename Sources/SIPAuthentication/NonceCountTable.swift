/// The highest `nc` seen per nonce, for replay detection (RFC 7616 §3.4, §5.4), with a fixed capacity.
///
/// Entries leave oldest first (expired ones as soon as possible). A nonce that had to leave can no longer be
/// checked for replays, so every nonce issued at or before the newest one that left is answered as forgotten
/// (the server then challenges with `stale=true`): a full table costs a round trip, never a replay.
struct NonceCountTable: Sendable {
    enum Result: Sendable, Hashable {
        case accepted
        case replayed
        case forgotten
    }

    private struct Entry: Sendable {
        var issuedAt: UInt64
        var highestCount: UInt32
    }

    let capacity: Int
    private var entries: [String: Entry] = [:]
    /// Insertion order; `head` is the oldest still present.
    private var order: [String] = []
    private var head = 0
    /// Nonces issued before this time and not in the table are forgotten.
    private(set) var watermark: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var count: Int { entries.count }

    /// Records a use of `nonce` with `count`; `replayed` unless `count` is above every count seen for it.
    mutating func record(nonce: String, issuedAt: UInt64, count: UInt32, now: UInt64, lifetime: UInt64) -> Result {
        if var entry = entries[nonce] {
            guard count > entry.highestCount else { return .replayed }
            entry.highestCount = count
            entries[nonce] = entry
            return .accepted
        }
        guard issuedAt >= watermark else { return .forgotten }
        // Expired entries are useless: drop them from the old end first.
        while head < order.count, let oldest = entries[order[head]], oldest.issuedAt &+ lifetime < now {
            evictOldest()
        }
        entries[nonce] = Entry(issuedAt: issuedAt, highestCount: count)
        order.append(nonce)
        while entries.count > capacity { evictOldest() }
        return .accepted
    }

    private mutating func evictOldest() {
        guard head < order.count else { return }
        let nonce = order[head]
        head += 1
        if let entry = entries.removeValue(forKey: nonce) {
            watermark = max(watermark, entry.issuedAt &+ 1)
        }
        if head > 64, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }
}
