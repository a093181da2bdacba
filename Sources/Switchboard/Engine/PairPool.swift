import SIPTransport

/// Bound RTP/RTCP pairs of ended streams, oldest first. A pair is reused only once it has rested
/// `reuseDelay` (late packets of the old call die out, as with round-robin binding over the range), at
/// most `capacity` pairs wait (the oldest is closed beyond that), and none waits longer than `idleLimit`:
/// after a burst the pool gives its sockets and ports back instead of holding the peak for good (issue 20).
///
/// When more calls end each `reuseDelay` than the pool holds (a port range too small for the rate), the
/// oldest pair would be closed before it rests `reuseDelay`, and every new call would bind a pair that
/// itself was free for less: the pool, once it had to give a pair back for want of room, lends its oldest
/// pair after `fullReuseDelay` instead, until its oldest pair has rested `reuseDelay` again: it holds a
/// second of ended calls then (issue 17).
struct PairPool {
    typealias Pair = MediaPair

    static let reuseDelay = Duration.seconds(1)
    /// The rest of the oldest pair while the pool is full: late packets of a hung-up call are in flight for a
    /// round trip, and a pair bound anew at that rate would have been free about as long (the range's free
    /// pairs over the rate). What still arrives is dropped when the pair is taken, and only what arrives
    /// after that reaches the new stream.
    static let fullReuseDelay = Duration.milliseconds(100)
    /// Most pairs waiting when no call rate is declared (and the descriptors allow it).
    static let defaultCapacity = 4096
    /// How long a pair may wait for a new call before it is closed.
    static let idleLimit = Duration.seconds(10)

    /// Most pairs waiting at once; the oldest is closed beyond it.
    let capacity: Int
    private var pairs: [Entry] = []
    private var head = 0
    /// Whether the pool gave a pair back for want of room since its oldest pair last rested `reuseDelay`:
    /// while it is, the oldest pair is lent after `fullReuseDelay`. Not cleared when takes merely thin the
    /// pool out for a moment (a batch of new calls before the ended ones come back): that would make the
    /// next calls bind pairs until the pool overflows again.
    private(set) var isFull = false

    init(capacity: Int = Self.defaultCapacity) { self.capacity = max(0, capacity) }

    /// The capacity for `expectedCallRate` new calls a second within `descriptorLimit` open descriptors and
    /// a port range of `portPairs` RTP/RTCP pairs. A pair is reused after it rested `reuseDelay` while the
    /// pool has room, so the pool should hold more than a second's worth of the calls that end (a full pool
    /// lends its pairs after only `fullReuseDelay`): 1.5 s of them, and at least `defaultCapacity`. The
    /// pooled descriptors (two a pair) leave half the limit, or 4,096, for the rest: the live calls' pairs,
    /// the signalling sockets, files. The pool holds at most half the port range's pairs (rounded up),
    /// leaving the rest to live calls: a pool holding the whole range would make each new call try every
    /// port before it is refused.
    static func capacity(expectedCallRate: Int, descriptorLimit: Int, portPairs: Int = .max) -> Int {
        let wanted = max(defaultCapacity, min(max(0, expectedCallRate), 1_000_000) * 3 / 2)
        let limit = max(0, descriptorLimit)
        let affordable = (limit - min(4096, limit / 2)) / 2
        return min(wanted, affordable, max(0, portPairs) / 2 + max(0, portPairs) % 2)
    }

    var count: Int { pairs.count - head }

    /// A waiting pair: a struct of known layout rather than a tuple with a generic clock's instant in it, which
    /// is copied through its value witnesses on every look at the oldest pair.
    private struct Entry {
        let pair: Pair
        let host: String
        let released: ContinuousClock.Instant
    }

    /// The oldest pair on `host` with its ports in `ports` that has rested long enough, if any.
    mutating func take(host: String, ports: ClosedRange<UInt16>, now: ContinuousClock.Instant) -> Pair? {
        guard head < pairs.count else { return nil }
        // Read in place: the entry is not copied out unless it is taken.
        let hasRested = pairs[head].released.advanced(by: Self.reuseDelay) <= now
        guard hasRested || (isFull && pairs[head].released.advanced(by: Self.fullReuseDelay) <= now),
            pairs[head].host == host, ports.contains(pairs[head].pair.rtp.localAddress.port)
        else { return nil }
        // The oldest pair rested the full delay: the pool holds a second of ended calls again.
        if hasRested { isFull = false }
        let pair = pairs[head].pair
        head += 1
        compact()
        return pair
    }

    /// Adds a released pair; returns the pair evicted to stay within `capacity`, if one was.
    mutating func put(_ pair: Pair, host: String, now: ContinuousClock.Instant) -> Pair? {
        pairs.append(Entry(pair: pair, host: host, released: now))
        guard count > capacity else { return nil }
        let evicted = pairs[head].pair
        head += 1
        isFull = true
        compact()
        return evicted
    }

    /// When the oldest pair passes `idleLimit`, if any pair waits.
    var nextExpiry: ContinuousClock.Instant? { head < pairs.count ? pairs[head].released + Self.idleLimit : nil }

    /// Removes and returns the pairs that have waited `idleLimit` or longer at `now`, for closing.
    mutating func expire(now: ContinuousClock.Instant) -> [Pair] {
        var expired: [Pair] = []
        while head < pairs.count, now - pairs[head].released >= Self.idleLimit {
            expired.append(pairs[head].pair)
            head += 1
        }
        if head == pairs.count {
            pairs = []
            head = 0
        } else {
            compact()
        }
        if !expired.isEmpty { isFull = false }
        return expired
    }

    /// Removes and returns up to `count` of the oldest pairs, rested or not, for closing: their descriptors
    /// are needed for a new call.
    mutating func evictOldest(_ count: Int) -> [Pair] {
        let end = min(pairs.count, head + max(0, count))
        let evicted = pairs[head..<end].map(\.pair)
        head = end
        compact()
        return evicted
    }

    mutating func removeAll() -> [Pair] {
        defer {
            pairs = []
            head = 0
            isFull = false
        }
        return pairs[head...].map(\.pair)
    }

    private mutating func compact() {
        guard head >= 1024, head * 2 >= pairs.count else { return }
        pairs.removeFirst(head)
        head = 0
    }
}
