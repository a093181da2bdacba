import SIPMessage

/// One DTMF event in an INFO body of type `application/dtmf-relay` (the de facto format of Cisco and
/// others: `Signal=5` and `Duration=160` lines; no RFC defines it, RFC 6086 §10 names INFO packages instead).
public struct DTMFRelay: Sendable, Hashable, CustomStringConvertible {
    /// The signal: `0`-`9`, `*`, `#`, `A`-`D`, or `16` for a hook flash.
    public var signal: String
    /// The duration in milliseconds.
    public var duration: Int

    /// The signals accepted.
    public static let signals: Set<String> = [
        "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "#", "A", "B", "C", "D", "16",
    ]

    /// - Parameters:
    ///   - signal: one of `signals` (letters upper-cased).
    ///   - duration: milliseconds, 1...60000 (160 by default).
    public init?(signal: String, duration: Int = 160) {
        let signal = signal.uppercased()
        guard DTMFRelay.signals.contains(signal), (1...60_000).contains(duration) else { return nil }
        self.signal = signal
        self.duration = duration
    }

    /// Parses a body: `name=value` lines, names case-insensitive, white space around values ignored,
    /// unknown lines skipped. A missing Duration means 250 ms. `nil` when there is no valid Signal.
    public init?(parsing body: some Collection<UInt8>) {
        var signal: String?
        var duration = 250
        let text = String(decoding: body, as: UTF8.self)
        for line in text.split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].trimmingCharacters(in: " \t").lowercased()
            let value = parts[1].trimmingCharacters(in: " \t")
            switch name {
            case "signal": signal = value
            case "duration":
                guard let number = Int(value) else { return nil }
                duration = number
            default: continue
            }
        }
        guard let signal else { return nil }
        self.init(signal: signal, duration: duration)
    }

    /// The body: `Signal=5\r\nDuration=160\r\n`.
    public var body: [UInt8] { Array("Signal=\(signal)\r\nDuration=\(duration)\r\n".utf8) }

    public var description: String { "\(signal)/\(duration)ms" }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        let characters = Set(set)
        var slice = self[...]
        while let first = slice.first, characters.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, characters.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
