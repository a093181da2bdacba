import Synchronization

/// The clock the session's RTCP machinery reads: set by the session to the time the driver passed in, so
/// nothing in a ``MediaSession`` reads a real clock. The wall clock is the configured NTP origin plus the
/// monotonic time.
@usableFromInline
final class SessionClock: MediaClock {
    private let nanoseconds: Atomic<Int64>
    private let wallclockAtOrigin: NTPTimestamp

    @usableFromInline
    init(now: MediaInstant, wallclockAtOrigin: NTPTimestamp) {
        nanoseconds = Atomic(now.nanoseconds)
        self.wallclockAtOrigin = wallclockAtOrigin
    }

    /// Moves the clock to the driver's time.
    func set(_ instant: MediaInstant) { nanoseconds.store(instant.nanoseconds, ordering: .relaxed) }

    @usableFromInline
    func now() -> MediaInstant { MediaInstant(nanoseconds: nanoseconds.load(ordering: .relaxed)) }

    @usableFromInline
    func wallclock() -> NTPTimestamp { NTPTimestamp(rawValue: wallclockAtOrigin.rawValue &+ now().ntpUnits) }
}

/// SplitMix64, seeded once from the caller's generator: the session's own draws (a new SSRC, the RTCP
/// interval's randomisation) repeat exactly in tests and cost no system call in production.
@usableFromInline
struct SessionRandom: RandomNumberGenerator, Sendable {
    @usableFromInline var state: UInt64

    @inlinable
    init(using generator: inout some RandomNumberGenerator) { state = generator.next() }

    @usableFromInline
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
