import SDP
import Testing

/// An offered telephone-event list read in place on the bytes path as the model path reads it: the events both
/// ends support, or the format left out when the list is malformed.
@Suite("Telephone-event lists on the bytes path")
struct TelephoneEventListTests {
    static let lists = [
        "0-16", "0-15,66,70", " 0-11 , 12", "0-15,", ",1", "5-3", "0--3", "256", "0-255", "1-2-3", "15",
        "000000000000000000001", "0000000000000000000001", "0-15,16 ", "a-b", "0-", "-5", "0 -15", "11,10-12,0",
    ]

    @Test("answered as the model path answers", arguments: lists)
    func answeredLikeTheModel(_ list: String) throws {
        let offer = try SessionDescription(
            parsing: "v=0\r\no=- 1 1 IN IP4 192.0.2.9\r\ns=-\r\nc=IN IP4 192.0.2.9\r\nt=0 0\r\n"
                + "m=audio 5004 RTP/AVP 0 101\r\na=rtpmap:101 telephone-event/8000\r\na=fmtp:101 \(list)\r\n")
        #expect(offer.isKeptAsBytes)
        var fromBytes = OfferAnswer.testing()
        var fromModel = OfferAnswer.testing()
        let a = try fromBytes.answer(offer)
        let b = try fromModel.answer(offer.withModel)
        #expect(a.sessionDescription.description == b.sessionDescription.description)
        #expect(a.session == b.session)
    }

    /// Our configured list, offered back exactly as we wrote it (the bytes path then takes our events without
    /// parsing the offer's list): answered as the model path answers, with our list in its shortest form.
    @Test("our own list offered back", arguments: ["0-16", "0-15,16", "16,0-15", " 0-11 , 12", "0-15,"])
    func ownListOfferedBack(_ list: String) throws {
        let offer = try SessionDescription(
            parsing: "v=0\r\no=- 1 1 IN IP4 192.0.2.9\r\ns=-\r\nc=IN IP4 192.0.2.9\r\nt=0 0\r\n"
                + "m=audio 5004 RTP/AVP 0 101\r\na=rtpmap:101 telephone-event/8000\r\na=fmtp:101 \(list)\r\n")
        let codecs = [Codec.pcmu, Codec.telephoneEvent(events: list)]
        var fromBytes = OfferAnswer.testing(codecs: codecs)
        var fromModel = OfferAnswer.testing(codecs: codecs)
        let a = try fromBytes.answer(offer)
        let b = try fromModel.answer(offer.withModel)
        #expect(a.sessionDescription.description == b.sessionDescription.description)
        #expect(a.session == b.session)
    }

    @Test func theEventsBothEndsSupportAreAnswered() throws {
        var engine = OfferAnswer.testing()
        let answer = try engine.answer(
            try SessionDescription(
                parsing: "v=0\r\no=- 1 1 IN IP4 192.0.2.9\r\ns=-\r\nc=IN IP4 192.0.2.9\r\nt=0 0\r\n"
                    + "m=audio 5004 RTP/AVP 0 101\r\na=rtpmap:101 telephone-event/8000\r\na=fmtp:101 3, 5-7,66\r\n"))
        #expect(answer.session.telephoneEvent?.receiveFormatParameters == "3,5-7")
    }
}
