import SDP
import Testing

@Suite("Our offers")
struct OfferTests {
    @Test(
        "offers match the golden files",
        arguments: [
            (SRTPPolicy.off, "ours/offer-off.sdp"), (.optional, "ours/offer-optional.sdp"),
            (.mandatory, "ours/offer-mandatory.sdp"),
        ])
    func golden(_ policy: SRTPPolicy, _ file: String) throws {
        var engine = OfferAnswer.testing(policy: policy)
        let offer = try engine.makeOffer()
        #expect(offer.description == TestData.text(file))
        #expect(engine.state == .localOfferPending)
        #expect(engine.localDescription == offer)
    }

    @Test func opusIsSignalledAsRFC7587Requires() throws {
        var engine = OfferAnswer.testing(codecs: [.opus(payloadType: 109, maxPlaybackRate: 16000)])
        let audio = try engine.makeOffer().media[0]
        #expect(
            try audio.rtpMap(for: 109) == RTPMap(payloadType: 109, encodingName: "opus", clockRate: 48000, channels: 2))
        #expect(
            try audio.formatParameters(for: "109")?.parameterString
                == "minptime=10;useinbandfec=1;stereo=0;sprop-stereo=0;maxplaybackrate=16000")
        #expect(Codec.defaultOpusMaxPlaybackRate == 48000)
        #expect(Codec.opus().formatParameters?.hasSuffix("maxplaybackrate=48000") == true)
    }

    @Test func sessionIDComesFromTheInjectedSource() throws {
        var engine = OfferAnswer(
            configuration: OfferAnswerConfiguration(address: "2001:db8::1", rtpPort: 5004),
            random: FixedRandom(value: 0xFFFF_FFFF_FFFF_FFFF), keySource: PatternKeys())
        let offer = try engine.makeOffer()
        #expect(offer.origin.sessionID == String(UInt64.max >> 2))
        #expect(offer.origin.sessionVersion == UInt64.max >> 2)
        #expect(offer.origin.addressType == "IP6")
        #expect(offer.connection == Connection(address: "2001:db8::1"))
        #expect(offer.media[0].port == 5004)
        var other = OfferAnswer(
            configuration: OfferAnswerConfiguration(address: "2001:db8::1", rtpPort: 5004),
            random: FixedRandom(value: 400), keySource: PatternKeys())
        #expect(try other.makeOffer().origin.sessionID == "100")
    }

    @Test func configurationShapesTheOffer() throws {
        var engine = OfferAnswer.testing(codecs: [.pcma, .pcmu], rtcpMux: false) { configuration in
            configuration.packetTime = 30
            configuration.sessionName = "Switchboard"
            configuration.username = "sb"
            configuration.srtpPolicy = .optional
            configuration.cryptoSuites = [.aesCM128HMACSHA1_32, CryptoSuite(rawValue: "AEAD_AES_256_GCM")]
        }
        let offer = try engine.makeOffer()
        let audio = offer.media[0]
        #expect(audio.formats == ["8", "0"])
        #expect(try audio.packetTime == 30)
        #expect(!audio.isRTCPMuxed)
        #expect(offer.sessionName == "Switchboard")
        #expect(offer.origin.username == "sb")
        let cryptos = try audio.cryptos
        #expect(cryptos.map(\.suite) == [.aesCM128HMACSHA1_32])
        #expect(cryptos.first?.tag == 1)
        #expect(cryptos.first?.keyParameters.first?.keySalt == patternKey(1))
        #expect(audio.direction == .sendrecv)
    }

    @Test func noCodecsNoOffer() {
        var engine = OfferAnswer.testing(codecs: [])
        #expect { try engine.makeOffer() } throws: { ($0 as? SDPError)?.code == .noCommonCodec }
        #expect(engine.state == .stable)
    }

    @Test func aFailingKeySourceStopsTheOffer() throws {
        var engine = OfferAnswer(
            configuration: OfferAnswerConfiguration(address: "192.0.2.1", rtpPort: 4000, srtpPolicy: .mandatory),
            random: FixedRandom(), keySource: FailingKeys())
        let error = try #require(throws: SDPError.self) { try engine.makeOffer() }
        #expect(error.code == .keySourceFailed)
        #expect(error.status == 500)
        #expect(engine.state == .stable)
        #expect(engine.localDescription == nil)
        engine.configuration.srtpPolicy = .off
        #expect(try engine.makeOffer().media[0].transport == .rtpAVP)
    }

    @Test func answerToOurOfferGivesTheSession() throws {
        var engine = OfferAnswer.testing()
        let offer = try engine.makeOffer()
        let answer = try sdp(
            """
            v=0
            o=- 5 5 IN IP4 198.51.100.7
            s=-
            c=IN IP4 198.51.100.7
            t=0 0
            m=audio 30000 RTP/AVP 0 96
            a=rtpmap:0 PCMU/8000
            a=rtpmap:96 telephone-event/8000
            a=fmtp:96 0-15
            a=ptime:30
            a=rtcp-mux

            """)
        let session = try engine.receiveAnswer(answer)
        #expect(engine.state == .stable)
        #expect(engine.remoteDescription == answer)
        #expect(engine.session == session)
        #expect(session.codec.encodingName == "PCMU")
        #expect(session.codec.sendPayloadType == 0)
        #expect(session.codec.receivePayloadType == 0)
        #expect(session.codecs.count == 1)
        let events = try #require(session.telephoneEvent)
        #expect(events.sendPayloadType == 96)
        #expect(events.receivePayloadType == 101)
        #expect(events.sendFormatParameters == "0-15")
        #expect(events.receiveFormatParameters == "0-16")
        #expect(session.remotePacketTime == 30)
        #expect(session.isRTCPMuxed)
        #expect(session.remoteRTPAddress?.description == "198.51.100.7:30000")
        #expect(session.remoteRTCPAddress == session.remoteRTPAddress)
        #expect(session.localRTPPort == 40000)
        #expect(session.localRTCPPort == 40000)
        #expect(session.direction == .sendrecv)
        #expect(session.srtp == nil)
        #expect(offer.origin.sessionVersion == engine.localDescription?.origin.sessionVersion)
    }

    @Test func answersWithOtherPayloadTypesAndOrder() throws {
        var engine = OfferAnswer.testing(rtcpMux: false)
        _ = try engine.makeOffer()
        let answer = try sdp(
            """
            v=0
            o=- 5 5 IN IP4 198.51.100.7
            s=-
            c=IN IP4 198.51.100.7
            t=0 0
            m=audio 30000 RTP/AVP 8 120
            a=rtpmap:120 OPUS/48000/2
            a=fmtp:120 stereo=1
            a=rtcp:30011

            """)
        let session = try engine.receiveAnswer(answer)
        #expect(session.codecs.map(\.encodingName) == ["PCMA", "opus"])
        #expect(session.codec.encodingName == "PCMA")
        #expect(session.codecs[1].sendPayloadType == 120)
        #expect(session.codecs[1].receivePayloadType == 111)
        #expect(session.codecs[1].sendFormatParameters == "stereo=1")
        #expect(session.telephoneEvent == nil)
        #expect(!session.isRTCPMuxed)
        #expect(session.remoteRTCPAddress?.port == 30011)
        #expect(session.localRTCPPort == 40001)
    }

    @Test(
        "unusable answers are refused",
        arguments: [
            ("m=audio 30000 RTP/AVP 0\nm=video 0 RTP/AVP 31\n", SDPError.Code.answerMismatch),
            ("m=video 30000 RTP/AVP 31\n", .answerMismatch),
            ("m=audio 30000 RTP/SAVP 0\n", .answerMismatch),
            ("m=audio 0 RTP/AVP 0\n", .noAcceptableMedia),
            ("m=audio 30000 RTP/AVP 9\n", .noCommonCodec),
            ("m=audio 30000 RTP/AVP 101\na=rtpmap:101 telephone-event/8000\n", .noCommonCodec),
            ("m=audio 30000 RTP/AVP 0\na=rtpmap:0 PCMU\n", .malformedAttribute),
        ])
    func refusedAnswer(_ media: String, _ code: SDPError.Code) throws {
        var engine = OfferAnswer.testing()
        let offer = try engine.makeOffer()
        let answer = try sdp(Malformed.head + media)
        #expect { try engine.receiveAnswer(answer) } throws: { ($0 as? SDPError)?.code == code }
        #expect(engine.state == .localOfferPending)
        #expect(engine.session == nil)
        #expect(engine.localDescription == offer)
    }
}

@Suite("Attributes a layer above adds")
struct MediaAttributesTests {
    static let ice = [Attribute("ice-ufrag", "8hhY"), Attribute("ice-pwd", "asd88fgpdd777uzjYhagZg")]

    @Test func offersCarryThemAtTheEndOfTheAudioSection() throws {
        var engine = OfferAnswer.testing { $0.mediaAttributes = Self.ice }
        let audio = try engine.makeOffer().media[0]
        #expect(Array(audio.attributes.suffix(2)) == Self.ice)
        #expect(audio.isRTCPMuxed)
    }

    @Test func answersCarryThemAndAChangeMakesANewVersion() throws {
        var offerer = OfferAnswer.testing()
        var answerer = OfferAnswer.testing { $0.mediaAttributes = Self.ice }
        let offer = try offerer.makeOffer()
        let answer = try answerer.answer(offer).sessionDescription
        #expect(Array(answer.media[0].attributes.suffix(2)) == Self.ice)
        #expect(try offerer.receiveAnswer(answer).codec.encodingName == "opus")
        answerer.configuration.mediaAttributes = [Attribute("ice-mismatch")]
        let reoffer = try offerer.makeOffer()
        let second = try answerer.answer(reoffer).sessionDescription
        #expect(second.media[0].attributes.last == Attribute("ice-mismatch"))
        #expect(!second.media[0].attributes.contains(Self.ice[0]))
        #expect(second.origin.sessionVersion == answer.origin.sessionVersion + 1)
    }
}
