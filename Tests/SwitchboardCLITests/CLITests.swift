import Foundation
import Switchboard
import Synchronization
import Testing

@testable import SwitchboardCLI

/// Runs the CLI in process with captured output.
final class Capture: Sendable {
    let lines = Mutex<(out: [String], err: [String])>(([], []))
    let files: [String: [UInt8]]

    init(files: [String: [UInt8]] = [:]) { self.files = files }

    var io: CommandIO {
        CommandIO(
            output: { line in self.lines.withLock { $0.out.append(line) } },
            error: { line in self.lines.withLock { $0.err.append(line) } },
            readFile: { path in self.files[path] ?? FileManager.default.contents(atPath: path).map { [UInt8]($0) } })
    }

    var out: [String] { lines.withLock { $0.out } }
    var err: [String] { lines.withLock { $0.err } }
}

let dataDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("SIPMessageTests/Data")

@Suite("switchboard parse")
struct ParseCommandTests {
    let options = Array(
        "OPTIONS sip:bob@example.com SIP/2.0\r\nVia: SIP/2.0/TCP a;branch=z9hG4bK1\r\nFrom: <sip:a@b>;tag=1\r\nTo: <sip:bob@example.com>\r\nCall-ID: c\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n"
            .utf8)

    @Test func everyTortureFileGetsOneVerdictLine() throws {
        let folder = dataDirectory.appendingPathComponent("rfc4475")
        let paths = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".dat") }
            .sorted().map { folder.appendingPathComponent($0).path }
        let capture = Capture()
        let status = SwitchboardCommand.run(["parse"] + paths, io: capture.io)
        #expect(status == 0)
        #expect(capture.out.count == 50)
        let pattern = #/^.+\.dat: (accept request \S+|accept response \d{3}|reject \d{3} .+|drop .+)$/#
        for line in capture.out {
            #expect(line.wholeMatch(of: pattern) != nil, "\(line)")
        }
        #expect(capture.out.contains { $0.hasSuffix("badvers.dat: reject 505 Version Not Supported") })
        #expect(capture.out.contains { $0.hasSuffix("bigcode.dat: drop Status code out of range") })
        #expect(capture.out.contains { $0.hasSuffix("wsinv.dat: accept request INVITE") })
    }

    @Test func streamModeNumbersSeveralMessages() {
        let capture = Capture(files: ["two.sip": options + options])
        #expect(SwitchboardCommand.run(["parse", "--stream", "two.sip"], io: capture.io) == 0)
        #expect(capture.out == ["two.sip#1: accept request OPTIONS", "two.sip#2: accept request OPTIONS"])
    }

    @Test func streamModeReportsIncompleteAndClose() {
        let capture = Capture(files: [
            "cut.sip": Array(options.dropLast(1)),
            "mcl.sip": Array("OPTIONS sip:a@b SIP/2.0\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx".utf8),
        ])
        #expect(SwitchboardCommand.run(["parse", "--stream", "cut.sip", "mcl.sip"], io: capture.io) == 0)
        #expect(capture.out == ["cut.sip: incomplete need=1", "mcl.sip: close Multiple Content-Length values"])
        let body = Capture(files: ["body.sip": Array("OPTIONS sip:a@b SIP/2.0\r\nContent-Length: 10\r\n\r\nabc".utf8)])
        #expect(SwitchboardCommand.run(["parse", "--stream=", "body.sip"], io: body.io) == 2)
        #expect(SwitchboardCommand.run(["parse", "--stream", "body.sip"], io: body.io) == 0)
        #expect(body.out == ["body.sip: incomplete need=7"])
    }

    @Test func datagramModeIsOneVerdictPerFile() {
        let capture = Capture(files: ["two.sip": options + options])
        #expect(SwitchboardCommand.run(["parse", "two.sip"], io: capture.io) == 0)
        #expect(capture.out == ["two.sip: accept request OPTIONS"])
    }

    @Test func unreadableFilesExit2ButOthersAreReported() {
        let capture = Capture(files: ["ok.sip": options])
        #expect(SwitchboardCommand.run(["parse", "/nonexistent/x.sip", "ok.sip"], io: capture.io) == 2)
        #expect(capture.out == ["ok.sip: accept request OPTIONS"])
        #expect(capture.err.first?.contains("/nonexistent/x.sip") == true)
    }

    @Test func usageErrorsExit2AndNameTheFlag() {
        let capture = Capture()
        #expect(SwitchboardCommand.run(["parse", "--bogus", "x"], io: capture.io) == 2)
        #expect(capture.err.first?.contains("--bogus") == true)
        #expect(SwitchboardCommand.run(["parse"], io: capture.io) == 2)
        #expect(SwitchboardCommand.run(["frobnicate"], io: capture.io) == 2)
        #expect(SwitchboardCommand.run([], io: capture.io) == 2)
    }

    @Test func helpAndVersion() {
        let capture = Capture()
        #expect(SwitchboardCommand.run(["--help"], io: capture.io) == 0)
        #expect(SwitchboardCommand.run(["parse", "--help"], io: capture.io) == 0)
        #expect(SwitchboardCommand.run(["--version"], io: capture.io) == 0)
        #expect(capture.out.contains { $0.hasPrefix("usage: switchboard parse") })
        #expect(capture.out.last == "switchboard \(SwitchboardCommand.version)")
    }

    @Test func binaryGarbageStaysOnOneLine() {
        let capture = Capture(files: ["junk": [0x00, 0x0A, 0xFF, 0x0D, 0x41]])
        #expect(SwitchboardCommand.run(["parse", "junk"], io: capture.io) == 0)
        #expect(SwitchboardCommand.run(["parse", "--stream", "junk"], io: capture.io) == 0)
        #expect(capture.out.count == 2)
        #expect(capture.out.allSatisfy { !$0.contains("\n") && !$0.contains("\r") })
    }
}

@Suite("Argument parsing")
struct ArgumentTests {
    let specs = [
        FlagSpec(name: "count", valueName: "N", help: ""), FlagSpec(name: "verbose", valueName: nil, help: ""),
    ]

    @Test func forms() throws {
        #expect(
            try parseArguments(["--count", "3", "a"], specs: specs)
                == ParsedArguments(flags: ["count": "3"], positionals: ["a"]))
        #expect(try parseArguments(["--count=3"], specs: specs).flags == ["count": "3"])
        #expect(try parseArguments(["--verbose", "--", "--count"], specs: specs).positionals == ["--count"])
        #expect(throws: UsageError.self) { try parseArguments(["--count"], specs: specs) }
        #expect(throws: UsageError.self) { try parseArguments(["--verbose=yes"], specs: specs) }
        #expect(throws: UsageError.self) { try parseArguments(["-x"], specs: specs) }
    }
}

@Suite("Event lines")
struct EventLineTests {
    @Test func textAndJSON() {
        let lines = Mutex<[String]>([])
        let printer = EventPrinter(json: false) { line in lines.withLock { $0.append(line) } }
        printer.emit(
            "ended", [("reason", .string("remoteEnded")), ("status", .int(200)), ("phrase", .string("Busy Here"))])
        let json = EventPrinter(json: true) { line in lines.withLock { $0.append(line) } }
        json.emit("registered", [("expires", .int(60)), ("contact", .string("sip:a@b"))])
        let out = lines.withLock { $0 }
        #expect(out[0].wholeMatch(of: #/T=\d+\.\d{3} ended reason=remoteEnded status=200 phrase="Busy Here"/#) != nil)
        #expect(
            out[1].wholeMatch(of: #/\{"t":\d+\.\d{3},"event":"registered","expires":60,"contact":"sip:a@b"\}/#) != nil)
    }

    @Test func earlyMediaAndTransferLines() {
        let lines = Mutex<[String]>([])
        let printer = EventPrinter(json: false) { line in lines.withLock { $0.append(line) } }
        CallOutput.ringing(status: 180, earlyMediaCodec: nil, hasEarlyMedia: false, printer: printer)
        CallOutput.ringing(status: 183, earlyMediaCodec: "PCMU", hasEarlyMedia: true, printer: printer)
        CallOutput.transferred(to: Handle(type: .generic, value: "sip:carol@127.0.0.1:5070"), printer: printer)
        let json = EventPrinter(json: true) { line in lines.withLock { $0.append(line) } }
        CallOutput.ringing(status: 183, earlyMediaCodec: "opus", hasEarlyMedia: true, printer: json)
        let out = lines.withLock { $0 }
        #expect(out.count == 6)
        #expect(out[0].wholeMatch(of: #/T=\d+\.\d{3} ringing status=180/#) != nil)
        #expect(out[1].wholeMatch(of: #/T=\d+\.\d{3} ringing status=183/#) != nil)
        #expect(out[2].wholeMatch(of: #/T=\d+\.\d{3} early-media status=183 codec=PCMU/#) != nil)
        #expect(out[3].wholeMatch(of: #/T=\d+\.\d{3} transferred to=sip:carol@127\.0\.0\.1:5070/#) != nil)
        #expect(out[5].wholeMatch(of: #/\{"t":\d+\.\d{3},"event":"early-media","status":183,"codec":"opus"\}/#) != nil)
    }
}
