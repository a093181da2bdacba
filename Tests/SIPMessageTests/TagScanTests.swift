import Foundation
import SIPMessage
import Testing

/// TagScan reads To and From tags off the bytes; whenever it answers (present or absent), the answer must be
/// the full parse's.
@Suite struct TagScanTests {
    @Test(arguments: [
        ("Bob <sip:bob@biloxi.example.com>", TagScan.absent),
        ("Bob <sip:bob@biloxi.example.com>;tag=a6c85cf", .present("a6c85cf")),
        ("Bob <sip:bob@biloxi.example.com> ; TAG = a6c85cf ;x=1", .present("a6c85cf")),
        ("<sip:bob@biloxi.example.com;tag=uri-param>", .absent),
        ("\"Bob ;tag=quoted\" <sip:bob@biloxi.example.com>", .absent),
        ("\"Bob \\\";tag=q\" <sip:bob@b.example.com>;tagx=1", .absent),
        ("sip:bob@biloxi.example.com;tag=1928301774", .present("1928301774")),
        ("sip:bob@biloxi.example.com", .absent),
        ("<sip:bob@biloxi.example.com>;tag", .unclear),
        ("<sip:bob@biloxi.example.com>;tag=", .unclear),
        ("<sip:bob@biloxi.example.com>;tag=\"quoted\"", .unclear),
        ("<sip:bob@biloxi.example.com>;tag=a;tag=b", .unclear),
        ("<sip:bob@biloxi.example.com>;tag=a, <sip:carol@c.example.com>", .unclear),
        ("\"Bob <sip:bob@biloxi.example.com>;tag=unclosed", .unclear),
        ("<sip:bob@biloxi.example.com;tag=unclosed", .unclear),
        ("Bj\u{F6}rn <sip:bjorn@example.com>;tag=1", .unclear),
    ])
    func handWrittenValues(value: String, expected: TagScan) {
        #expect(TagScan(value) == expected)
    }

    /// The range of the one plain tag parameter: removing it leaves the same address without its tag.
    @Test(arguments: [
        ("Bob <sip:bob@biloxi.example.com>;tag=a6c85cf", "Bob <sip:bob@biloxi.example.com>"),
        ("Bob <sip:bob@biloxi.example.com> ; TAG = a6c85cf ;x=1", "Bob <sip:bob@biloxi.example.com>  ;x=1"),
        ("sip:bob@biloxi.example.com;x=2;tag=1928301774", "sip:bob@biloxi.example.com;x=2"),
        ("\"A ;tag=q\" <sip:a@example.com;tag=u>;tag=t;y", "\"A ;tag=q\" <sip:a@example.com;tag=u>;y"),
    ])
    func tagParameterRange(value: String, without: String) throws {
        let range = try #require(TagScan.tagParameterRange(in: value))
        var bytes = Array(value.utf8)
        bytes.removeSubrange(range)
        #expect(String(decoding: bytes, as: UTF8.self) == without)
        let stripped = try NameAddress(without)
        let original = try NameAddress(value)
        #expect(stripped.tag == nil)
        #expect(stripped.uri == original.uri)
        #expect(stripped.displayName == original.displayName)
    }

    @Test(arguments: [
        "Bob <sip:bob@biloxi.example.com>", "<sip:b@example.com>;tag=a;tag=b", "<sip:b@example.com>;tag=",
        "<sip:bob@biloxi.example.com;tag=uri-param>",
    ])
    func noTagParameterRangeUnlessOnePlainTag(value: String) {
        #expect(TagScan.tagParameterRange(in: value) == nil)
    }

    /// The one-pass check of an in-dialog request says what the three separate checks say together.
    @Test(arguments: [
        ("Call-ID: c1\r\nTo: <sip:b@x.example>;tag=bt\r\nFrom: <sip:a@y.example>;tag=at\r\n", true),
        ("i: c1\r\nt: <sip:b@x.example>;tag=bt\r\nf: <sip:a@y.example>;tag=at\r\n", true),
        ("Call-ID: c1\r\nCall-ID: c2\r\nTo: <sip:b@x.example>;tag=bt\r\nFrom: <sip:a@y.example>;tag=at\r\n", true),
        ("Call-ID: c2\r\nCall-ID: c1\r\nTo: <sip:b@x.example>;tag=bt\r\nFrom: <sip:a@y.example>;tag=at\r\n", false),
        ("Call-ID: c1x\r\nTo: <sip:b@x.example>;tag=bt\r\nFrom: <sip:a@y.example>;tag=at\r\n", false),
        ("Call-ID: c1\r\nTo: <sip:b@x.example>;tag=bt2\r\nFrom: <sip:a@y.example>;tag=at\r\n", false),
        ("Call-ID: c1\r\nTo: <sip:b@x.example>;tag=bt\r\nFrom: <sip:a@y.example>;tag=ax\r\n", false),
        ("Call-ID: c1\r\nTo: <sip:b@x.example>\r\nFrom: <sip:a@y.example>;tag=at\r\n", false),
        (
            "Call-ID: c1\r\nTo: <sip:b@x.example>;tag=bt\r\nTo: <sip:b@x.example>;tag=bt\r\n"
                + "From: <sip:a@y.example>;tag=at\r\n", false
        ),
        (
            "Call-ID: c1\r\nTo: <sip:b@x.example>;tag=bt\r\nFrom: <sip:a@y.example>;tag=at\r\n"
                + "f: <sip:a@y.example>;tag=at\r\n", false
        ),
        ("To: <sip:b@x.example>;tag=bt\r\nFrom: <sip:a@y.example>;tag=at\r\n", false),
        ("Call-ID: c1\r\nTo: \"B;tag=bt\" <sip:b@x.example>\r\nFrom: <sip:a@y.example>;tag=at\r\n", false),
    ])
    func dialogFieldsInOnePass(head: String, expected: Bool) throws {
        let text =
            "BYE sip:b@x.example SIP/2.0\r\nVia: SIP/2.0/UDP y.example;branch=z9hG4bK1\r\n" + head
            + "CSeq: 2 BYE\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n"
        let fields = try SIPRequest(parsing: Array(text.utf8)).headerFields
        var callID = "c1"
        var toTag = "bt"
        var fromTag = "at"
        let onePass = callID.withUTF8 { callID in
            toTag.withUTF8 { toTag in
                fromTag.withUTF8 { TagScan.fields(fields, callID: callID, toTag: toTag, fromTag: $0) }
            }
        }
        let separately =
            fields.firstValue(of: .callID, is: "c1") && TagScan.field(.to, of: fields, hasTag: "bt")
            && TagScan.field(.from, of: fields, hasTag: "at")
        #expect(onePass == expected)
        #expect(onePass == separately)
    }

    /// Every To and From of the RFC 4475 torture messages and the benchmark messages that the message layer
    /// parses: where the scan answers, it agrees with the parse.
    @Test func agreesWithTheParserOnTheCorpora() throws {
        let data = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("SIPMessageTests/Data")
        var files: [URL] = []
        for folder in ["rfc4475", "bench"] {
            let url = data.appendingPathComponent(folder)
            let names = try FileManager.default.contentsOfDirectory(atPath: url.path)
            files += names.filter { $0.hasSuffix(".dat") || $0.hasSuffix(".sip") }.map {
                url.appendingPathComponent($0)
            }
        }
        #expect(files.count >= 55)
        var answered = 0
        for file in files {
            guard let bytes = FileManager.default.contents(atPath: file.path),
                let message = try? Message(parsing: [UInt8](bytes))
            else { continue }
            let fields = message.headerFields
            for header in [SIPField.Name.to, .from] {
                let parsed = try? header == .to ? fields.to : fields.from
                switch TagScan(fields, header) {
                case .present(let tag):
                    #expect(parsed?.tag == tag, "\(file.lastPathComponent) \(header)")
                    answered += 1
                case .absent:
                    // Absent says nothing of the rest of the value: a To the parser refuses (badaspec's
                    // spaces inside <>) has no tag either way.
                    #expect(parsed?.tag == nil, "\(file.lastPathComponent) \(header)")
                    answered += 1
                case .unclear:
                    break
                }
            }
        }
        #expect(answered >= 60)
    }
}
