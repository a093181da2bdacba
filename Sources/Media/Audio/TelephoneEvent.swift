/// A DTMF digit and its RFC 4733 §3.2 event code (0-9, * = 10, # = 11, A-D = 12-15).
public enum DTMFDigit: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case zero = 0, one, two, three, four, five, six, seven, eight, nine
    case star = 10, pound = 11
    case a = 12, b, c, d

    /// The digit for a dial-string character: `0`-`9`, `*`, `#`, `A`-`D` (or `a`-`d`); `nil` for others.
    /// - Parameter character: one character of a dial string.
    public init?(_ character: Character) {
        switch character {
        case "0"..."9":
            guard let value = character.asciiValue else { return nil }
            self.init(rawValue: value - 48)
        case "*": self = .star
        case "#": self = .pound
        case "A", "a": self = .a
        case "B", "b": self = .b
        case "C", "c": self = .c
        case "D", "d": self = .d
        default: return nil
        }
    }

    /// The digits of a dial string; `nil` when any character is not a DTMF digit.
    /// - Parameter text: e.g. `"123#"`.
    public static func digits(_ text: String) -> [DTMFDigit]? {
        var digits: [DTMFDigit] = []
        for character in text {
            guard let digit = DTMFDigit(character) else { return nil }
            digits.append(digit)
        }
        return digits
    }

    /// The dial-string character: `0`-`9`, `*`, `#`, `A`-`D`.
    public var character: Character {
        switch self {
        case .star: "*"
        case .pound: "#"
        case .a: "A"
        case .b: "B"
        case .c: "C"
        case .d: "D"
        default: Character(Unicode.Scalar(rawValue + 48))
        }
    }

    public var description: String { String(character) }
}

/// The payload of an RFC 4733 telephone-event packet (§2.3): four bytes.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// |     event     |E|R| volume    |          duration             |
/// ```
public struct TelephoneEventPayload: Sendable, Hashable {
    /// The event code (0-15 are DTMF digits, §3.2).
    public var event: UInt8
    /// The E bit: this packet ends the event.
    public var isEnd: Bool
    /// The power level as a positive number of dBm0 below 0 (0...63; 10 means -10 dBm0).
    public var volume: UInt8
    /// The duration so far, in RTP clock ticks from the event's timestamp.
    public var duration: UInt16

    /// - Parameters:
    ///   - event: the event code.
    ///   - isEnd: the E bit.
    ///   - volume: -dBm0, 0...63 (larger values are cut to 63).
    ///   - duration: ticks since the event's start.
    public init(event: UInt8, isEnd: Bool, volume: UInt8, duration: UInt16) {
        self.event = event
        self.isEnd = isEnd
        self.volume = min(volume, 63)
        self.duration = duration
    }

    /// Parses the first four bytes of a payload (the R bit is ignored, as §2.3 requires).
    /// - Parameter bytes: the RTP payload.
    /// - Throws: `AudioCodecError.invalidPayload` for fewer than four bytes.
    public init(parsing bytes: ArraySlice<UInt8>) throws(AudioCodecError) {
        guard bytes.count >= 4 else {
            throw .invalidPayload("telephone-event payload of \(bytes.count) bytes, at least 4 expected")
        }
        let base = bytes.startIndex
        self.init(
            event: bytes[base], isEnd: bytes[base + 1] & 0x80 != 0, volume: bytes[base + 1] & 0x3F,
            duration: UInt16(bytes[base + 2]) << 8 | UInt16(bytes[base + 3]))
    }

    /// The four payload bytes.
    public var bytes: [UInt8] {
        [event, (isEnd ? 0x80 : 0) | (volume & 0x3F), UInt8(duration >> 8), UInt8(truncatingIfNeeded: duration)]
    }

    /// The DTMF digit, when the event is one (0-15).
    public var digit: DTMFDigit? { DTMFDigit(rawValue: event) }
}
