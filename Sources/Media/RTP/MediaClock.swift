#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A point on a monotonic clock, in nanoseconds from an arbitrary origin.
///
/// The packet half of the media stack is sans-I/O: it never reads a clock by itself. Callers pass the
/// instant a packet arrived or a frame is due, so tests run minutes of virtual time in milliseconds.
public struct MediaInstant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin.
    public var nanoseconds: Int64

    /// - Parameter nanoseconds: nanoseconds since the clock's origin.
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// The clock's origin.
    public static let zero = MediaInstant(nanoseconds: 0)

    /// The instant `milliseconds` after the origin (convenient in tests and traces).
    public static func milliseconds(_ milliseconds: Int64) -> MediaInstant {
        MediaInstant(nanoseconds: milliseconds &* 1_000_000)
    }

    /// The instant `seconds` after the origin.
    public static func seconds(_ seconds: Int64) -> MediaInstant {
        MediaInstant(nanoseconds: seconds &* 1_000_000_000)
    }

    public static func < (lhs: MediaInstant, rhs: MediaInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// The instant `duration` later.
    public static func + (lhs: MediaInstant, rhs: Duration) -> MediaInstant {
        MediaInstant(nanoseconds: lhs.nanoseconds &+ rhs.nanoseconds)
    }

    /// The time from `rhs` to `lhs`.
    public static func - (lhs: MediaInstant, rhs: MediaInstant) -> Duration {
        .nanoseconds(lhs.nanoseconds &- rhs.nanoseconds)
    }

    public var description: String { "\(Double(nanoseconds) / 1e6) ms" }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating far beyond any media time scale).
    @usableFromInline
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return scaled &+ attoseconds / 1_000_000_000
    }

    /// The duration in seconds as a floating-point value.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}

/// A 64-bit NTP timestamp (RFC 3550 §4): seconds since 1 January 1900 in the high 32 bits, the fraction of
/// a second in the low 32.
public struct NTPTimestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The whole 64 bits.
    public var rawValue: UInt64

    /// - Parameter rawValue: seconds in the high 32 bits, the binary fraction in the low 32.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// - Parameters:
    ///   - seconds: seconds since 1900.
    ///   - fraction: the binary fraction of a second.
    public init(seconds: UInt32, fraction: UInt32) { rawValue = UInt64(seconds) << 32 | UInt64(fraction) }

    /// The NTP time of a Unix time given in nanoseconds since 1970 (NTP's era 0 ends in 2036: the seconds
    /// wrap there, as RFC 3550 §4 expects).
    public init(unixNanoseconds: Int64) {
        let seconds = unixNanoseconds / 1_000_000_000
        let nanoseconds = UInt64(unixNanoseconds - seconds * 1_000_000_000)
        let ntpSeconds = UInt32(truncatingIfNeeded: seconds &+ NTPTimestamp.unixEpoch)
        self.init(seconds: ntpSeconds, fraction: UInt32((nanoseconds << 32) / 1_000_000_000))
    }

    /// Seconds between 1900 and 1970.
    static let unixEpoch: Int64 = 2_208_988_800

    /// The seconds part.
    public var seconds: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 32) }
    /// The fraction part.
    public var fraction: UInt32 { UInt32(truncatingIfNeeded: rawValue) }
    /// The middle 32 bits, in units of 1/65536 s: what LSR carries (RFC 3550 §6.4.1).
    public var middle32: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 16) }

    public static func < (lhs: NTPTimestamp, rhs: NTPTimestamp) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "\(seconds).\(fraction)" }
}

/// The clocks the RTCP session reads: a monotonic clock for intervals and delays, and the wall clock for
/// the NTP timestamps of sender reports and the arrival time of the RTT computation (RFC 3550 §6.4.1).
///
/// Injected so that tests control time; ``SystemMediaClock`` is the real one.
public protocol MediaClock: Sendable {
    /// The monotonic time now.
    func now() -> MediaInstant
    /// The wall-clock time now, as NTP.
    func wallclock() -> NTPTimestamp
}

extension MediaClock {
    /// The wall-clock time at the monotonic clock's origin (``MediaInstant/zero``), from one reading of
    /// each: what ``MediaSessionConfiguration/wallclockAtOrigin`` takes, so that a session's sender reports
    /// carry this clock's NTP time without the session reading a clock.
    public func wallclockAtOrigin() -> NTPTimestamp {
        let instant = now()
        return NTPTimestamp(rawValue: wallclock().rawValue &- instant.ntpUnits)
    }
}

extension MediaInstant {
    /// The time since the origin in NTP units (2^-32 s), in two's complement before the origin.
    var ntpUnits: UInt64 {
        var (seconds, nanoseconds) = self.nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        if nanoseconds < 0 {
            seconds -= 1
            nanoseconds += 1_000_000_000
        }
        return UInt64(bitPattern: seconds) << 32 &+ UInt64(nanoseconds) << 32 / 1_000_000_000
    }
}

/// `CLOCK_MONOTONIC` and `CLOCK_REALTIME`.
public struct SystemMediaClock: MediaClock {
    public init() {}

    public func now() -> MediaInstant { MediaInstant(nanoseconds: Self.read(CLOCK_MONOTONIC)) }

    public func wallclock() -> NTPTimestamp { NTPTimestamp(unixNanoseconds: Self.read(CLOCK_REALTIME)) }

    private static func read(_ clock: clockid_t) -> Int64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }
}
