import SIPTransport

/// Formats SIP messages for `--trace` on stderr: a header line with time, direction, transport and
/// addresses, then the message with Authorization and Proxy-Authorization values redacted. Colours only on a
/// terminal.
enum SIPTracer {
    static func format(_ record: TraceRecord, elapsed: Double, colour: Bool) -> String {
        let arrow = record.direction == .outgoing ? "->" : "<-"
        let (from, to) =
            record.direction == .outgoing ? (record.local, record.remote) : (record.remote, record.local)
        var header = "--- T=\(EventValue.fixed(elapsed, 3)) \(record.direction == .outgoing ? "sent" : "received") "
        header += "\(record.transport.viaToken) \(from) \(arrow) \(to) (\(record.bytes.count) bytes)"
        if colour { header = (record.direction == .outgoing ? "\u{1B}[36m" : "\u{1B}[33m") + header + "\u{1B}[0m" }
        return header + "\n" + redacted(String(decoding: record.bytes, as: UTF8.self))
    }

    /// Replaces credential values with `<redacted>` (the scheme stays visible). Lines are split on any line
    /// break (in Swift "\r\n" is one Character, so splitting on "\n" alone would find nothing).
    static func redacted(_ text: String) -> String {
        var lines: [String] = []
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let lower = line.lowercased()
            if lower.hasPrefix("authorization:") || lower.hasPrefix("proxy-authorization:") {
                let colon = line.firstIndex(of: ":") ?? line.endIndex
                let value = line[line.index(after: colon)...].drop(while: { $0 == " " })
                let scheme = value.prefix { $0 != " " }
                lines.append(String(line[...colon]) + " " + scheme + " <redacted>")
            } else {
                lines.append(String(line))
            }
        }
        return lines.joined(separator: "\n")
    }
}
