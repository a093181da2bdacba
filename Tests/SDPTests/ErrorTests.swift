import SDP
import Testing

/// A malformed description and the error it must give.
struct Malformed: Sendable, CustomTestStringConvertible {
    let name: String
    let text: String
    let code: SDPError.Code
    let line: Int?

    var testDescription: String { name }

    /// A valid description with `session` lines after s= and `media` after its one m= line, or replaced whole.
    static let head = "v=0\no=- 1 1 IN IP4 192.0.2.1\ns=-\nc=IN IP4 192.0.2.1\nt=0 0\n"

    static func body(_ name: String, _ text: String, _ code: SDPError.Code, line: Int?) -> Malformed {
        Malformed(name: name, text: text, code: code, line: line)
    }

    /// `head` followed by `tail`.
    static func tail(_ name: String, _ tail: String, _ code: SDPError.Code, line: Int?) -> Malformed {
        Malformed(name: name, text: head + tail, code: code, line: line)
    }
}

@Suite("Malformed descriptions")
struct ErrorTests {
    static let cases: [Malformed] = [
        .body("missing v=", "o=- 1 1 IN IP4 h\ns=-\nt=0 0\n", .missingLine, line: 1),
        .body("v= not first", "s=-\nv=0\no=- 1 1 IN IP4 h\n", .missingLine, line: 1),
        .body("v=1", "v=1\no=- 1 1 IN IP4 h\ns=-\n", .unsupportedVersion, line: 1),
        .body("missing o=", "v=0\ns=-\nt=0 0\n", .missingLine, line: nil),
        .body("missing s=", "v=0\no=- 1 1 IN IP4 h\nt=0 0\n", .missingLine, line: nil),
        .body("empty", "", .missingLine, line: nil),
        .body("o= with five fields", "v=0\no=- 1 1 IN IP4\ns=-\n", .malformedOrigin, line: 2),
        .body("o= version not a number", "v=0\no=- 1 x IN IP4 h\ns=-\n", .malformedOrigin, line: 2),
        .body("o= version too large", "v=0\no=- 1 99999999999999999999 IN IP4 h\ns=-\n", .malformedOrigin, line: 2),
        .body("duplicate o=", "v=0\no=- 1 1 IN IP4 h\no=- 1 1 IN IP4 h\ns=-\n", .duplicateLine, line: 3),
        .tail("duplicate s=", "s=again\n", .duplicateLine, line: 6),
        .tail("duplicate session c=", "c=IN IP4 192.0.2.2\n", .duplicateLine, line: 6),
        .tail("c= with two fields", "m=audio 1 RTP/AVP 0\nc=IN IP4\n", .malformedConnection, line: 7),
        .tail("c= TTL out of range", "m=audio 1 RTP/AVP 0\nc=IN IP4 233.252.0.1/256\n", .malformedConnection, line: 7),
        .tail("c= count of 0", "m=audio 1 RTP/AVP 0\nc=IN IP6 ff15::1/0\n", .malformedConnection, line: 7),
        .tail("c= too many slashes", "m=audio 1 RTP/AVP 0\nc=IN IP6 ff15::1/1/2\n", .malformedConnection, line: 7),
        .body(
            "media without c=", "v=0\no=- 1 1 IN IP4 h\ns=-\nt=0 0\nm=audio 4000 RTP/AVP 0\n", .missingConnection,
            line: 5),
        .body(
            "second media without c=",
            "v=0\no=- 1 1 IN IP4 h\ns=-\nt=0 0\nm=audio 4000 RTP/AVP 0\nc=IN IP4 h\nm=audio 4002 RTP/AVP 0\n",
            .missingConnection, line: 7),
        .tail("b= without colon", "b=AS64\n", .malformedBandwidth, line: 6),
        .tail("b= not a number", "b=AS:lots\n", .malformedBandwidth, line: 6),
        .tail("t= with one field", "t=0\n", .malformedTiming, line: 6),
        .body("r= before t=", "v=0\no=- 1 1 IN IP4 h\ns=-\nr=7d 1h 0\n", .misplacedLine, line: 4),
        .tail("r= with two fields", "r=7d 1h\n", .malformedTiming, line: 6),
        .tail("r= bad unit", "r=7w 1h 0\n", .malformedTiming, line: 6),
        .tail("z= odd field count", "z=3730928400\n", .malformedTiming, line: 6),
        .tail("m= without formats", "m=audio 4000 RTP/AVP\n", .malformedMedia, line: 6),
        .tail("m= with only a type", "m=audio\n", .malformedMedia, line: 6),
        .tail("m= port not a number", "m=audio abc RTP/AVP 0\n", .badPort, line: 6),
        .tail("m= port too large", "m=audio 65536 RTP/AVP 0\n", .badPort, line: 6),
        .tail("m= negative port", "m=audio -1 RTP/AVP 0\n", .badPort, line: 6),
        .tail("m= port count of 0", "m=audio 4000/0 RTP/AVP 0\n", .badPort, line: 6),
        .tail("m= bad media token", "m=au\"dio 4000 RTP/AVP 0\n", .malformedMedia, line: 6),
        .tail("session line in media", "m=audio 4000 RTP/AVP 0\ns=again\n", .misplacedLine, line: 7),
        .tail("t= in media", "m=audio 4000 RTP/AVP 0\nt=0 0\n", .misplacedLine, line: 7),
        .tail("duplicate media i=", "m=audio 4000 RTP/AVP 0\ni=a\ni=b\n", .duplicateLine, line: 8),
        .tail("no equals sign", "m=audio 4000 RTP/AVP 0\nrtpmap\n", .malformedLine, line: 7),
        .tail("upper-case type", "A=sendrecv\n", .malformedLine, line: 6),
        .tail("space before equals", "a =sendrecv\n", .malformedLine, line: 6),
        .tail("NUL in a line", "a=tool:x\u{0}y\n", .invalidCharacter, line: 6),
        .tail("bare CR in a line", "a=tool:x\ry\n", .invalidCharacter, line: 6),
        .tail("attribute without a name", "a=:value\n", .malformedAttribute, line: 6),
        .tail("attribute name with a space", "a=rtp map:0 PCMU/8000\n", .malformedAttribute, line: 6),
    ]

    @Test("malformed SDP is refused with the right code and line", arguments: cases)
    func refused(_ malformed: Malformed) {
        #expect {
            try SessionDescription(parsing: malformed.text)
        } throws: { error in
            guard let error = error as? SDPError else { return false }
            return error.code == malformed.code && error.lineNumber == malformed.line && error.status == 400
        }
    }

    @Test func errorsNameTheLineAndFault() throws {
        let error = try #require(throws: SDPError.self) {
            try SessionDescription(parsing: Malformed.head + "m=audio 70000 RTP/AVP 0\n")
        }
        #expect(error.code == .badPort)
        #expect(error.lineNumber == 6)
        #expect(error.line == "m=audio 70000 RTP/AVP 0")
        #expect(error.status == 400)
        #expect(error.reasonPhrase == "Bad SDP (bad port, line 6)")
        #expect(
            error.description == "400 bad port: port is not a number in 0...65535 (line 6): m=audio 70000 RTP/AVP 0")
    }

    @Test func limitsAreEnforced() throws {
        let media = String(repeating: "m=audio 4000 RTP/AVP 0\n", count: 65)
        let tooManyMedia = try #require(throws: SDPError.self) {
            try SessionDescription(parsing: Malformed.head + media)
        }
        #expect(tooManyMedia.code == .tooManyMediaDescriptions)
        #expect(tooManyMedia.lineNumber == 70)
        let sixtyFour = String(repeating: "m=audio 4000 RTP/AVP 0\n", count: 64)
        #expect(try SessionDescription(parsing: Malformed.head + sixtyFour).media.count == 64)

        let longLine = "a=x:" + String(repeating: "y", count: 4093) + "\n"
        let tooLong = try #require(throws: SDPError.self) { try SessionDescription(parsing: Malformed.head + longLine) }
        #expect(tooLong.code == .lineTooLong)
        #expect(tooLong.line?.utf8.count == 100)
        let longest = "a=x:" + String(repeating: "y", count: 4092) + "\n"
        #expect(try SessionDescription(parsing: Malformed.head + longest).attributes.count == 1)

        let small = SDPLimits(maximumSize: 100, maximumLines: 8)
        let tooLarge = try #require(throws: SDPError.self) {
            try SessionDescription(parsing: Malformed.head + longest, limits: small)
        }
        #expect(tooLarge.code == .descriptionTooLarge)
        let manyLines = Malformed.head + String(repeating: "a=x\n", count: 4)
        let tooMany = try #require(throws: SDPError.self) { try SessionDescription(parsing: manyLines, limits: small) }
        #expect(tooMany.code == .tooManyLines)
        #expect(tooMany.lineNumber == 9)
    }

    @Test func negotiationErrorsCarryTheirStatus() {
        let expectations: [(SDPError.Code, Int)] = [
            (.malformedAttribute, 400), (.noCommonCodec, 488), (.unsupportedTransport, 488), (.srtpRequired, 488),
            (.noAcceptableCrypto, 488), (.noAcceptableMedia, 488), (.answerMismatch, 488), (.offerPending, 491),
            (.offerNotAnswered, 500), (.keySourceFailed, 500), (.noOfferPending, 400),
        ]
        for (code, status) in expectations {
            #expect(code.status == status, "\(code)")
        }
        #expect(SDPError.Code.badPort != .malformedMedia)
        #expect(SDPError.Code.badPort.description == "bad port")
    }

    @Test func arbitraryBytesNeverTrap() {
        // A cheap sweep: every prefix of a real offer, and each one with a byte flipped, parses or throws.
        let offer = TestData.bytes("offers/baresip-srtp-mand.sdp")
        var outcomes = (parsed: 0, refused: 0)
        for end in stride(from: 0, through: offer.count, by: 7) {
            var bytes = Array(offer[..<end])
            if !bytes.isEmpty { bytes[end / 2] ^= 0x5A }
            do {
                let session = try SessionDescription(parsing: bytes)
                _ = try? session.media.first?.cryptos
                #expect(try SessionDescription(parsing: session.serialized()) == session)
                outcomes.parsed += 1
            } catch {
                outcomes.refused += 1
            }
        }
        #expect(outcomes.parsed > 0)
        #expect(outcomes.refused > 0)
    }
}
