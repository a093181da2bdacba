import Foundation
import Media
import Synchronization

/// A seeded generator (SplitMix64) so that traces and random starting values repeat exactly.
struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A standard normal variate (Box-Muller).
    mutating func normal() -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}

/// A clock the test moves by hand; shared by reference so the session under test sees the moves.
final class ManualClock: MediaClock {
    private let time = Mutex((monotonic: Int64(0), wall: NTPTimestamp(seconds: 3_900_000_000, fraction: 0)))

    func now() -> MediaInstant { MediaInstant(nanoseconds: time.withLock { $0.monotonic }) }

    func wallclock() -> NTPTimestamp { time.withLock { $0.wall } }

    /// Moves both clocks forward.
    func advance(_ duration: Duration) {
        let nanoseconds =
            Int64(duration.components.seconds) * 1_000_000_000
            + duration.components.attoseconds / 1_000_000_000
        time.withLock { value in
            value.monotonic += nanoseconds
            let units = UInt64(nanoseconds) * (1 << 32) / 1_000_000_000
            value.wall = NTPTimestamp(rawValue: value.wall.rawValue &+ units)
        }
    }

    /// Moves the monotonic clock to `instant` (and the wall clock with it).
    func set(_ instant: MediaInstant) { advance(.nanoseconds(instant.nanoseconds - now().nanoseconds)) }
}

/// Bytes from a hex string (spaces ignored).
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.utf8.filter { $0 != UInt8(ascii: " ") })
    var bytes: [UInt8] = []
    var index = 0
    while index + 1 < digits.count {
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            default: c - UInt8(ascii: "A") + 10
            }
        }
        bytes.append(nibble(digits[index]) << 4 | nibble(digits[index + 1]))
        index += 2
    }
    return bytes
}
