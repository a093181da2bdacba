import Switchboard

/// Call-flow (ladder) diagrams of SIP messages, like sngrep's flow view: one column per endpoint
/// (address:port), one arrow per message in the order they were traced, each labelled with the method or
/// status and the CSeq.
enum LadderDiagram {
    /// The endpoints, one column each: this side's addresses first, then the others, each in order of
    /// first appearance.
    static func columns(_ rows: [LadderRow]) -> [String] {
        var local: [String] = []
        var remote: [String] = []
        for row in rows {
            let (mine, theirs) = row.direction == .sent ? (row.from, row.to) : (row.to, row.from)
            if !local.contains(mine) { local.append(mine) }
            if !remote.contains(theirs) { remote.append(theirs) }
        }
        return local + remote.filter { !local.contains($0) }
    }

    /// The diagram as plain text for a terminal: a header with the endpoints, then one line per message
    /// with its time and an arrow between the two columns, labelled `METHOD (CSeq)` or `STATUS (CSeq)`.
    /// - Parameters:
    ///   - rows: the messages, in order.
    ///   - colour: ANSI colours (sent cyan, received yellow, as `--trace`).
    static func text(_ rows: [LadderRow], colour: Bool = false) -> String {
        let columns = columns(rows)
        guard !columns.isEmpty else { return "(no SIP messages)" }
        let labels = rows.map(arrowText)
        let widest = max(labels.map(\.count).max() ?? 0, columns.map(\.count).max() ?? 0)
        let spacing = max(24, widest + 6)
        let margin = 9
        let width = margin + spacing * (columns.count - 1) + 1
        func position(_ column: Int) -> Int { margin + spacing * column }

        var lines: [String] = []
        var header = [Character](repeating: " ", count: width + spacing / 2)
        for (i, name) in columns.enumerated() {
            let start = max(0, min(position(i) - name.count / 2, header.count - name.count))
            for (j, c) in name.enumerated() { header[start + j] = c }
        }
        lines.append(String(header).trimmedRight)
        var rule = [Character](repeating: " ", count: width)
        for i in columns.indices { rule[position(i)] = "|" }
        lines.append(String(rule))

        for (row, label) in zip(rows, labels) {
            var line = rule
            let time = EventValue.fixed(row.time, 3)
            for (j, c) in time.prefix(margin - 1).enumerated() { line[j] = c }
            let a = columns.firstIndex(of: row.from) ?? 0
            let b = columns.firstIndex(of: row.to) ?? 0
            if a != b {
                let (left, right) = (position(min(a, b)), position(max(a, b)))
                for x in (left + 1)..<right { line[x] = "-" }
                if a < b { line[right - 1] = ">" } else { line[left + 1] = "<" }
                let room = right - left - 5
                let shown = label.count > room ? String(label.prefix(max(0, room))) : label
                let start = left + 1 + (right - left - 1 - shown.count) / 2
                for (j, c) in shown.enumerated() { line[start + j] = c }
            }
            var text = String(line)
            if colour { text = (row.direction == .sent ? "\u{1B}[36m" : "\u{1B}[33m") + text + "\u{1B}[0m" }
            lines.append(text)
        }
        return lines.joined(separator: "\n")
    }

    /// `INVITE (1 INVITE)` or `200 OK (1 INVITE)`, padded with a space each side.
    static func arrowText(_ row: LadderRow) -> String {
        " " + row.label + (row.cseq.isEmpty ? "" : " (\(row.cseq))") + " "
    }
}

extension String {
    var trimmedRight: String {
        var s = Substring(self)
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
