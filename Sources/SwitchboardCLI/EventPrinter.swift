import Foundation
import Synchronization

/// Prints the CLI's event lines on stdout (CLI.md): `T=<seconds, 3 decimals> <event> key=value ...`, values
/// with spaces double-quoted; or the same as JSON lines with `--json`. Thread-safe.
final class EventPrinter: Sendable {
    let json: Bool
    let start: ContinuousClock.Instant
    let startDate = Date()
    let output: @Sendable (String) -> Void
    private let lock = Mutex<Void>(())

    init(json: Bool, start: ContinuousClock.Instant = .now, output: @escaping @Sendable (String) -> Void) {
        self.json = json
        self.start = start
        self.output = output
    }

    /// Seconds since the command started.
    var elapsed: Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// Seconds from the command's start to `date`.
    func elapsed(at date: Date) -> Double { max(0, date.timeIntervalSince(startDate)) }

    /// One event with ordered fields; numbers and booleans stay unquoted in JSON.
    func emit(_ event: String, _ fields: [(String, EventValue)] = []) {
        let t = elapsed
        let line: String
        if json {
            var parts = ["\"t\":\(formatted(t))", "\"event\":\(EventPrinter.jsonString(event))"]
            for (key, value) in fields { parts.append("\(EventPrinter.jsonString(key)):\(value.json)") }
            line = "{" + parts.joined(separator: ",") + "}"
        } else {
            var parts = ["T=\(formatted(t))", event]
            for (key, value) in fields { parts.append("\(key)=\(value.text)") }
            line = parts.joined(separator: " ")
        }
        lock.withLock { _ in output(line) }
    }

    private func formatted(_ t: Double) -> String {
        let millis = Int((t * 1000).rounded())
        let fraction = String(millis % 1000)
        return "\(millis / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    static func jsonString(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

/// A field value of an event line.
enum EventValue {
    case string(String)
    case int(Int)
    case double(Double, decimals: Int)
    case bool(Bool)

    var text: String {
        switch self {
        case .string(let s):
            if s.isEmpty || s.contains(where: { $0 == " " || $0 == "\"" || $0 == "\t" }) {
                return "\"" + s.replacingQuotes + "\""
            }
            return s
        case .int(let i): return String(i)
        case .double(let d, let decimals): return EventValue.fixed(d, decimals)
        case .bool(let b): return b ? "yes" : "no"
        }
    }

    var json: String {
        switch self {
        case .string(let s): return EventPrinter.jsonString(s)
        case .int(let i): return String(i)
        case .double(let d, let decimals): return EventValue.fixed(d, decimals)
        case .bool(let b): return b ? "true" : "false"
        }
    }

    static func fixed(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return "0" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int((value * scale).rounded())
        if decimals == 0 { return String(scaled) }
        let sign = scaled < 0 ? "-" : ""
        let magnitude = abs(scaled)
        let whole = magnitude / Int(scale)
        let fraction = String(magnitude % Int(scale))
        return sign + String(whole) + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
}

extension String {
    var replacingQuotes: String {
        var out = ""
        for c in self { out += c == "\"" ? "'" : String(c) }
        return out
    }
}
