import Foundation
import SDP
import Testing

/// The fast path: a description kept as its bytes (scanned, its model built when asked for) and an offer answered
/// from them, checked against the model path (`SessionDescription(parsingModel:)`, `withModel`).
@Suite("Descriptions kept as bytes")
struct BytesPathTests {
    static let offers = TestData.files(in: "offers") + TestData.files(in: "parsing")

    @Test("the usual descriptions are scanned, and read as the parser reads them", arguments: offers)
    func scannedLikeParsed(_ file: String) throws {
        let bytes = TestData.bytes(file)
        let scanned = try SessionDescription(parsing: bytes)
        let parsed = try SessionDescription(parsingModel: bytes)
        // The real products' offers hold only lines the scan takes.
        #expect(scanned.isKeptAsBytes == file.hasPrefix("offers/"))
        #expect(!parsed.isKeptAsBytes)
        #expect(scanned == parsed)
        #expect(scanned.hashValue == parsed.hashValue)
        #expect(scanned.serialized() == parsed.serialized())
        #expect(scanned.media == parsed.media)
        #expect(scanned.origin == parsed.origin)
    }

    @Test("an offer answered from its bytes gets the model path's answer", arguments: offers)
    func answeredLikeTheModel(_ file: String) throws {
        let offer = try TestData.description(file)
        let policies: [SRTPPolicy] = [.off, .optional, .mandatory]
        // The layer above's attributes (ICE's) go last into the audio section on both paths.
        let extras = [[], [Attribute("ice-ufrag", "8hhY"), Attribute("ice-options", "ice2"), Attribute("ice-lite")]]
        for policy in policies {
            for (prefersOffererOrder, attributes) in [(false, extras[0]), (true, extras[0]), (false, extras[1])] {
                var fromBytes = OfferAnswer.testing(policy: policy) {
                    $0.prefersOffererCodecOrder = prefersOffererOrder
                    $0.mediaAttributes = attributes
                }
                var fromModel = OfferAnswer.testing(policy: policy) {
                    $0.prefersOffererCodecOrder = prefersOffererOrder
                    $0.mediaAttributes = attributes
                }
                let a = Result { try fromBytes.answer(offer) }
                let b = Result { try fromModel.answer(offer.withModel) }
                switch (a, b) {
                case (.success(let a), .success(let b)):
                    #expect(a.sessionDescription.description == b.sessionDescription.description)
                    #expect(a.sessionDescription == b.sessionDescription)
                    #expect(a.sessionDescription.media == b.sessionDescription.media)
                    #expect(a.session == b.session)
                case (.failure(let a), .failure(let b)):
                    #expect(a as? SDPError == b as? SDPError)
                default:
                    Issue.record("\(file), \(policy): one path answered, the other did not")
                }
            }
        }
    }

    @Test func aPlainOfferIsAnsweredFromItsBytesAndTheAnswerIsSentAsWritten() throws {
        var engine = OfferAnswer.testing()
        let answer = try engine.answer(try TestData.description("offers/asterisk.sdp"))
        #expect(answer.sessionDescription.isKeptAsBytes)
        #expect(engine.localDescription?.isKeptAsBytes == true)
        // Written once: the bytes sent are the bytes kept, and they parse back to the same description.
        let wire = answer.sessionDescription.serialized()
        #expect(try SessionDescription(parsingModel: wire) == answer.sessionDescription)
        #expect(answer.sessionDescription.description == TestData.text("answers/asterisk-default.sdp"))
    }

    @Test func linesTheScanDoesNotTakeGoToTheParser() throws {
        let repeats = try sdp(
            """
            v=0
            o=- 1 1 IN IP4 192.0.2.5
            s=-
            c=IN IP4 224.2.1.1/127
            t=0 0
            r=7d 1h 0 25h
            m=audio 5004 RTP/AVP 0
            """)
        #expect(!repeats.isKeptAsBytes)
        #expect(repeats.connection?.ttl == 127)
        #expect(repeats.timing.first?.repeats == ["7d 1h 0 25h"])
        // A fault is reported as the parser reports it.
        #expect(throws: SDPError.self) { try sdp("v=0\no=- 1 x IN IP4 192.0.2.5\ns=-\n") }
        let error = try #require(throws: SDPError.self) { try sdp("v=0\no=- 1 x IN IP4 192.0.2.5\ns=-\n") }
        let modelError = try #require(throws: SDPError.self) {
            try SessionDescription(parsingModel: Array(crlf("v=0\no=- 1 x IN IP4 192.0.2.5\ns=-\n").utf8))
        }
        #expect(error == modelError)
        #expect(error.code == .malformedOrigin)
    }

    @Test func writingToADescriptionKeptAsBytesChangesItsModel() throws {
        var offer = try TestData.description("offers/asterisk.sdp")
        let copy = offer
        offer.media[0].port = 0
        offer.sessionName = "changed"
        #expect(!offer.isKeptAsBytes)
        #expect(copy.isKeptAsBytes)
        #expect(copy.media[0].port == 10000)
        #expect(offer.media[0].port == 0)
        let text = offer.description
        #expect(text.contains("m=audio 0 RTP/AVP"))
        #expect(text.contains("s=changed"))
        #expect(offer != copy)
    }

    @Test func anAnswerRepeatedAfterARefreshKeepsItsVersion() throws {
        var engine = OfferAnswer.testing()
        let offer = try TestData.description("offers/asterisk.sdp")
        let first = try engine.answer(offer)
        let again = try engine.answer(offer)
        #expect(again.sessionDescription == first.sessionDescription)
        #expect(again.sessionDescription.origin.sessionVersion == first.sessionDescription.origin.sessionVersion)
        // A changed answer takes the next version, still written as bytes.
        engine.configuration.packetTime = 30
        let changed = try engine.answer(offer)
        #expect(changed.sessionDescription.isKeptAsBytes)
        #expect(changed.sessionDescription.origin.sessionVersion == first.sessionDescription.origin.sessionVersion + 1)
        #expect(changed.sessionDescription.description.contains("a=ptime:30"))
    }
}
