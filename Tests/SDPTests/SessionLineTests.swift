import SDP
import Testing

/// The session-level lines of an answer written from the offer's bytes follow the configured username, address
/// and session name, set at any time, as the model path writes them.
@Suite("Session lines on the bytes path")
struct SessionLineTests {
    static let texts: [(username: String, address: String, sessionName: String)] = [
        ("-", "192.0.2.1", "-"), ("alice", "198.51.100.7", "A call"), ("bob", "2001:db8::1", "-"),
        ("-", "192.0.2.1", ""), ("-", "203.0.113.9/24", "-"), ("a b", "192.0.2.1", "-"), ("", "192.0.2.1", "-"),
    ]

    @Test("answered as the model path answers", arguments: texts.indices)
    func answeredLikeTheModel(_ index: Int) throws {
        let (username, address, sessionName) = Self.texts[index]
        let offer = try SessionDescription(
            parsing: "v=0\r\no=- 1 1 IN IP4 192.0.2.9\r\ns=-\r\nc=IN IP4 192.0.2.9\r\nt=0 0\r\n"
                + "m=audio 5004 RTP/AVP 0 101\r\na=rtpmap:101 telephone-event/8000\r\n")
        #expect(offer.isKeptAsBytes)
        func engine() -> OfferAnswer {
            var engine = OfferAnswer.testing()
            // Set after the engine is made: the answer must follow.
            engine.configuration.username = username
            engine.configuration.address = address
            engine.configuration.sessionName = sessionName
            return engine
        }
        var fromBytes = engine()
        var fromModel = engine()
        let a = Result { try fromBytes.answer(offer) }
        let b = Result { try fromModel.answer(offer.withModel) }
        switch (a, b) {
        case (.success(let a), .success(let b)):
            #expect(a.sessionDescription.description == b.sessionDescription.description)
            #expect(a.sessionDescription == b.sessionDescription)
            #expect(a.session == b.session)
        case (.failure(let a), .failure(let b)):
            #expect(a as? SDPError == b as? SDPError)
        default:
            Issue.record("\(Self.texts[index]): one path answered, the other did not")
        }
    }

    @Test func anAnswerCarriesTheAddressSetLast() throws {
        var engine = OfferAnswer.testing()
        engine.configuration.address = "2001:db8::7"
        let answer = try engine.answer(
            try SessionDescription(
                parsing:
                    "v=0\r\no=- 1 1 IN IP4 192.0.2.9\r\ns=-\r\nc=IN IP4 192.0.2.9\r\nt=0 0\r\nm=audio 5004 RTP/AVP 0\r\n"
            ))
        let text = answer.sessionDescription.description
        #expect(text.contains(" IN IP6 2001:db8::7\r\ns=-\r\nc=IN IP6 2001:db8::7\r\nt=0 0\r\n"))
    }
}
