/// The jitter buffer's estimate of the network's delay spread (sans-I/O, no allocation per packet).
///
/// Each packet's relative transit time is its arrival time minus its media time. The base is the smallest
/// transit in a sliding window of `blocks` × `blockDuration`, so a drifting sender clock (whose transit
/// times creep up or down) moves the base with it. A packet's jitter is its transit above the base; a
/// histogram of jitter with exponential forgetting gives the quantile that becomes the target delay.
struct DelayEstimator: Sendable {
    static let bucketWidth = 1e6  // 1 ms in nanoseconds
    static let blockDuration: Int64 = 1_000_000_000
    static let blocks = 8

    /// The histogram, allocated with the first packet (like `minima`): a stream that receives nothing (on
    /// hold, send-only, a peer that never sends) keeps no buckets (4 KB at the default 500 ms maximum).
    private var buckets: [Double] = []
    /// How many buckets the histogram has once allocated.
    private let bucketCount: Int
    /// The highest bucket that ever received a packet: those above it are zero, so quantiles scan from here.
    private var topBucket = 0
    private var total = 0.0
    private var weight = 1.0
    private let growth: Double
    /// (block index, smallest transit in it) per slot of the window; empty until the first packet.
    private var minima: [(block: Int64, transit: Double)] = []
    private(set) var samples = 0

    /// - Parameters:
    ///   - maximum: the largest jitter tracked, in nanoseconds (larger values land in the top bucket).
    ///   - memory: the forgetting horizon in packets.
    init(maximum: Double, memory: Int) {
        bucketCount = max(Int(maximum / DelayEstimator.bucketWidth) + 2, 2)
        growth = 1 / (1 - 1 / Double(max(memory, 2)))
    }

    /// The base transit time now, in nanoseconds; `nil` before any packet.
    func base(at arrival: Int64) -> Double? {
        let block = arrival / DelayEstimator.blockDuration
        var smallest = Double.infinity
        for slot in minima where slot.block > block - Int64(DelayEstimator.blocks) && slot.transit < smallest {
            smallest = slot.transit
        }
        return smallest.isFinite ? smallest : nil
    }

    /// Adds a packet's relative transit time (nanoseconds) that arrived at `arrival` (nanoseconds).
    mutating func add(transit: Double, arrival: Int64) {
        let block = arrival / DelayEstimator.blockDuration
        let slot = Int(block.magnitude % UInt64(DelayEstimator.blocks))
        if minima.isEmpty { minima = Array(repeating: (Int64.min, .infinity), count: DelayEstimator.blocks) }
        if minima[slot].block != block { minima[slot] = (block, transit) }
        if transit < minima[slot].transit { minima[slot].transit = transit }
        guard let base = base(at: arrival) else { return }
        if buckets.isEmpty { buckets = Array(repeating: 0, count: bucketCount) }
        let index = Int(min(max(transit - base, 0) / DelayEstimator.bucketWidth, Double(bucketCount - 1)))
        buckets[index] += weight
        topBucket = max(topBucket, index)
        total += weight
        weight *= growth
        samples += 1
        if weight > 1e100 {
            for i in buckets.indices { buckets[i] /= weight }
            total /= weight
            weight = 1
        }
    }

    /// The jitter (nanoseconds above the base) below which a share `quantile` of recent packets fell.
    func jitter(quantile: Double) -> Double {
        guard total > 0, !buckets.isEmpty else { return 0 }
        let tail = (1 - quantile) * total
        var accumulated = 0.0
        for index in (0...topBucket).reversed() {
            accumulated += buckets[index]
            if accumulated > tail { return Double(index + 1) * DelayEstimator.bucketWidth }
        }
        return 0
    }
}

/// Which sequence numbers arrived recently (the 128 below the highest), to tell duplicates from late
/// packets, like SRTP's replay window.
struct SequenceWindow: Sendable {
    private(set) var highest: Int64?
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    /// Extends a 16-bit sequence number to the one nearest the highest seen.
    func extend(_ sequence: UInt16) -> Int64 {
        guard let highest else { return Int64(sequence) }
        let delta = Int16(bitPattern: sequence &- UInt16(truncatingIfNeeded: highest))
        return highest + Int64(delta)
    }

    /// What ``insert(_:)`` found.
    enum Insertion: Sendable {
        case new
        case duplicate
        case tooOld
    }

    /// Records `sequence`.
    mutating func insert(_ sequence: Int64) -> Insertion {
        guard let current = highest else {
            highest = sequence
            low = 1
            return .new
        }
        if sequence > current {
            let shift = sequence - current
            if shift >= 128 {
                low = 0
                high = 0
            } else if shift >= 64 {
                high = low << (shift - 64)
                low = 0
            } else {
                high = high << shift | low >> (64 - shift)
                low <<= shift
            }
            low |= 1
            highest = sequence
            return .new
        }
        let age = current - sequence
        guard age < 128 else { return .tooOld }
        let bit: UInt64 = 1 << (age % 64)
        if age < 64 {
            if low & bit != 0 { return .duplicate }
            low |= bit
        } else {
            if high & bit != 0 { return .duplicate }
            high |= bit
        }
        return .new
    }

    mutating func reset() { self = SequenceWindow() }
}
