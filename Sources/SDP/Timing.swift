/// A t= line and the r= lines that follow it (RFC 8866 §5.9, §5.10). SIP sessions use `t=0 0`: unbounded.
public struct Timing: Sendable, Hashable {
    /// The start time in NTP seconds; 0 for an unbounded session.
    public var start: UInt64
    /// The stop time in NTP seconds; 0 for an unbounded session.
    public var stop: UInt64
    /// The values of the r= lines, each as `<interval> <active duration> <offsets>...` with single spaces.
    public var repeats: [String]

    /// - Parameters:
    ///   - start: the start time (NTP seconds), 0 by default.
    ///   - stop: the stop time (NTP seconds), 0 by default.
    ///   - repeats: r= values, none by default.
    public init(start: UInt64 = 0, stop: UInt64 = 0, repeats: [String] = []) {
        self.start = start
        self.stop = stop
        self.repeats = repeats
    }

    /// Parses the value of a t= line: `<start-time> <stop-time>`.
    public init(parsing value: String) throws(SDPError) {
        try self.init(fields: splitFields(value), value: value)
    }

    /// The t= line from its fields (`splitFields`); `value`, the line's text, names it in errors.
    init(fields: [String]?, value: @autoclosure () -> String) throws(SDPError) {
        guard let fields, fields.count == 2, let start = parseDecimal(fields[0]), let stop = parseDecimal(fields[1])
        else {
            throw SDPError(.malformedTiming, "expected two numbers", line: "t=" + value())
        }
        self.start = start
        self.stop = stop
        self.repeats = []
    }

    /// Checks an r= value (`<repeat interval> <active duration> <offsets from start-time>`, each a number with
    /// an optional d/h/m/s unit) and returns it with single spaces.
    static func normalizedRepeat(_ value: String) throws(SDPError) -> String {
        guard let fields = splitFields(value), fields.count >= 3, fields.allSatisfy(isTypedTime) else {
            throw SDPError(.malformedTiming, "expected interval, duration and offsets", line: "r=" + value)
        }
        return fields.joined(separator: " ")
    }

    /// Checks a z= value (`<adjustment time> <offset>` pairs) and returns it with single spaces.
    static func normalizedTimeZones(_ value: String) throws(SDPError) -> String {
        guard let fields = splitFields(value), !fields.isEmpty, fields.count.isMultiple(of: 2) else {
            throw SDPError(.malformedTiming, "expected time and offset pairs", line: "z=" + value)
        }
        for (i, field) in fields.enumerated() {
            let valid: Bool
            if i.isMultiple(of: 2) {
                valid = parseDecimal(field) != nil
            } else {
                valid = isTypedTime(field.utf8.first == ASCII.minus ? String(field.dropFirst()) : field)
            }
            guard valid else { throw SDPError(.malformedTiming, "bad time or offset", line: "z=" + value) }
        }
        return fields.joined(separator: " ")
    }

    /// `typed-time = 1*DIGIT [fixed-len-time-unit]` with units d, h, m, s.
    static func isTypedTime(_ text: String) -> Bool {
        var digits = Substring(text)
        if let last = text.last, "dhms".contains(last) { digits = digits.dropLast() }
        return parseDecimal(digits.utf8) != nil
    }

    func serialize(into buffer: inout [UInt8]) {
        buffer.append("t=")
        buffer.appendDecimal(start)
        buffer.append(ASCII.space)
        buffer.appendDecimal(stop)
        buffer.appendLineEnd()
        for value in repeats {
            buffer.append("r=")
            buffer.appendText(value)
            buffer.appendLineEnd()
        }
    }
}
