import Foundation
import SIPMessage
import Testing

@Suite("Parse, serialize, parse")
struct RoundTripTests {
    static let validTorture = [
        "wsinv", "intmeth", "esc01", "escnull", "esc02", "lwsdisp", "longreq", "dblreq", "semiuri", "transports",
        "mpart01", "unreason", "noreason", "badbranch", "baddate", "unkscm", "novelsc", "unksm2", "bext01", "invut",
        "regaut01", "bcast", "zeromf", "cparam01", "cparam02", "regescrt", "sdp01",
    ]

    static let benchFiles = TestData.files(in: "bench", suffix: ".sip")

    @Test("torture message round-trips", arguments: validTorture)
    func tortureRoundTrip(_ name: String) throws {
        let first = try Message(parsing: TestData.torture(name))
        let wire = first.serialized()
        let second = try Message(parsing: wire)
        #expect(first == second)
        // Writing again gives the same bytes.
        #expect(second.serialized() == wire)
    }

    @Test("benchmark message round-trips byte for byte", arguments: benchFiles)
    func benchRoundTrip(_ file: String) throws {
        let bytes = TestData.bench(file)
        let message = try Message(parsing: bytes)
        #expect(message.serialized() == bytes)
        #expect(try Message(parsing: message.serialized()) == message)
    }

    @Test func inv2543GainsAContentLength() throws {
        let first = try Message(parsing: TestData.torture("inv2543"))
        let second = try Message(parsing: first.serialized())
        #expect(first.headerFields[.contentLength] == nil)
        #expect(second.headerFields[.contentLength] == String(first.bodyBytes.count))
        var withoutLength = second.headerFields
        withoutLength.removeAll(.contentLength)
        #expect(withoutLength == first.headerFields)
        #expect(second.bodyBytes == first.bodyBytes)
    }

    @Test func namesAreWrittenAsReceived() throws {
        let message = try Message(parsing: TestData.torture("longreq"))
        let text = String(decoding: message.serialized(), as: UTF8.self)
        #expect(text.contains("\r\nv: SIP/2.0/TCP sip32.example.com\r\n"))
        #expect(text.contains("\r\nViA: SIP/2.0/TCP sip29.example.com\r\n"))
        #expect(text.contains("\r\nl: 150\r\n"))
    }

    @Test func foldsBecomeSpaces() throws {
        let message = try Message(parsing: TestData.torture("wsinv"))
        let text = String(decoding: message.serialized(), as: UTF8.self)
        let head = text.components(separatedBy: "\r\n\r\n")[0]
        for line in head.components(separatedBy: "\r\n").dropFirst() {
            #expect(!line.hasPrefix(" "), "folded line survived: \(line)")
        }
    }

    /// A continuation line of white space only (found by the fuzzer) adds nothing to the value: the value must not
    /// end in the spaces its fold became, or the message reads differently once written.
    @Test(arguments: [
        "Subject: hello \r\n     \r\n", "Subject: hello\r\n\t\r\n", "Subject: hello\r\n \r\n world\r\n",
        "Subject:\r\n   \r\n", "Subject: a ;b =\r\n  \r\n\t \r\n",
    ])
    func whiteSpaceOnlyContinuations(subject: String) throws {
        let text =
            "OPTIONS sip:b@example.org SIP/2.0\r\nVia: SIP/2.0/UDP h;branch=z9hG4bK1\r\nFrom: <sip:a@h>;tag=1\r\n"
            + "To: <sip:b@h>\r\nCall-ID: c1\r\nCSeq: 1 OPTIONS\r\n" + subject + "Content-Length: 0\r\n\r\n"
        let message = try Message(parsing: Array(text.utf8))
        let value = try #require(message.headerFields[.subject])
        #expect(value == value.trimmingCharacters(in: .whitespaces), "value \(value.debugDescription)")
        let wire = message.serialized()
        #expect(try Message(parsing: wire).serialized() == wire)
        #expect(try message.headerFields.callID == "c1")
    }
}
