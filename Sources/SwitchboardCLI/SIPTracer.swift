import Switchboard

/// Formats SIP messages for `--trace` on stderr: a header line with time, direction, transport and
/// addresses (this side first, the arrow showing which way the message went), then the message
/// (credentials already redacted by the provider). Colours only on a terminal.
enum SIPTracer {
    static func format(_ event: SIPTraceEvent, elapsed: Double, colour: Bool) -> String {
        let sent = event.direction == .sent
        let arrow = sent ? "->" : "<-"
        var header = "--- T=\(EventValue.fixed(elapsed, 3)) \(sent ? "sent" : "received") "
        header += "\(event.transport.rawValue.uppercased()) \(event.localAddress) \(arrow) \(event.remoteAddress) "
        header += "(\(event.bytes.count) bytes)"
        if colour { header = (sent ? "\u{1B}[36m" : "\u{1B}[33m") + header + "\u{1B}[0m" }
        var text = String(decoding: event.bytes, as: UTF8.self)
        text = String(text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).joined(separator: "\n"))
        return header + "\n" + text
    }
}
