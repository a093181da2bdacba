/// A point on a monotonic clock, in nanoseconds from an arbitrary origin.
///
/// The STUN transaction never reads a clock: the driver passes the current instant with every event and
/// gets back the instant its timer must fire, so tests run a 39.5-second schedule in microseconds.
public struct STUNInstant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin.
    public var nanoseconds: Int64

    /// - Parameter nanoseconds: nanoseconds since the clock's origin.
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// The clock's origin.
    public static let zero = STUNInstant(nanoseconds: 0)

    /// The instant `milliseconds` after the origin.
    public static func milliseconds(_ milliseconds: Int64) -> STUNInstant {
        STUNInstant(nanoseconds: milliseconds &* 1_000_000)
    }

    public static func < (lhs: STUNInstant, rhs: STUNInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// The instant `duration` later (saturating at the ends of the clock).
    public static func + (lhs: STUNInstant, rhs: Duration) -> STUNInstant {
        let (seconds, attoseconds) = rhs.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let nanoseconds = overflow ? (seconds < 0 ? Int64.min : .max) : scaled &+ attoseconds / 1_000_000_000
        let (sum, sumOverflow) = lhs.nanoseconds.addingReportingOverflow(nanoseconds)
        return STUNInstant(nanoseconds: sumOverflow ? (nanoseconds < 0 ? .min : .max) : sum)
    }

    public var description: String { "\(Double(nanoseconds) / 1e6) ms" }
}
