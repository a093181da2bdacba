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
}
