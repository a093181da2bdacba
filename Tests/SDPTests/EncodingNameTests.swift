import SDP
import Testing

/// Encoding names matched ignoring ASCII case on the bytes path as on the model path: names of every length around
/// the 16 bytes the bytes path holds in words, letters in either case, and bytes that only differ above the letters.
@Suite("Encoding names on the bytes path")
struct EncodingNameTests {
    /// An offer of one audio line whose payload types 96... carry `names`, each at 8000 Hz.
    static func offer(_ names: [String]) throws -> SessionDescription {
        let types = names.indices.map { String(96 + $0) }
        var text = "v=0\r\no=- 1 1 IN IP4 192.0.2.9\r\ns=-\r\nc=IN IP4 192.0.2.9\r\nt=0 0\r\n"
        text += "m=audio 5004 RTP/AVP " + types.joined(separator: " ") + "\r\n"
        for (type, name) in zip(types, names) { text += "a=rtpmap:\(type) \(name)/8000\r\n" }
        return try SessionDescription(parsing: text)
    }

    static let cases: [(ours: String, offered: [String])] = [
        ("PCMU", ["pcmu"]), ("pcmu", ["PcMu"]), ("PCMU", ["PCMA", "PCMV"]), ("x-codec-sixteen1", ["X-CODEC-SIXTEEN1"]),
        ("x-codec-sixteen1", ["x-codec-sixteen"]), ("x-codec-seventeen", ["X-Codec-Seventeen"]),
        ("x-codec-seventeen", ["x-codec-sixteen1"]), ("a^b", ["a~b"]), ("a@b", ["a`b"]), ("a[b", ["A{B"]),
        ("Q", ["q", "telephone-event"]), ("codec", ["TELEPHONE-EVENT", "Codec"]),
    ]

    @Test("a codec is matched as the model path matches it", arguments: cases.indices)
    func matchedLikeTheModel(_ index: Int) throws {
        let (ours, offered) = Self.cases[index]
        let codecs = [Codec(payloadType: 100, encodingName: ours, clockRate: 8000), .telephoneEvent()]
        let offer = try Self.offer(offered)
        #expect(offer.isKeptAsBytes)
        expectBothPathsAgree(
            offer, bytes: .testing(codecs: codecs), model: .testing(codecs: codecs),
            context: "\(ours) against \(offered)")
    }

    @Test func theAnswerWritesOurNameUnderTheOfferersPayloadType() throws {
        var engine = OfferAnswer.testing(codecs: [
            Codec(payloadType: 100, encodingName: "X-Codec-Sixteen1", clockRate: 8000)
        ])
        let answer = try engine.answer(try Self.offer(["PCMA", "x-codec-sixteen1"]))
        #expect(answer.sessionDescription.description.contains("a=rtpmap:97 X-Codec-Sixteen1/8000\r\n"))
        #expect(answer.session.codec.encodingName == "X-Codec-Sixteen1")
    }

    @Test("a codec changed after it was made is written as changed, as on the model path")
    func changedCodecWrittenLikeTheModel() throws {
        var wide = Codec(payloadType: 100, encodingName: "L16", clockRate: 8000)
        wide.encodingName = "x-wide"
        wide.clockRate = 16000
        wide.channels = 2
        var offer = "v=0\r\no=- 1 1 IN IP4 192.0.2.9\r\ns=-\r\nc=IN IP4 192.0.2.9\r\nt=0 0\r\n"
        offer += "m=audio 5004 RTP/AVP 97\r\na=rtpmap:97 X-WIDE/16000/2\r\n"
        let description = try SessionDescription(parsing: offer)
        var fromBytes = OfferAnswer.testing(codecs: [wide])
        var fromModel = OfferAnswer.testing(codecs: [wide])
        let a = try fromBytes.answer(description)
        let b = try fromModel.answer(description.withModel)
        #expect(a.sessionDescription.isKeptAsBytes)
        #expect(a.sessionDescription.description.contains("a=rtpmap:97 x-wide/16000/2\r\n"))
        #expect(a.sessionDescription.description == b.sessionDescription.description)
        #expect(a.session == b.session)
    }

    @Test("an answer longer than the writer's stack space is written whole, as on the model path")
    func longAnswerWrittenLikeTheModel() throws {
        let candidates = (0..<40).map {
            Attribute("candidate", "\($0) 1 udp 2130706431 192.0.2.\($0 + 1) \(50000 + $0) typ host")
        }
        let offer = try Self.offer(["PCMU", "telephone-event"])
        var fromBytes = OfferAnswer.testing { $0.mediaAttributes = candidates }
        var fromModel = OfferAnswer.testing { $0.mediaAttributes = candidates }
        let a = try fromBytes.answer(offer)
        let b = try fromModel.answer(offer.withModel)
        #expect(a.sessionDescription.isKeptAsBytes)
        #expect(a.sessionDescription.serialized().count > 2048)
        #expect(a.sessionDescription.description == b.sessionDescription.description)
        #expect(try SessionDescription(parsingModel: a.sessionDescription.serialized()) == a.sessionDescription)
    }
}
