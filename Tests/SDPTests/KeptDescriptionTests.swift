import Foundation
import SDP
import Testing

/// The engine keeps its last local and remote descriptions as their bytes alone (`KeptDescriptions`): what it reads
/// back, and the re-offers and answers made from them, are those of an engine that keeps them as models.
@Suite("Descriptions kept for the session")
struct KeptDescriptionTests {
    /// The offers a plain SIP engine answers (the WebRTC one needs the WebRTC profile).
    static let offers = TestData.files(in: "offers").filter { !$0.contains("webrtc") }

    @Test("an answered offer and its answer read back as they were", arguments: offers)
    func answeredOfferReadsBack(_ file: String) throws {
        let offer = try TestData.description(file)
        var engine = OfferAnswer.testing(policy: .optional)
        let answer = try engine.answer(offer)
        let remote = try #require(engine.remoteDescription)
        #expect(remote.isKeptAsBytes)
        #expect(!remote.hasBuiltModel)
        #expect(remote == offer)
        #expect(remote.serialized() == offer.serialized())
        #expect(remote.media == offer.media)
        let local = try #require(engine.localDescription)
        #expect(local.isKeptAsBytes)
        #expect(local == answer.sessionDescription)
        #expect(local.serialized() == answer.sessionDescription.serialized())
        #expect(local.origin == answer.sessionDescription.origin)
    }

    @Test("both descriptions share one array, each read back as it was", arguments: offers)
    func bothInOneArray(_ file: String) throws {
        let offer = try TestData.description(file)
        var engine = OfferAnswer.testing(policy: .optional)
        let answer = try engine.answer(offer)
        #expect(engine.keptByteArrayCount == 1)
        #expect(engine.localDescription?.serialized() == answer.sessionDescription.serialized())
        #expect(engine.remoteDescription?.serialized() == offer.serialized())
        // A re-offer replaces the local one alone: the remote one's bytes stay as they were.
        let reoffer = try engine.makeHoldOffer()
        #expect(engine.keptByteArrayCount == 1)
        #expect(engine.localDescription == reoffer)
        #expect(engine.remoteDescription == offer)
        #expect(engine.remoteDescription?.isKeptAsBytes == true)
        engine.cancelPendingOffer()
        #expect(engine.localDescription == answer.sessionDescription)
        #expect(engine.remoteDescription == offer)
    }

    @Test("re-offers and answers after an exchange are those of the model path", arguments: offers)
    func reoffersLikeTheModel(_ file: String) throws {
        let offer = try TestData.description(file)
        var fromBytes = OfferAnswer.testing(policy: .optional)
        var fromModel = OfferAnswer.testing(policy: .optional) { $0.writesOffersAsBytes = false }
        _ = try fromBytes.answer(offer)
        _ = try fromModel.answer(offer.withModel)
        #expect(fromBytes.remoteDescription == fromModel.remoteDescription)
        // Hold, then resume: each re-offer is read against the kept descriptions, its version one up.
        for resume in [false, true] {
            let a = try resume ? fromBytes.makeResumeOffer() : fromBytes.makeHoldOffer()
            let b = try resume ? fromModel.makeResumeOffer() : fromModel.makeHoldOffer()
            #expect(a.description == b.description, "\(file), resume \(resume)")
            fromBytes.cancelPendingOffer()
            fromModel.cancelPendingOffer()
            #expect(fromBytes.localDescription == fromModel.localDescription)
        }
        // The other side offers again, unchanged: the answer is the same on both paths.
        let again = try fromBytes.answer(offer)
        let modelAgain = try fromModel.answer(offer.withModel)
        #expect(again.sessionDescription.description == modelAgain.sessionDescription.description)
        #expect(again.session == modelAgain.session)
    }

    @Test func aRepeatedAnswerReturnsTheSessionInForce() throws {
        var engine = OfferAnswer.testing()
        _ = try engine.makeOffer()
        let bytes = TestData.bytes("answers/asterisk-default.sdp")
        // An answer of the same audio as our offer (PCMU, PCMA, telephone-event at 192.0.2.1).
        let answer = try SessionDescription(parsing: bytes)
        let session = try engine.receiveAnswer(answer)
        // The same bytes again, parsed anew (a 200 after an unreliable 183): no new exchange.
        let repeated = try engine.receiveAnswer(try SessionDescription(parsing: bytes))
        #expect(repeated == session)
        #expect(engine.remoteDescription == answer)
        #expect(engine.remoteDescription?.hasBuiltModel == false)
    }

    /// Replacing one description keeps the other's bytes as they were, wherever they move in the shared array:
    /// our offer stays when the answer comes, the answer stays when a longer or shorter offer replaces ours.
    @Test func replacingOneDescriptionKeepsTheOther() throws {
        var engine = OfferAnswer.testing()
        let offer = try engine.makeOffer()
        let bytes = TestData.bytes("answers/asterisk-default.sdp")
        let answer = try SessionDescription(parsing: bytes)
        _ = try engine.receiveAnswer(answer)
        #expect(engine.keptByteArrayCount == 1)
        #expect(engine.localDescription?.serialized() == offer.serialized())
        #expect(engine.localDescription?.origin == offer.origin)
        #expect(engine.remoteDescription?.serialized() == bytes)
        // A longer offer (a three-digit ptime) moves the answer's bytes along; the old one back moves them again.
        engine.configuration.packetTime = 100
        let longer = try engine.makeOffer()
        #expect(longer.serialized().count > offer.serialized().count)
        #expect(engine.keptByteArrayCount == 1)
        #expect(engine.localDescription?.serialized() == longer.serialized())
        #expect(engine.remoteDescription?.serialized() == bytes)
        #expect(engine.remoteDescription == answer)
        engine.cancelPendingOffer()
        #expect(engine.keptByteArrayCount == 1)
        #expect(engine.localDescription?.serialized() == offer.serialized())
        #expect(engine.localDescription?.origin.sessionVersion == offer.origin.sessionVersion)
        #expect(engine.remoteDescription?.serialized() == bytes)
        #expect(engine.remoteDescription?.hasBuiltModel == false)
    }

    @Test func aDescriptionWhoseModelWasBuiltIsKeptAsItIs() throws {
        let offer = try TestData.description("offers/asterisk.sdp")
        _ = offer.media
        #expect(offer.hasBuiltModel)
        var engine = OfferAnswer.testing()
        _ = try engine.answer(offer)
        #expect(engine.remoteDescription?.hasBuiltModel == true)
        #expect(engine.remoteDescription == offer)
    }
}
