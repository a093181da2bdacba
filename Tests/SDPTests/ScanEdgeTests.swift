import Foundation
import SDP
import Testing

/// The scan behind `SessionDescription(parsing:)` at the byte edges of its line and field walks (line ends, white
/// space, bytes that end a field, fields longer than a word, limits), checked against the model parser
/// (`SessionDescription(parsingModel:)`): both accept or both refuse with the same error, and read the same values.
@Suite("Scan edges against the model parser")
struct ScanEdgeTests {
    static let head = "v=0\r\no=alice 2890844526 2890844527 IN IP4 192.0.2.10\r\ns=-\r\n"
    static let tail = "t=0 0\r\nm=audio 49170 RTP/AVP 0 8 101\r\na=rtpmap:101 telephone-event/8000\r\na=sendrecv\r\n"

    /// Connection lines (and the bytes around them) probing the field walk: each byte that ends a field at each
    /// offset within and across an eight-byte word, and fields longer than a word.
    static let connections: [String] = {
        var lines: [String] = [
            "c=IN IP4 192.0.2.10\r\n",
            "c=IN  IP4 192.0.2.10\r\n",
            "c=IN IP4 192.0.2.10 \r\n",
            "c=IN IP4 192.0.2.10  \r\n",
            "c=IN\tIP4\t192.0.2.10\r\n",
            "c= IN IP4 192.0.2.10\r\n",
            "c=IN IP4 192.0.2.10\n",
            "c=IN IP4\r\n",
            "c=IN IP4 192.0.2.10 x\r\n",
            "c=IN IP4 averyveryverylonghostname.example.com\r\n",
            "c=IN IP4 averyveryverylonghostname.example.com \r\n",
            "c=IN IP6 2001:db8:0:0:0:0:0:1\r\n",
            "c=IN IP4 h\u{00E9}te.example\r\n",
            "c=IN IP4 192.0.2.10/127\r\n",
            "c=IN IP4 \r\n",
            "c=\r\n",
        ]
        // A byte that is not a field character, or a field character above 0x7F, at each place of a long address.
        for byte in [0x01, 0x0B, 0x1F, 0x7F, 0x80, 0xFF, 0x21, 0x7E] as [UInt8] {
            for offset in 0..<17 {
                var address = Array("abcdefghijklmnopq.example".utf8)
                address[offset] = byte
                lines.append("c=IN IP4 " + String(decoding: address, as: UTF8.self) + "\r\n")
            }
        }
        return lines
    }()

    @Test("a connection line reads as the model parser reads it", arguments: connections.indices)
    func connectionLine(_ index: Int) throws {
        try expectSameAsModel(Array((Self.head + Self.connections[index] + Self.tail).utf8))
    }

    /// Whole descriptions probing the line walk: line ends, blank lines, NUL and CR where they do not belong, the
    /// last line without its end, and bytes placed so that a word of eight holds them at each offset.
    static let descriptions: [[UInt8]] = {
        let base = head + "c=IN IP4 192.0.2.10\r\n" + tail
        var texts: [String] = [
            base,
            base.replacingOccurrences(of: "\r\n", with: "\n"),
            base + "\r\n",
            base + "\n\n",
            "\r\n" + base,
            String(base.dropLast(2)),
            String(base.dropLast(1)),
            base + "a=rtcp-mux",
            base + "a=rtcp-mux\r",
            base + "a=rtcp-mux\r\r",
            base + "\r",
            base.replacingOccurrences(of: "s=-\r\n", with: "s=-\r\r\n"),
            base.replacingOccurrences(of: "s=-\r\n", with: "s=-\rx\r\n"),
            base.replacingOccurrences(of: "s=-\r\n", with: "s=-\n\r\n"),
            base.replacingOccurrences(of: "s=-\r\n", with: "s=- \r\n"),
            base.replacingOccurrences(of: "s=-\r\n", with: "s=\r\n"),
            base.replacingOccurrences(of: "s=-\r\n", with: "s=a\tb\r\n"),
            base.replacingOccurrences(of: "s=-\r\n", with: "s=caf\u{00E9} session\r\n"),
            base.replacingOccurrences(of: "t=0 0", with: "t=0  0 "),
            base.replacingOccurrences(of: "t=0 0", with: "t=0"),
            base.replacingOccurrences(of: "m=audio 49170 RTP/AVP 0 8 101", with: "m=audio  49170/2 RTP/AVP  0 8 101 "),
            base.replacingOccurrences(of: "m=audio 49170 RTP/AVP 0 8 101", with: "m=audio 49170 RTP/AVP"),
            base.replacingOccurrences(of: "o=alice", with: "o=alicealicealicealice"),
            base.replacingOccurrences(of: "2890844527", with: "28908445270000000000"),
            base.replacingOccurrences(of: "2890844527", with: "289084452700000000000"),
        ]
        // Numbers of each length around a word and around the 20 digits of the largest, and a byte that is not
        // a digit at each place of one.
        for digits in [
            "0", "12345678", "123456789", "1234567890123456", "12345678901234567", "1234567890123456789",
            "18446744073709551615", "18446744073709551616", "123456789012345678901", "-1", "+1", "1 ",
        ] {
            texts.append(base.replacingOccurrences(of: "2890844527", with: digits))
            texts.append(base.replacingOccurrences(of: "t=0 0", with: "t=0 " + digits))
            texts.append(
                base.replacingOccurrences(
                    of: "c=IN IP4 192.0.2.10\r\n", with: "c=IN IP4 192.0.2.10\r\nb=AS:" + digits + "\r\n"))
        }
        for byte in ["/", ":", "a", "\u{7F}", "\u{00E9}"] {
            for offset in 0..<12 {
                var digits = Array("123456789012".utf8)
                digits.replaceSubrange(offset..<(offset + 1), with: Array(byte.utf8))
                let number = String(decoding: digits, as: UTF8.self)
                texts.append(base.replacingOccurrences(of: "2890844527", with: number))
                texts.append(base.replacingOccurrences(of: "t=0 0", with: "t=" + number + " 0"))
            }
        }
        // The formats of an m= line past the first: white space, a byte no field holds at each place, and
        // fewer fields than a media line needs.
        let media = "m=audio 49170 RTP/AVP 0 8 101"
        for formats in ["0", "0 ", "0\t8", "0 8 9 101 102 103 104 105 106", "0 8 9 101 102 103 104 105 106 "] {
            texts.append(base.replacingOccurrences(of: media, with: "m=audio 49170 RTP/AVP " + formats))
        }
        for byte in ["\u{7F}", "\u{01}", "\u{1F}", "\t", "\u{00E9}"] {
            for offset in 0..<18 {
                var formats = Array("0 8 9 101 102 103 104".utf8)
                formats.replaceSubrange(offset..<(offset + 1), with: Array(byte.utf8))
                let line = "m=audio 49170 RTP/AVP " + String(decoding: formats, as: UTF8.self)
                texts.append(base.replacingOccurrences(of: media, with: line))
            }
        }
        // A NUL, lone CR, tab and DEL at each offset of the s= line.
        for byte in ["\0", "\r", "\t", "\u{7F}"] {
            for offset in 0..<10 {
                let name = "s=" + String(repeating: "x", count: offset) + byte + "yyyyyyyy\r\n"
                texts.append(base.replacingOccurrences(of: "s=-\r\n", with: name))
            }
        }
        return texts.map { Array($0.utf8) }
    }()

    @Test("a description reads as the model parser reads it", arguments: descriptions.indices)
    func description(_ index: Int) throws {
        try expectSameAsModel(Self.descriptions[index])
    }

    @Test func theLineLimitsApplyAsTheModelAppliesThem() throws {
        let base = Self.head + "c=IN IP4 192.0.2.10\r\n" + Self.tail
        let lineCount = base.split(separator: "\r\n").count
        for maximumLines in [lineCount - 1, lineCount, lineCount + 1] {
            var limits = SDPLimits()
            limits.maximumLines = maximumLines
            try expectSameAsModel(Array(base.utf8), limits: limits)
        }
        // The longest line is the o= line.
        let longest = "o=alice 2890844526 2890844527 IN IP4 192.0.2.10".utf8.count
        for maximumLineLength in [longest - 1, longest, longest + 1] {
            var limits = SDPLimits()
            limits.maximumLineLength = maximumLineLength
            try expectSameAsModel(Array(base.utf8), limits: limits)
        }
    }

    /// Offers of 60 to 70 lines and of several hundred: the scan keeps the first 64 lines on the stack and moves
    /// to an array past them, with the audio section (and its rtpmap) on either side of that boundary.
    static let lineCounts = [60, 62, 63, 64, 65, 66, 70, 300]

    @Test("a long offer is scanned, read and answered as the model reads and answers it", arguments: lineCounts)
    func longOffer(_ lineCount: Int) throws {
        let head = Self.head + "c=IN IP4 192.0.2.10\r\nt=0 0\r\n"
        let media =
            "m=audio 49170 RTP/AVP 0 8 101\r\na=rtpmap:0 PCMU/8000\r\na=rtpmap:101 telephone-event/8000\r\n"
            + "a=fmtp:101 0-15\r\na=ptime:20\r\na=rtcp:49171\r\na=sendrecv\r\n"
        let fixed = head.split(separator: "\r\n").count + media.split(separator: "\r\n").count
        // Filler attributes at session level, so that the audio section sits after the first 64 lines.
        let filler = (0..<Swift.max(0, lineCount - fixed)).map { "a=x-filler-\($0):\($0)\r\n" }.joined()
        let bytes = Array((head + filler + media).utf8)
        let scanned = try SessionDescription(parsing: bytes)
        #expect(scanned.isKeptAsBytes)
        try expectSameAsModel(bytes)

        var fromBytes = OfferAnswer.testing()
        var fromModel = OfferAnswer.testing()
        let a = try fromBytes.answer(scanned)
        let b = try fromModel.answer(scanned.withModel)
        #expect(a.sessionDescription.isKeptAsBytes)
        #expect(a.sessionDescription.description == b.sessionDescription.description)
        #expect(a.session == b.session)
        #expect(a.session.remoteRTCPAddress?.port == 49171)
    }

    private func expectSameAsModel(
        _ bytes: [UInt8], limits: SDPLimits = SDPLimits(), sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let scanned = Result { try SessionDescription(parsing: bytes, limits: limits) }
        let model = Result { try SessionDescription(parsingModel: bytes, limits: limits) }
        switch (scanned, model) {
        case (.success(let a), .success(let b)):
            #expect(a == b, sourceLocation: sourceLocation)
            #expect(a.serialized() == b.serialized(), sourceLocation: sourceLocation)
            #expect(a.connection == b.connection, sourceLocation: sourceLocation)
            #expect(a.media == b.media, sourceLocation: sourceLocation)
            #expect(a.origin == b.origin, sourceLocation: sourceLocation)
            #expect(a.sessionName == b.sessionName, sourceLocation: sourceLocation)
        case (.failure(let a), .failure(let b)):
            #expect(a as? SDPError == b as? SDPError, sourceLocation: sourceLocation)
        default:
            Issue.record("one parser accepted, the other refused: \(scanned), \(model)", sourceLocation: sourceLocation)
        }
    }
}
