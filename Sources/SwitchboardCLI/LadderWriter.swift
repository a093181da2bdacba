import Foundation
import Switchboard
import Synchronization

/// Collects the messages of a session for `--ladder FILE.html` (CLI.md "Views") and writes the call-flow
/// diagram as one self-contained HTML page when the command ends. Bounded: past `maximumRows` messages,
/// the rest are counted, not kept. Thread-safe.
final class LadderWriter: Sendable {
    /// The default bound on the number of arrows.
    static let defaultMaximumRows = 20_000

    let path: String
    let maximumRows: Int
    private let state = Mutex<(rows: [LadderRow], dropped: Int)>(([], 0))

    init(path: String, maximumRows: Int = LadderWriter.defaultMaximumRows) {
        self.path = path
        self.maximumRows = maximumRows
    }

    /// Adds one message, in trace order.
    func append(_ row: LadderRow) {
        state.withLock { state in
            if state.rows.count < maximumRows {
                state.rows.append(row)
            } else {
                state.dropped += 1
            }
        }
    }

    /// The rows so far.
    var rows: [LadderRow] { state.withLock { $0.rows } }

    /// Writes the page (to a temporary file, then renamed over `path`).
    /// - Throws: the file system's error.
    func write(title: String = "Switchboard call flow") throws {
        let (rows, dropped) = state.withLock { ($0.rows, $0.dropped) }
        let html = LadderDiagram.html(rows, title: title, droppedCount: dropped)
        let url = URL(fileURLWithPath: path)
        try Data(html.utf8).write(to: url, options: .atomic)
    }
}

extension LadderDiagram {
    /// The rows as JSON, the machine-readable copy embedded in the HTML page (`<script
    /// type="application/json" id="ladder-rows">`): `{"columns": [...], "rows": [{"index", "time",
    /// "direction", "transport", "from", "to", "method", "status", "reason", "label", "cseq", "call_id",
    /// "message"}]}`. `<`, `>` and `&` are escaped, so the text is safe inside a script element.
    static func json(_ rows: [LadderRow]) -> String {
        func string(_ s: String) -> String { EventPrinter.jsonString(s) }
        var items: [String] = []
        for (i, row) in rows.enumerated() {
            let fields = [
                "\"index\":\(i + 1)", "\"time\":\(EventValue.fixed(row.time, 6))",
                "\"direction\":\(string(row.direction.rawValue))", "\"transport\":\(string(row.transport))",
                "\"from\":\(string(row.from))", "\"to\":\(string(row.to))",
                "\"method\":\(row.method.map(string) ?? "null")",
                "\"status\":\(row.statusCode.map(String.init) ?? "null")", "\"reason\":\(string(row.reasonPhrase))",
                "\"label\":\(string(row.label))", "\"cseq\":\(string(row.cseq))", "\"call_id\":\(string(row.callID))",
                "\"message\":\(string(row.message))",
            ]
            items.append("{" + fields.joined(separator: ",") + "}")
        }
        let columns = columns(rows).map(string).joined(separator: ",")
        let text = "{\"columns\":[\(columns)],\"rows\":[\n" + items.joined(separator: ",\n") + "\n]}"
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "&": out += "\\u0026"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// The diagram as a self-contained HTML page (inline CSS, SVG and script; nothing loaded from the
    /// network): one column per endpoint, one arrow per message with its time, label and CSeq; hovering an
    /// arrow shows the start line, clicking it shows the whole message.
    static func html(_ rows: [LadderRow], title: String, droppedCount: Int = 0) -> String {
        let columns = columns(rows)
        let spacing = 240
        let margin = 110
        let top = 56
        let step = 34
        let width = margin + spacing * max(0, columns.count - 1) + 140
        let height = top + step * (rows.count + 1)
        func x(_ column: Int) -> Int { margin + spacing * column }

        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\">\n"
        svg += "<defs>"
        for (direction, colour) in [("sent", "#0a7ea4"), ("received", "#b36b00")] {
            svg += "<marker id=\"head-\(direction)\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" "
            svg += "markerHeight=\"8\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"\(colour)\"/></marker>"
        }
        svg += "</defs>\n"
        for (i, name) in columns.enumerated() {
            svg += "<text class=\"endpoint\" x=\"\(x(i))\" y=\"24\">\(escape(name))</text>"
            svg += "<line class=\"lane\" x1=\"\(x(i))\" y1=\"34\" x2=\"\(x(i))\" y2=\"\(height - 8)\"/>\n"
        }
        for (i, row) in rows.enumerated() {
            let y = top + step * i + step / 2
            let a = columns.firstIndex(of: row.from) ?? 0
            let b = columns.firstIndex(of: row.to) ?? 0
            let kind = (row.method == nil ? "response" : "request") + " " + row.direction.rawValue
            let firstLine = row.message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
            svg += "<g class=\"row \(kind)\" data-index=\"\(i)\" tabindex=\"0\">"
            svg += "<title>\(escape("T=\(EventValue.fixed(row.time, 3)) \(row.transport) \(firstLine)"))</title>"
            svg += "<rect class=\"hit\" x=\"0\" y=\"\(y - step / 2)\" width=\"\(width)\" height=\"\(step)\"/>"
            svg += "<text class=\"time\" x=\"8\" y=\"\(y + 4)\">\(EventValue.fixed(row.time, 3))</text>"
            svg += "<line class=\"arrow\" x1=\"\(x(a))\" y1=\"\(y)\" x2=\"\(x(b))\" y2=\"\(y)\" "
            svg += "marker-end=\"url(#head-\(row.direction.rawValue))\"/>"
            let label = row.label + (row.cseq.isEmpty ? "" : " (\(row.cseq))")
            svg += "<text class=\"label\" x=\"\((x(a) + x(b)) / 2)\" y=\"\(y - 5)\">\(escape(label))</text>"
            svg += "</g>\n"
        }
        svg += "</svg>"

        let note =
            "\(rows.count) message\(rows.count == 1 ? "" : "s")"
            + (droppedCount > 0 ? ", \(droppedCount) more not shown (limit reached)" : "")
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>\(escape(title))</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; margin: 16px; color: #222; }
            h1 { font-size: 18px; margin: 0 0 4px; }
            .note { color: #666; margin: 0 0 12px; }
            .page { display: flex; gap: 16px; align-items: flex-start; }
            .flow { overflow-x: auto; border: 1px solid #ddd; }
            svg { display: block; font: 12px ui-monospace, monospace; }
            .endpoint { text-anchor: middle; font-weight: bold; }
            .lane { stroke: #999; stroke-dasharray: 4 3; }
            .hit { fill: transparent; }
            .row { cursor: pointer; }
            .row:hover .hit, .row:focus .hit { fill: #f2f6ff; }
            .row.selected .hit { fill: #dde8ff; }
            .arrow { stroke-width: 1.6; }
            .sent .arrow { stroke: #0a7ea4; } .sent .label { fill: #0a7ea4; }
            .received .arrow { stroke: #b36b00; } .received .label { fill: #b36b00; }
            .response .arrow { stroke-dasharray: 6 3; }
            .label { text-anchor: middle; }
            .time { fill: #666; }
            pre { flex: 1; min-width: 320px; max-height: 90vh; overflow: auto; margin: 0; padding: 8px;
                  background: #f7f7f7; border: 1px solid #ddd; white-space: pre-wrap; word-break: break-all;
                  position: sticky; top: 8px; }
            </style>
            </head>
            <body>
            <h1>\(escape(title))</h1>
            <p class="note">\(escape(note)). Hover an arrow for its start line; click it for the whole message
            (Authorization values are redacted).</p>
            <div class="page">
            <div class="flow">
            \(svg)
            </div>
            <pre id="message">Click an arrow to show the message.</pre>
            </div>
            <script type="application/json" id="ladder-rows">
            \(json(rows))
            </script>
            <script>
            (function () {
              var data = JSON.parse(document.getElementById('ladder-rows').textContent);
              var pane = document.getElementById('message');
              var selected = null;
              function show(group) {
                var row = data.rows[Number(group.getAttribute('data-index'))];
                if (selected) selected.classList.remove('selected');
                selected = group;
                group.classList.add('selected');
                pane.textContent = 'T=' + row.time.toFixed(3) + ' ' + row.direction + ' ' + row.transport + ' ' +
                  row.from + ' -> ' + row.to + '\\n\\n' + row.message;
              }
              document.querySelectorAll('g.row').forEach(function (group) {
                group.addEventListener('click', function () { show(group); });
                group.addEventListener('keydown', function (e) { if (e.key === 'Enter') show(group); });
              });
            })();
            </script>
            </body>
            </html>

            """
    }

    /// Text escaped for HTML content and attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
