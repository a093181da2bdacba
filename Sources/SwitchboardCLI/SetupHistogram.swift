#if canImport(Glibc)
    import Glibc
#endif

/// Call setup times for `load`'s percentiles, in a fixed number of buckets whatever the number of calls (a list
/// of every time grows by 8 bytes a call, and copying it stalls whoever writes next). Buckets are 1/64 of a
/// doubling wide (about 1.1 %) from 1 µs to about 1,000 s; a percentile reads as its bucket's middle, within
/// about 0.6 % of the time it stands for (times under 1 µs count as 1 µs, above the last bucket as the last).
struct SetupHistogram: Sendable, Equatable {
    /// Buckets per doubling.
    static let resolution = 64.0
    /// 2^30 µs is about 1,074 s.
    static let bucketCount = 30 * 64
    private var counts = [UInt32](repeating: 0, count: bucketCount)
    private(set) var total = 0

    /// Counts one setup time.
    mutating func record(milliseconds: Double) {
        let microseconds = max(1, milliseconds * 1000)
        let index = Int((log2(microseconds) * Self.resolution).rounded(.down))
        counts[min(max(index, 0), Self.bucketCount - 1)] &+= 1
        total += 1
    }

    /// The time (ms) below which a share `p` (0...1) of the recorded times fall, as the rank
    /// `floor(total * p)` of the sorted times; 0 when none was recorded.
    func percentile(_ p: Double) -> Double {
        guard total > 0 else { return 0 }
        let rank = min(total - 1, Int((Double(total) * p).rounded(.down)))
        var seen = 0
        for (index, count) in counts.enumerated() where count > 0 {
            seen += Int(count)
            if seen > rank { return Self.middle(of: index) / 1000 }
        }
        return Self.middle(of: Self.bucketCount - 1) / 1000
    }

    /// The middle of bucket `index`, in µs.
    private static func middle(of index: Int) -> Double {
        exp2((Double(index) + 0.5) / resolution)
    }
}
