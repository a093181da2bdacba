import Switchboard

/// One arrow of a call-flow diagram: one SIP message as `--trace` showed it, with what the arrow says
/// (the method, or the status code and reason phrase, and the CSeq).
struct LadderRow: Sendable, Equatable {
    /// Seconds since the command started.
    var time: Double
    var direction: SIPTraceEvent.Direction
    /// `UDP`, `TCP` or `TLS`.
    var transport: String
    /// Where the message came from and went to (`127.0.0.1:5060`).
    var from: String
    var to: String
    /// The request method, or `nil` for a response.
    var method: String?
    /// The status code, or `nil` for a request.
    var statusCode: Int?
    var reasonPhrase: String
    /// The CSeq header value (`1 INVITE`), empty when missing.
    var cseq: String
    var callID: String
    /// The whole message, lines joined with `\n` (credentials already redacted by the provider).
    var message: String

    /// The arrow's label: `INVITE` or `200 OK`.
    var label: String {
        if let method { return method }
        return reasonPhrase.isEmpty ? "\(statusCode ?? 0)" : "\(statusCode ?? 0) \(reasonPhrase)"
    }

    /// The arrow's short label for the comparison of views: `INVITE` or `200`.
    var shortLabel: String { method ?? String(statusCode ?? 0) }

    /// This side's address.
    var localAddress: String { direction == .sent ? from : to }

    /// A row for one trace event.
    /// - Parameters:
    ///   - time: seconds since the command started.
    init(event: SIPTraceEvent, time: Double) {
        let sent = event.direction == .sent
        self.init(
            time: time, direction: event.direction, transport: event.transport.rawValue.uppercased(),
            from: sent ? event.localAddress : event.remoteAddress, to: sent ? event.remoteAddress : event.localAddress,
            bytes: event.bytes)
    }

    /// A row from the message bytes: the start line gives the method or status, the headers the CSeq and
    /// Call-ID (compact `i` too).
    init(
        time: Double, direction: SIPTraceEvent.Direction, transport: String, from: String, to: String, bytes: [UInt8]
    ) {
        self.time = time
        self.direction = direction
        self.transport = transport
        self.from = from
        self.to = to
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        message = lines.joined(separator: "\n")
        method = nil
        statusCode = nil
        reasonPhrase = ""
        cseq = ""
        callID = ""
        let first = lines.first { !$0.isEmpty } ?? ""
        let parts = first.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        if parts.first?.hasPrefix("SIP/") == true {
            statusCode = parts.count > 1 ? Int(parts[1]) : nil
            reasonPhrase = parts.count > 2 ? String(parts[2]) : ""
        } else {
            method = parts.first.map(String.init) ?? "?"
        }
        var seenStart = false
        for line in lines {
            if line.isEmpty {
                if seenStart { break }
                continue
            }
            seenStart = true
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingSpaces.lowercased()
            let value = String(line[line.index(after: colon)...].trimmingSpaces)
            if name == "cseq", cseq.isEmpty {
                cseq = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            } else if name == "call-id" || name == "i", callID.isEmpty {
                callID = value
            }
        }
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}
