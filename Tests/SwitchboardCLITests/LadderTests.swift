import Foundation
import Switchboard
import Testing

@testable import SwitchboardCLI

@Suite("Ladder diagram")
struct LadderTests {
    static let local = "127.0.0.1:5400"
    static let proxy = "127.0.0.1:5060"

    static func message(_ startLine: String, cseq: String, extra: String = "") -> [UInt8] {
        Array("\(startLine)\r\nCall-ID: abc\r\nCSeq: \(cseq)\r\n\(extra)Content-Length: 0\r\n\r\n".utf8)
    }

    static func row(_ time: Double, _ direction: SIPTraceEvent.Direction, _ bytes: [UInt8]) -> LadderRow {
        let sent = direction == .sent
        return LadderRow(
            time: time, direction: direction, transport: "UDP", from: sent ? local : proxy, to: sent ? proxy : local,
            bytes: bytes)
    }

    /// REGISTER, 401, REGISTER, 200, INVITE, 407, ACK: (direction, label, CSeq) each.
    static let flow: [(SIPTraceEvent.Direction, String, String, String)] = [
        (.sent, "REGISTER sip:127.0.0.1 SIP/2.0", "REGISTER", "1 REGISTER"),
        (.received, "SIP/2.0 401 Unauthorized", "401", "1 REGISTER"),
        (.sent, "REGISTER sip:127.0.0.1 SIP/2.0", "REGISTER", "2 REGISTER"),
        (.received, "SIP/2.0 200 OK", "200", "2 REGISTER"),
        (.sent, "INVITE sip:bob@127.0.0.1 SIP/2.0", "INVITE", "1 INVITE"),
        (.received, "SIP/2.0 407 Proxy Authentication Required", "407", "1 INVITE"),
        (.sent, "ACK sip:bob@127.0.0.1 SIP/2.0", "ACK", "1 ACK"),
    ]

    var rows: [LadderRow] {
        Self.flow.enumerated().map { i, step in
            Self.row(
                Double(i) * 0.01, step.0,
                Self.message(
                    step.1, cseq: step.3,
                    extra: i == 2 ? "Authorization: Digest <redacted>\r\nSubject: </script><b>x</b>\r\n" : ""))
        }
    }

    @Test func rowsReadTheStartLineAndCSeq() {
        let rows = rows
        #expect(rows.map(\.shortLabel) == Self.flow.map(\.2))
        #expect(rows.map(\.cseq) == Self.flow.map(\.3))
        #expect(rows[1].label == "401 Unauthorized" && rows[1].statusCode == 401 && rows[1].method == nil)
        #expect(rows[0].method == "REGISTER" && rows[0].callID == "abc")
        #expect(!rows[0].message.contains("\r"))
        let folded = LadderRow(
            time: 0, direction: .sent, transport: "TCP", from: "a", to: "b",
            bytes: Array("OPTIONS sip:x SIP/2.0\r\ni: compact\r\ncseq:   7    OPTIONS\r\n\r\nCSeq: 9 BODY\r\n".utf8))
        #expect(folded.cseq == "7 OPTIONS" && folded.callID == "compact")
    }

    @Test func textHasEveryArrowInOrder() throws {
        let rows = rows
        let text = LadderDiagram.text(rows)
        let lines = text.split(separator: "\n").map(String.init)
        let local = try #require(lines[0].firstRange(of: Self.local))
        let proxy = try #require(lines[0].firstRange(of: Self.proxy))
        #expect(local.lowerBound < proxy.lowerBound)
        let arrows = Array(lines.dropFirst(2))
        #expect(arrows.count == Self.flow.count)
        for (line, (row, step)) in zip(arrows, zip(rows, Self.flow)) {
            #expect(line.contains(" \(row.label) (\(step.3)) "), "\(line)")
            #expect(line.contains(step.0 == .sent ? ">|" : "|<"), "\(line)")
        }
        #expect(arrows[0].hasPrefix("0.000"))
        #expect(LadderDiagram.text([]) == "(no SIP messages)")
    }

    @Test func htmlIsSelfContainedAndEmbedsTheRowsInOrder() throws {
        let html = LadderDiagram.html(rows, title: "flow")
        #expect(!html.contains("<link") && !html.contains("src="))
        // The message text with "</script>" stays inside the JSON.
        #expect(html.components(separatedBy: "</script>").count == 3)
        let start = try #require(html.range(of: "<script type=\"application/json\" id=\"ladder-rows\">"))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        let json = String(html[start.upperBound..<end.lowerBound])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let rows = try #require(object["rows"] as? [[String: Any]])
        let seen = rows.map { row in
            (
                row["direction"] as? String ?? "", (row["method"] as? String) ?? String(row["status"] as? Int ?? 0),
                row["cseq"] as? String ?? ""
            )
        }
        #expect(seen.map(\.0) == Self.flow.map(\.0.rawValue))
        #expect(seen.map(\.1) == Self.flow.map(\.2))
        #expect(seen.map(\.2) == Self.flow.map(\.3))
        #expect((rows[2]["message"] as? String)?.contains("Authorization: Digest <redacted>") == true)
        #expect(object["columns"] as? [String] == [Self.local, Self.proxy])
        // Each arrow is in the SVG, in order.
        var cursor = html.startIndex
        for step in Self.flow {
            let label = step.2 == "401" ? "401 Unauthorized" : step.2
            let range = try #require(html.range(of: "\(label)", range: cursor..<html.endIndex))
            let cseq = try #require(html.range(of: "(\(step.3))</text>", range: range.upperBound..<html.endIndex))
            cursor = cseq.upperBound
        }
    }

    @Test func writerIsBoundedAndWritesTheFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sb-\(UUID().uuidString).html").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = LadderWriter(path: path, maximumRows: 3)
        for row in rows { writer.append(row) }
        try writer.write()
        let html = try String(contentsOfFile: path, encoding: .utf8)
        #expect(writer.rows.count == 3)
        #expect(html.contains("3 messages, 4 more not shown"))
    }
}
