import Dispatch
import Foundation
import Synchronization
import Testing

@testable import SwitchboardCLI

/// `switchboard answer` and `switchboard call` in process over loopback (ports 0), the caller with
/// `--trace --pcap --ladder`: the three views hold the same messages in the same order.
@Suite("Views of a real call")
struct ViewsCommandTests {
    @Test func traceAndPcapAndLadderAgree() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-views-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pcapPath = folder.appendingPathComponent("call.pcap").path
        let ladderPath = folder.appendingPathComponent("call.html").path

        let bob = try InProcessAnswer(["--listen", "127.0.0.1:0", "--auto-answer", "--count", "1"])
        let answerPort = bob.port

        let call = Capture()
        let status = SwitchboardCommand.run(
            [
                "call", "sip:bob@127.0.0.1:\(answerPort)", "--listen", "127.0.0.1:0", "--duration", "0.2", "--trace",
                "--pcap", pcapPath, "--ladder", ladderPath,
            ], io: call.io)
        #expect(status == 0)
        #expect(bob.exitStatus() == 0)

        // The trace: a header line, then the message; the start line follows the header.
        let traced = call.err.compactMap { block -> (String, String)? in
            let lines = block.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
            guard lines.count >= 2, let header = lines.first, header.hasPrefix("--- T=") else { return nil }
            return (header.contains(" sent ") ? "sent" : "received", String(lines[1]))
        }
        let startLines = traced.map(\.1)
        #expect(startLines.first?.hasPrefix("INVITE ") == true)
        #expect(startLines.contains { $0.hasPrefix("BYE ") })
        #expect(startLines.contains { $0.hasPrefix("ACK ") })

        let pcap = try #require(PcapFile(Array(try Data(contentsOf: URL(fileURLWithPath: pcapPath)))))
        let payloads = pcap.records.compactMap { UDPPacket($0.packet) }.map { packet in
            String(decoding: packet.payload, as: UTF8.self).split(separator: "\r\n").first.map(String.init) ?? ""
        }
        #expect(payloads == startLines)

        let html = try String(contentsOfFile: ladderPath, encoding: .utf8)
        let start = try #require(html.range(of: "id=\"ladder-rows\">"))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        let object = try JSONSerialization.jsonObject(with: Data(html[start.upperBound..<end.lowerBound].utf8))
        let rows = try #require((object as? [String: Any])?["rows"] as? [[String: Any]])
        #expect(rows.map { $0["direction"] as? String ?? "" } == traced.map(\.0))
        #expect(
            rows.map { ($0["message"] as? String)?.split(separator: "\n").first.map(String.init) ?? "" }
                == startLines)
    }
}
