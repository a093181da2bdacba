import SDP
import Testing

@Suite("Offer/answer state and versions")
struct StateTests {
    @Test func aSecondOfferWhileOursIsPendingIsRefused() throws {
        var engine = OfferAnswer.testing()
        let offer = try engine.makeOffer()
        let again = try #require(throws: SDPError.self) { try engine.makeOffer() }
        #expect(again.code == .offerPending)
        #expect(again.status == 491)
        let hold = try #require(throws: SDPError.self) { try engine.makeHoldOffer() }
        #expect(hold.code == .offerPending)
        #expect(!engine.isLocalHold)
        // Glare: their offer crosses ours.
        var peer = Peer()
        let glare = try #require(throws: SDPError.self) { try engine.receiveOffer(try peer.description(.sendrecv)) }
        #expect(glare.code == .offerPending)
        #expect(glare.status == 491)
        #expect(engine.state == .localOfferPending)
        #expect(engine.localDescription == offer)
    }

    @Test func anOfferWhileTheirsIsUnansweredIsRefused() throws {
        var engine = OfferAnswer.testing()
        var peer = Peer()
        try engine.receiveOffer(try peer.description(.sendrecv))
        #expect(engine.state == .remoteOfferPending)
        let second = try #require(throws: SDPError.self) { try engine.receiveOffer(try peer.description(.sendonly)) }
        #expect(second.code == .offerNotAnswered)
        #expect(second.status == 500)
        let ours = try #require(throws: SDPError.self) { try engine.makeOffer() }
        #expect(ours.code == .offerNotAnswered)
        let answerInstead = try #require(throws: SDPError.self) { try engine.receiveAnswer(try peer.description(nil)) }
        #expect(answerInstead.code == .noOfferPending)
        // The first offer is still the one answered.
        #expect(try engine.makeAnswer().sessionDescription.media[0].direction == .sendrecv)
    }

    @Test func answersNeedAnOffer() throws {
        var engine = OfferAnswer.testing()
        var peer = Peer()
        #expect { try engine.makeAnswer() } throws: { ($0 as? SDPError)?.code == .noOfferPending }
        #expect { try engine.receiveAnswer(try peer.description(nil)) } throws: {
            ($0 as? SDPError)?.code == .noOfferPending
        }
        // After we answered their offer, another "answer" from them has nothing to answer.
        _ = try engine.answer(try peer.description(nil))
        #expect { try engine.receiveAnswer(try peer.description(nil)) } throws: {
            ($0 as? SDPError)?.code == .noOfferPending
        }
    }

    @Test func earlyMediaAnswerRepeatedInThe200() throws {
        var engine = OfferAnswer.testing()
        var peer = Peer()
        _ = try engine.makeOffer()
        let early = try peer.description(.sendrecv)
        let fromProvisional = try engine.receiveAnswer(early)
        #expect(engine.state == .stable)
        // The same answer again in the 200 OK: same session, nothing changes.
        #expect(try engine.receiveAnswer(early) == fromProvisional)
        // A 200 that answers differently (unreliable 183 then 200) replaces the early answer.
        var changed = try peer.description(.sendrecv)
        changed.media[0].port = 31000
        let final = try engine.receiveAnswer(changed)
        #expect(final.remoteRTPAddress?.port == 31000)
        #expect(engine.remoteDescription == changed)
        #expect(engine.session == final)
    }

    @Test func ourAnswerInA183IsReSentUnchanged() throws {
        var engine = OfferAnswer.testing()
        var peer = Peer()
        let answer = try engine.answer(try peer.description(.sendrecv))
        #expect(engine.localDescription == answer.sessionDescription)
        // A session refresh with the same offer gives the same answer, same version.
        let refresh = try engine.answer(try peer.description(.sendrecv))
        #expect(refresh.sessionDescription == answer.sessionDescription)
        // A changed answer increments the version by one.
        let held = try engine.answer(try peer.description(.sendonly))
        #expect(held.sessionDescription.origin.sessionVersion == answer.sessionDescription.origin.sessionVersion + 1)
        #expect(held.sessionDescription.origin.sessionID == answer.sessionDescription.origin.sessionID)
    }

    @Test func versionsAcrossOffersAndAnswers() throws {
        var engine = OfferAnswer.testing()
        var peer = Peer()
        let offer = try engine.makeOffer()
        let start = offer.origin.sessionVersion
        _ = try engine.receiveAnswer(try peer.description(.sendrecv))
        // Unchanged re-offer (session refresh): same version (RFC 3264 §8).
        #expect(try engine.makeOffer().origin.sessionVersion == start)
        _ = try engine.receiveAnswer(try peer.description(.sendrecv))
        // A re-offer with a new port: the next version.
        engine.configuration.rtpPort = 40100
        let moved = try engine.makeOffer()
        #expect(moved.origin.sessionVersion == start + 1)
        #expect(moved.media[0].port == 40100)
        _ = try engine.receiveAnswer(try peer.description(.sendrecv))
        // Our answer to their re-offer continues the same sequence.
        let answer = try engine.answer(try peer.description(.sendrecv))
        #expect(answer.sessionDescription.origin.sessionVersion == start + 2)
        #expect(answer.sessionDescription.origin.sessionID == offer.origin.sessionID)
    }

    @Test func aRefusedOfferChangesNothing() throws {
        var engine = OfferAnswer.testing()
        var peer = Peer()
        let first = try engine.answer(try peer.description(.sendrecv))
        let video = try sdp(Malformed.head + "m=video 5000 RTP/AVP 31\n")
        #expect { try engine.receiveOffer(video) } throws: { ($0 as? SDPError)?.status == 488 }
        #expect(engine.state == .stable)
        #expect(engine.session == first.session)
        #expect(engine.localDescription == first.sessionDescription)
        // Their offer refused later (the call is rejected by the app): back to stable.
        try engine.receiveOffer(try peer.description(.sendonly))
        engine.cancelPendingOffer()
        #expect(engine.state == .stable)
        #expect(engine.session == first.session)
        #expect(!engine.isRemoteHold)
    }

    @Test func reOffersKeepEveryMediaLine() throws {
        var engine = OfferAnswer.testing()
        let offer = try TestData.description("offers/linphone.sdp")
        let answer = try engine.answer(offer)
        let reOffer = try engine.makeHoldOffer()
        #expect(reOffer.media.count == 2)
        #expect(reOffer.media[0].port == 40000)
        // Opus keeps linphone's 96; telephone-event/8000 keeps 100, since 101 is linphone's 48 kHz one.
        #expect(reOffer.media[0].formats == ["96", "0", "8", "100"])
        #expect(try reOffer.media[0].rtpMap(for: 100)?.clockRate == 8000)
        #expect(reOffer.media[0].direction == .sendonly)
        #expect(reOffer.media[1] == answer.sessionDescription.media[1])
        #expect(reOffer.origin.sessionVersion == answer.sessionDescription.origin.sessionVersion + 1)
        // Their answer keeps the rejected video line.
        var reply = offer
        reply.media[0].setDirection(.recvonly)
        reply.media[1].port = 0
        reply.origin.sessionVersion += 1
        let held = try engine.receiveAnswer(reply)
        #expect(held.direction == .sendonly)
        #expect(held.mediaIndex == 0)
    }

    @Test func reOffersKeepTheAnsweredTransport() throws {
        var engine = OfferAnswer.testing(policy: .optional)
        _ = try engine.answer(try TestData.description("offers/baresip-srtp-mand.sdp"))
        let reOffer = try engine.makeOffer()
        #expect(reOffer.media[0].transport == .rtpSAVP)
        #expect(try reOffer.media[0].cryptos.count == 2)
        engine.cancelPendingOffer()
        engine.configuration.srtpPolicy = .off
        let plain = try engine.makeOffer()
        #expect(plain.media[0].transport == .rtpAVP)
        #expect(plain.media[0].attributes(named: "crypto").isEmpty)
    }
}
