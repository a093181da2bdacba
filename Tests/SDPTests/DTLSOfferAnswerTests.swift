import SDP
import Testing

/// A certificate fingerprint of this side, and one of the peer's, for the DTLS tests.
enum DTLSTestFingerprints {
    static let ours = Fingerprint(hashFunction: "sha-256", bytes: Array(repeating: 0xAB, count: 32))
    static let theirs = Fingerprint(hashFunction: "sha-256", bytes: Array(repeating: 0x11, count: 32))
}

extension OfferAnswer {
    /// An engine that offers (`.dtls` keying) and accepts DTLS-SRTP with `DTLSTestFingerprints.ours`.
    static func dtls(
        policy: SRTPPolicy = .mandatory, webRTC: Bool = false, keying: SRTPKeying = .dtls,
        fingerprints: [Fingerprint] = [DTLSTestFingerprints.ours]
    ) -> OfferAnswer {
        testing(policy: policy) { configuration in
            configuration.keying = keying
            configuration.dtlsFingerprints = fingerprints
            configuration.offersWebRTCProfile = webRTC
        }
    }
}

/// The DTLS attributes of a media section, as written.
private func values(_ name: String, in media: MediaDescription) -> [String] {
    media.attributes(named: name).map { $0.value ?? "" }
}

@Suite("DTLS-SRTP offers and answers (RFC 5763, RFC 8842)")
struct DTLSOfferAnswerTests {
    @Test func aMandatoryDTLSOfferUsesItsProfileWithFingerprintSetupAndTLSID() throws {
        var engine = OfferAnswer.dtls()
        let offer = try engine.makeOffer()
        let audio = offer.media[0]
        #expect(audio.transport == .udpTLSRTPSAVP)
        #expect(try audio.fingerprints == [DTLSTestFingerprints.ours])
        #expect(try audio.setup == .actpass)
        let tlsID = try #require(try audio.firstValue(TLSID.self))
        #expect(tlsID.value.count == 32)
        #expect(try audio.cryptos.isEmpty)
        #expect(!offer.hasAttribute(named: "group"))
    }

    @Test func anOptionalDTLSOfferIsOpportunisticInAPlainProfile() throws {
        var engine = OfferAnswer.dtls(policy: .optional)
        let offer = try engine.makeOffer()
        #expect(offer.media[0].transport == .rtpAVP)
        #expect(try offer.media[0].fingerprints.count == 1)
        // A peer without DTLS answers plainly: a plain call (RFC 8643).
        var plain = OfferAnswer.testing()
        let answer = try plain.answer(offer)
        #expect(answer.session.dtls == nil && !answer.session.isSecure)
        #expect(try engine.receiveAnswer(answer.sessionDescription).dtls == nil)
    }

    @Test func theWebRTCProfileOffersBundleMidReducedSizeAndTheMIDExtension() throws {
        var engine = OfferAnswer.dtls(policy: .optional, webRTC: true)
        let offer = try engine.makeOffer()
        let audio = offer.media[0]
        #expect(audio.transport == .udpTLSRTPSAVPF)
        #expect(try audio.mid == "0")
        #expect(offer.attributes(named: "group").map(\.value) == ["BUNDLE 0"])
        #expect(audio.isRTCPMuxed && audio.allowsReducedSizeRTCP)
        #expect(values("extmap", in: audio) == ["1 urn:ietf:params:rtp-hdrext:sdes:mid"])
        #expect(try audio.setup == .actpass)
    }

    @Test func aBrowserOfferIsAnsweredActiveWithTheWebRTCAttributesItAsksFor() throws {
        var engine = OfferAnswer.dtls(policy: .optional, keying: .sdes)
        let offer = try TestData.description("offers/browser-webrtc.sdp")
        let answer = try engine.answer(offer)
        let audio = answer.sessionDescription.media[0]
        #expect(audio.transport == .udpTLSRTPSAVPF)
        #expect(try audio.setup == .active)
        #expect(try audio.fingerprints == [DTLSTestFingerprints.ours])
        #expect(try audio.firstValue(TLSID.self) != nil)
        #expect(audio.allowsReducedSizeRTCP && audio.isRTCPMuxed)
        #expect(try audio.mid == "0")
        #expect(answer.sessionDescription.attributes(named: "group").map(\.value) == ["BUNDLE 0"])
        // Only the MID extension is answered; the others are left out (RFC 8285 §8).
        #expect(values("extmap", in: audio) == ["4 urn:ietf:params:rtp-hdrext:sdes:mid"])
        let session = answer.session
        #expect(session.keying == .dtls && session.srtp == nil && session.isSecure)
        #expect(session.dtls?.setup == .active)
        #expect(session.dtls?.remoteFingerprints.first?.bytes.first == 0x4A)
        #expect(session.dtls?.remoteTLSID == nil)
        #expect(session.isBundled && session.isReducedSizeRTCP && session.midExtensionID == 4)
        #expect(session.mediaID == "0")
        #expect(session.codec.encodingName == "opus")
        #expect(session.codec.sendFormatParameters == "minptime=10;useinbandfec=1;usedtx=1")
    }

    @Test(arguments: [(SetupRole.actpass, SetupRole.active), (.passive, .active), (.active, .passive)])
    func theAnswerersRoleFollowsTheOffer(_ offered: SetupRole, _ answered: SetupRole) throws {
        var offerer = OfferAnswer.dtls()
        var offer = try offerer.makeOffer()
        offer.media[0].removeAttributes(named: "setup")
        offer.media[0].append(offered)
        var answerer = OfferAnswer.dtls(fingerprints: [DTLSTestFingerprints.theirs])
        let answer = try answerer.answer(offer)
        #expect(try answer.sessionDescription.media[0].setup == answered)
        #expect(answer.session.dtls?.setup == answered)
    }

    @Test func theOffererTakesTheRoleTheAnswerLeavesIt() throws {
        var offerer = OfferAnswer.dtls()
        var answerer = OfferAnswer.dtls(fingerprints: [DTLSTestFingerprints.theirs])
        let offer = try offerer.makeOffer()
        let answer = try answerer.answer(offer)
        let session = try offerer.receiveAnswer(answer.sessionDescription)
        #expect(session.dtls?.setup == .passive)
        #expect(session.dtls?.remoteFingerprints == [DTLSTestFingerprints.theirs])
        #expect(session.dtls?.remoteTLSID == answer.session.dtls?.localTLSID)
        #expect(session.dtls?.localTLSID == answer.session.dtls?.remoteTLSID)
        #expect(answer.session.dtls?.remoteFingerprints == [DTLSTestFingerprints.ours])
    }

    @Test func aDTLSAnswerWithoutAFingerprintIsRefused() throws {
        var offerer = OfferAnswer.dtls()
        let offer = try offerer.makeOffer()
        var answerer = OfferAnswer.dtls(fingerprints: [DTLSTestFingerprints.theirs])
        var answer = try answerer.answer(offer).sessionDescription
        answer.media[0].removeAttributes(named: "fingerprint")
        let error = try #require(throws: SDPError.self) { try offerer.receiveAnswer(answer) }
        #expect(error.code == .srtpRequired && error.status == 488)
    }

    @Test func dtlsOffersNeedSRTPAndACertificate() throws {
        let offer = try OfferAnswer.dtls().makeOfferCopy()
        var off = OfferAnswer.dtls(policy: .off)
        #expect(throws: SDPError.self) { try off.receiveOffer(offer) }
        var noCertificate = OfferAnswer.testing(policy: .optional)
        let error = try #require(throws: SDPError.self) { try noCertificate.receiveOffer(offer) }
        #expect(error.code == .unsupportedTransport)
        var noFingerprint = offer
        noFingerprint.media[0].removeAttributes(named: "fingerprint")
        var engine = OfferAnswer.dtls()
        #expect(throws: SDPError.self) { try engine.receiveOffer(noFingerprint) }
        var webRTCWithout = OfferAnswer.dtls(webRTC: true, fingerprints: [])
        #expect(throws: SDPError.self) { try webRTCWithout.makeOffer() }
    }

    @Test func anOpportunisticFingerprintIsTakenUnderOptionalAndMandatory() throws {
        let offer = try OfferAnswer.dtls(policy: .optional).makeOfferCopy()
        for policy in [SRTPPolicy.optional, .mandatory] {
            var engine = OfferAnswer.dtls(policy: policy, keying: .sdes, fingerprints: [DTLSTestFingerprints.theirs])
            let answer = try engine.answer(offer)
            #expect(answer.session.keying == .dtls)
            #expect(answer.sessionDescription.media[0].transport == .rtpAVP)
            // No WebRTC attributes were offered, so none are answered.
            #expect(!answer.sessionDescription.media[0].allowsReducedSizeRTCP)
        }
        var off = OfferAnswer.dtls(policy: .off, fingerprints: [DTLSTestFingerprints.theirs])
        #expect(try off.answer(offer).session.keying == nil)
    }

    @Test func anOfferKeptAsBytesIsAnsweredWithDTLSToo() throws {
        // Answers written from an offer's bytes know no DTLS: a fingerprint sends the offer to the model.
        let offer = try SessionDescription(parsing: OfferAnswer.dtls(policy: .optional).makeOfferCopy().serialized())
        var engine = OfferAnswer.dtls(policy: .optional, keying: .sdes, fingerprints: [DTLSTestFingerprints.theirs])
        let answer = try engine.answer(offer)
        #expect(answer.session.keying == .dtls)
        #expect(try answer.sessionDescription.media[0].fingerprints == [DTLSTestFingerprints.theirs])
        // A plain offer still is answered plainly by a side that has a certificate.
        let plain = try SessionDescription(parsing: OfferAnswer.testing().makeOfferCopy().serialized())
        #expect(try engine.answer(plain).session.keying == nil)
    }
}

@Suite("DTLS associations across re-offers (RFC 8842 §5)")
struct DTLSAssociationTests {
    /// An answered call, both engines stable.
    private func connected() throws -> (offerer: OfferAnswer, answerer: OfferAnswer) {
        var offerer = OfferAnswer.dtls()
        var answerer = OfferAnswer.dtls(fingerprints: [DTLSTestFingerprints.theirs])
        let answer = try answerer.answer(try offerer.makeOffer())
        _ = try offerer.receiveAnswer(answer.sessionDescription)
        return (offerer, answerer)
    }

    @Test func aReofferKeepsTheTLSIDAndTheAnswererItsRole() throws {
        var (offerer, answerer) = try connected()
        let before = try #require(offerer.session?.dtls)
        let reoffer = try offerer.makeHoldOffer()
        #expect(try reoffer.media[0].firstValue(TLSID.self) == before.localTLSID)
        #expect(try reoffer.media[0].setup == .actpass)
        let answer = try answerer.answer(reoffer)
        #expect(answer.session.dtls?.localTLSID == before.remoteTLSID)
        #expect(answer.session.dtls?.setup == .active)
        #expect(try offerer.receiveAnswer(answer.sessionDescription).dtls == before)
    }

    @Test func theAnswererKeepsAPassiveRoleWhenReofferedActpass() throws {
        var (offerer, answerer) = try connected()
        // The answerer re-offers: its offer says actpass, and the original offerer stays passive.
        let reoffer = try answerer.makeOffer()
        let answer = try offerer.answer(reoffer)
        #expect(try answer.sessionDescription.media[0].setup == .passive)
        #expect(answer.session.dtls?.setup == .passive)
        #expect(answer.session.dtls?.localTLSID == offerer.session?.dtls?.localTLSID)
        #expect(try answerer.receiveAnswer(answer.sessionDescription).dtls?.setup == .active)
    }

    @Test func aNewTLSIDIsANewAssociationAndTheAnswerGetsANewOneToo() throws {
        var (offerer, answerer) = try connected()
        let before = try #require(offerer.session?.dtls)
        offerer.renewDTLSAssociation()
        let reoffer = try offerer.makeOffer()
        let renewed = try #require(try reoffer.media[0].firstValue(TLSID.self))
        #expect(renewed != before.localTLSID)
        let answer = try answerer.answer(reoffer)
        #expect(answer.session.dtls?.remoteTLSID == renewed)
        #expect(answer.session.dtls?.localTLSID != before.remoteTLSID)
        let session = try offerer.receiveAnswer(answer.sessionDescription)
        #expect(session.dtls?.localTLSID == renewed)
    }

    @Test func aRenewalOfferHasANewTLSIDAndActpassAndTheAnswerANewOneToo() throws {
        var (offerer, answerer) = try connected()
        let before = try #require(offerer.session?.dtls)
        let reoffer = try offerer.makeDTLSRenewalOffer()
        let renewed = try #require(try reoffer.media[0].firstValue(TLSID.self))
        #expect(renewed != before.localTLSID)
        #expect(try reoffer.media[0].setup == .actpass)
        let answer = try answerer.answer(reoffer)
        #expect(answer.session.dtls?.localTLSID != before.remoteTLSID)
        #expect(answer.session.dtls?.setup == .active)
        let session = try offerer.receiveAnswer(answer.sessionDescription)
        #expect(session.dtls?.localTLSID == renewed && session.dtls?.setup == .passive)
        // The next re-offer keeps the new association.
        #expect(try offerer.makeHoldOffer().media[0].firstValue(TLSID.self) == renewed)
    }

    @Test func aDroppedRenewalOfferLeavesTheAssociationInForce() throws {
        var (offerer, answerer) = try connected()
        let before = try #require(offerer.session?.dtls)
        let renewal = try offerer.makeDTLSRenewalOffer()
        #expect(try renewal.media[0].firstValue(TLSID.self) != before.localTLSID)
        // The answerer refuses it: its own tls-id stays the one in force.
        try answerer.receiveOffer(renewal)
        answerer.cancelPendingOffer()
        #expect(try answerer.makeOfferCopy().media[0].firstValue(TLSID.self) == before.remoteTLSID)
        // Refused (a 488, a 491, a timeout): the tls-id in force is ours again.
        offerer.cancelPendingOffer()
        #expect(try offerer.makeOffer().media[0].firstValue(TLSID.self) == before.localTLSID)
        // Asked while an offer is outstanding: refused, and that offer's tls-id stays.
        let error = try #require(throws: SDPError.self) { try offerer.makeDTLSRenewalOffer() }
        #expect(error.code == .offerPending)
        offerer.cancelPendingOffer()
        #expect(try offerer.makeOffer().media[0].firstValue(TLSID.self) == before.localTLSID)
    }

    @Test func aRenewalNeedsADTLSAssociationInForce() throws {
        var plain = OfferAnswer.testing(policy: .optional)
        var peer = OfferAnswer.testing(policy: .optional)
        _ = try plain.receiveAnswer(try peer.answer(try plain.makeOffer()).sessionDescription)
        let error = try #require(throws: SDPError.self) { try plain.makeDTLSRenewalOffer() }
        #expect(error.code == .unsupportedTransport)
        #expect(plain.state == .stable)
        var fresh = OfferAnswer.dtls()
        #expect(throws: SDPError.self) { try fresh.makeDTLSRenewalOffer() }
    }

    @Test func anAnswererKeyedBySDESReoffersDTLSWhileItsAssociationStands() throws {
        // The answerer is configured for SDES offers but answered DTLS: its re-offers (a hold, a renewal) keep
        // the DTLS profile and attributes, since a UDP/TLS/RTP/SAVP line takes no a=crypto.
        var offerer = OfferAnswer.dtls()
        var answerer = OfferAnswer.dtls(
            policy: .optional, keying: .sdes, fingerprints: [DTLSTestFingerprints.theirs])
        _ = try offerer.receiveAnswer(try answerer.answer(try offerer.makeOffer()).sessionDescription)
        let before = try #require(answerer.session?.dtls)
        let hold = try answerer.makeHoldOffer()
        #expect(hold.media[0].transport == .udpTLSRTPSAVP)
        #expect(try hold.media[0].cryptos.isEmpty)
        #expect(try hold.media[0].firstValue(TLSID.self) == before.localTLSID)
        #expect(try hold.media[0].setup == .actpass)
        let answer = try offerer.answer(hold)
        #expect(answer.session.dtls?.localTLSID == offerer.session?.dtls?.localTLSID)
        _ = try answerer.receiveAnswer(answer.sessionDescription)
        let renewal = try answerer.makeDTLSRenewalOffer()
        #expect(try renewal.media[0].firstValue(TLSID.self) != before.localTLSID)
        let renewed = try offerer.answer(renewal)
        // The original offerer answers the new association as the DTLS client.
        #expect(renewed.session.dtls?.setup == .active)
        #expect(renewed.session.dtls?.localTLSID != before.remoteTLSID)
    }

    @Test func aPeerWithoutTLSIDsKeepsTheAssociationWhileItsFingerprintStays() throws {
        var answerer = OfferAnswer.dtls()
        var offer = try OfferAnswer.dtls(fingerprints: [DTLSTestFingerprints.theirs]).makeOfferCopy()
        offer.media[0].removeAttributes(named: "tls-id")
        let first = try answerer.answer(offer).session.dtls
        var again = offer
        again.origin.sessionVersion += 1
        let second = try answerer.answer(again).session.dtls
        #expect(first?.localTLSID == second?.localTLSID)
        again.media[0].removeAttributes(named: "fingerprint")
        again.media[0].append(Fingerprint(hashFunction: "sha-256", bytes: Array(repeating: 0x22, count: 32)))
        let third = try answerer.answer(again).session.dtls
        #expect(third?.localTLSID != second?.localTLSID)
    }
}

extension OfferAnswer {
    /// The offer a fresh engine makes (the engine is then thrown away).
    func makeOfferCopy() throws -> SessionDescription {
        var copy = self
        return try copy.makeOffer()
    }
}
