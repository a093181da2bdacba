import Foundation
import SDP
import Testing

/// A negotiated session with one common codec keeps no list of its own: `codecs` reads `[codec]`, a longer
/// list reads back as set, and a change of `codec` leaves the list as it was.
@Suite struct NegotiatedCodecListTests {
    static let single = """
        v=0
        o=user1 53655765 2353687637 IN IP4 192.0.2.9
        s=-
        c=IN IP4 192.0.2.9
        t=0 0
        m=audio 6000 RTP/AVP 0
        a=rtpmap:0 PCMU/8000
        """

    @Test func oneCommonCodecReadsAsAListOfOne() throws {
        var engine = OfferAnswer.testing()
        let session = try engine.answer(try sdp(Self.single)).session
        #expect(session.codecs == [session.codec])
        #expect(session.codec.encodingName == "PCMU")
        // The model path negotiates the same session.
        var fromModel = OfferAnswer.testing()
        #expect(try fromModel.answer(try sdp(Self.single).withModel).session == session)
    }

    @Test func listsReadBackAndEqualSessionsStayEqual() throws {
        var engine = OfferAnswer.testing()
        let answered = try engine.answer(try TestData.description("offers/asterisk.sdp")).session
        #expect(answered.codecs.count > 1)
        #expect(answered.codecs.first == answered.codec)
        var session = answered
        let list = session.codecs
        session.codecs = [session.codec]
        #expect(session.codecs == [answered.codec])
        #expect(session != answered)
        session.codecs = list
        #expect(session == answered)
        #expect(session.hashValue == answered.hashValue)
        // Another codec to send with: the list stays.
        session.codec = list[1]
        #expect(session.codec == list[1])
        #expect(session.codecs == list)
        session.codec = list[0]
        #expect(session == answered)
        // A single-codec list written as a list equals the one kept as `[codec]`.
        var other = OfferAnswer.testing()
        var single = try other.answer(try sdp(Self.single)).session
        let before = single
        single.codecs = [single.codec]
        #expect(single == before)
        #expect(single.hashValue == before.hashValue)
    }
}
