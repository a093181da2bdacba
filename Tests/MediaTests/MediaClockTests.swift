import Media
import Testing

@Suite("Media clock")
struct MediaClockTests {
    /// A clock stopped at one reading of each kind.
    struct StoppedClock: MediaClock {
        var instant: MediaInstant
        var wall: NTPTimestamp

        func now() -> MediaInstant { instant }
        func wallclock() -> NTPTimestamp { wall }
    }

    @Test func theWallclockAtTheOriginIsTheWallclockLessTheMonotonicTime() {
        let clock = StoppedClock(
            instant: .milliseconds(12_500), wall: NTPTimestamp(seconds: 3_900_000_012, fraction: 0x8000_0000))
        #expect(clock.wallclockAtOrigin() == NTPTimestamp(seconds: 3_900_000_000, fraction: 0))
    }

    @Test func anInstantBeforeTheOriginMovesTheOriginLater() {
        let clock = StoppedClock(instant: .milliseconds(-1_500), wall: NTPTimestamp(seconds: 100, fraction: 0))
        #expect(clock.wallclockAtOrigin() == NTPTimestamp(seconds: 101, fraction: 0x8000_0000))
    }
}
