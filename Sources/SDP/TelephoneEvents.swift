/// The event list of a telephone-event fmtp (RFC 4733 §7.1.1): `0-15,66,70`, events 0...255. Used to answer
/// with the events both ends support.
struct TelephoneEvents: Hashable {
    /// One flag per event code.
    private(set) var events: [Bool] = Array(repeating: false, count: 256)

    /// RFC 4733 §7.1.1: without an fmtp the events are 0-15.
    static let `default` = TelephoneEvents(ranges: [0...15])

    init(ranges: [ClosedRange<Int>]) {
        for range in ranges {
            for event in range.clamped(to: 0...255) { events[event] = true }
        }
    }

    /// Parses an event list; `nil` when malformed.
    init?(parsing text: String) {
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = item.trimmingSDPWhitespace()
            let bounds = trimmed.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(bounds.count), let low = bounds.first.flatMap({ parseDecimal($0.utf8, limit: 255) }),
                let high = bounds.last.flatMap({ parseDecimal($0.utf8, limit: 255) }), low <= high
            else { return nil }
            for event in Int(low)...Int(high) { events[event] = true }
        }
    }

    /// The events of an offered or answered fmtp, `default` when there is none.
    init?(formatParameters: FormatParameters?) {
        guard let formatParameters, !formatParameters.parameterString.isEmpty else {
            self = .default
            return
        }
        self.init(parsing: formatParameters.parameterString)
    }

    var isEmpty: Bool { !events.contains(true) }

    func intersection(_ other: TelephoneEvents) -> TelephoneEvents {
        var result = self
        for i in events.indices { result.events[i] = events[i] && other.events[i] }
        return result
    }

    /// The list in its shortest form: `0-15,66`.
    var text: String {
        var parts: [String] = []
        var i = 0
        while i < events.count {
            guard events[i] else {
                i += 1
                continue
            }
            var j = i
            while j + 1 < events.count, events[j + 1] { j += 1 }
            parts.append(i == j ? "\(i)" : "\(i)-\(j)")
            i = j + 1
        }
        return parts.joined(separator: ",")
    }
}
