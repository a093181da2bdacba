import SDP
import Testing

@Suite("Answering offers from real products")
struct AnswerTests {
    @Test(
        "answers match the golden files",
        arguments: [
            ("offers/asterisk.sdp", "answers/asterisk-default.sdp"),
            ("offers/freeswitch.sdp", "answers/freeswitch-default.sdp"),
            ("offers/baresip.sdp", "answers/baresip-default.sdp"),
            ("offers/linphone.sdp", "answers/linphone-default.sdp"),
        ])
    func golden(_ offerFile: String, _ answerFile: String) throws {
        var engine = OfferAnswer.testing()
        let answer = try engine.answer(try TestData.description(offerFile))
        #expect(answer.sessionDescription.description == TestData.text(answerFile))
        #expect(engine.state == .stable)
        #expect(engine.localDescription == answer.sessionDescription)
    }

    @Test func aNarrowConfigurationShapesTheAnswer() throws {
        var engine = OfferAnswer.testing(codecs: [.pcma, .telephoneEvent(events: "0-15")]) { configuration in
            configuration.packetTime = 30
            configuration.username = "sb"
            configuration.sessionName = "Switchboard"
        }
        let answer = try engine.answer(try TestData.description("offers/freeswitch.sdp"))
        #expect(answer.sessionDescription.description == TestData.text("answers/freeswitch-pcma-ptime30.sdp"))
        #expect(answer.session.codecs.map(\.encodingName) == ["PCMA"])
        #expect(answer.session.remotePacketTime == 20)
    }

    @Test func asterisk() throws {
        let offer = try TestData.description("offers/asterisk.sdp")
        var engine = OfferAnswer.testing()
        let session = try engine.answer(offer).session
        #expect(session.codec.encodingName == "PCMU")
        #expect(session.codec.sendPayloadType == 0)
        #expect(session.codecs.map(\.encodingName) == ["PCMU", "PCMA"])
        #expect(session.telephoneEvent?.sendPayloadType == 101)
        #expect(session.telephoneEvent?.receiveFormatParameters == "0-16")
        #expect(session.remotePacketTime == 20)
        #expect(session.remoteRTPAddress?.description == "192.0.2.10:10000")
        #expect(session.remoteRTCPAddress?.description == "192.0.2.10:10001")
        #expect(!session.isRTCPMuxed)
        #expect(session.localRTCPPort == 40001)
        #expect(session.direction == .sendrecv)
        #expect(!session.isRemoteHold)

        // Preferring PCMA puts it first; Opus alone has nothing in common with Asterisk's offer.
        var alaw = OfferAnswer.testing(codecs: [.pcma, .pcmu, .telephoneEvent()])
        let alawAnswer = try alaw.answer(offer)
        #expect(alawAnswer.sessionDescription.media[0].formats == ["8", "0", "101"])
        #expect(alawAnswer.session.codec.encodingName == "PCMA")
        var opusOnly = OfferAnswer.testing(codecs: [.opus(), .telephoneEvent()])
        let error = try #require(throws: SDPError.self) { try opusOnly.receiveOffer(offer) }
        #expect(error.code == .noCommonCodec)
        #expect(error.status == 488)
        #expect(error.line == "m=audio 10000 RTP/AVP 0 8 101")
        #expect(opusOnly.state == .stable)
    }

    @Test func freeswitch() throws {
        var engine = OfferAnswer.testing()
        let session = try engine.answer(try TestData.description("offers/freeswitch.sdp")).session
        #expect(session.codec.encodingName == "opus")
        #expect(session.codec.sendPayloadType == 102)
        #expect(session.codec.receivePayloadType == 102)
        #expect(session.codec.sendFormatParameters?.contains("maxaveragebitrate=30000") == true)
        #expect(session.codec.receiveFormatParameters == Codec.opus().formatParameters)
        #expect(session.codecs.map(\.encodingName) == ["opus", "PCMU", "PCMA"])
        #expect(session.remoteRTPAddress?.description == "198.51.100.20:24580")
        #expect(session.remoteRTCPAddress?.description == "198.51.100.20:24581")
    }

    @Test func freeswitchInTheOffererOrder() throws {
        var engine = OfferAnswer.testing(codecs: [.pcma, .pcmu, .opus(), .telephoneEvent()]) {
            $0.prefersOffererCodecOrder = true
        }
        let answer = try engine.answer(try TestData.description("offers/freeswitch.sdp"))
        #expect(answer.sessionDescription.media[0].formats == ["102", "0", "8", "101"])
        #expect(answer.session.codec.encodingName == "opus")
        var ours = OfferAnswer.testing(codecs: [.pcma, .pcmu, .opus(), .telephoneEvent()])
        #expect(try ours.answer(try TestData.description("offers/freeswitch.sdp")).session.codec.encodingName == "PCMA")
    }

    @Test func baresip() throws {
        var engine = OfferAnswer.testing()
        let answer = try engine.answer(try TestData.description("offers/baresip.sdp"))
        let session = answer.session
        // baresip asks for stereo; we still answer mono receive parameters and match opus/48000/2.
        #expect(session.codec.encodingName == "opus")
        #expect(session.codec.sendFormatParameters == "stereo=1;sprop-stereo=1")
        #expect(try answer.sessionDescription.media[0].formatParameters(for: "96")?.value(of: "stereo") == "0")
        #expect(session.isRTCPMuxed)
        #expect(session.remoteRTCPAddress == session.remoteRTPAddress)
        #expect(session.localRTCPPort == 40000)
        #expect(session.telephoneEvent?.receiveFormatParameters == "0-15")
        var noMux = OfferAnswer.testing(rtcpMux: false)
        let plain = try noMux.answer(try TestData.description("offers/baresip.sdp"))
        #expect(!plain.sessionDescription.media[0].isRTCPMuxed)
        #expect(plain.session.remoteRTCPAddress?.port == 11235)
    }

    @Test func linphone() throws {
        let offer = try TestData.description("offers/linphone.sdp")
        #expect(offer.attribute(named: "record")?.value == "off")
        #expect(offer.media[0].attributes(named: "rtcp-fb").count == 2)
        var engine = OfferAnswer.testing()
        let answer = try engine.answer(offer)
        #expect(answer.sessionDescription.media.count == 2)
        #expect(answer.sessionDescription.media[1].port == 0)
        #expect(answer.sessionDescription.media[1].formats == ["96", "97"])
        #expect(answer.session.mediaIndex == 0)
        #expect(answer.session.codec.sendPayloadType == 96)
        #expect(answer.session.telephoneEvent?.sendPayloadType == 100)
        #expect(answer.session.telephoneEvent?.clockRate == 8000)
        #expect(answer.session.remoteRTCPAddress?.description == "192.0.2.50:7079")

        // With telephone-event at 48 kHz configured too, both clock rates are answered and the one that
        // matches Opus is the one to send DTMF with.
        var both = OfferAnswer.testing(
            codecs: Codec.defaultCodecs + [.telephoneEvent(payloadType: 102, clockRate: 48000)])
        let bothAnswer = try both.answer(offer)
        #expect(bothAnswer.sessionDescription.media[0].formats == ["96", "0", "8", "101", "100"])
        #expect(bothAnswer.session.telephoneEvent?.sendPayloadType == 101)
        #expect(bothAnswer.session.telephoneEvent?.clockRate == 48000)
    }

    @Test func telephoneEventOnlyWhenOffered() throws {
        var engine = OfferAnswer.testing()
        let offer = try sdp(Malformed.head + "m=audio 5000 RTP/AVP 8 0\n")
        let answer = try engine.answer(offer)
        #expect(answer.sessionDescription.media[0].formats == ["0", "8"])
        #expect(try answer.sessionDescription.media[0].rtpMaps.map(\.encodingName) == ["PCMU", "PCMA"])
        #expect(answer.session.telephoneEvent == nil)
    }

    @Test(
        "telephone-event events are intersected",
        arguments: [
            ("0-16", "0-15", "0-15"), ("0-15,66,70", "0-16", "0-15"), ("0-255", "0-16", "0-16"),
            ("", "0-16", "0-15"), ("10-11,16", "0-16", "10-11,16"),
        ])
    func events(_ offered: String, _ configured: String, _ answered: String) throws {
        var engine = OfferAnswer.testing(codecs: [.pcmu, .telephoneEvent(events: configured)])
        let fmtp = offered.isEmpty ? "" : "a=fmtp:101 \(offered)\n"
        let offer = try sdp(Malformed.head + "m=audio 5000 RTP/AVP 0 101\na=rtpmap:101 telephone-event/8000\n" + fmtp)
        let session = try engine.answer(offer).session
        #expect(session.telephoneEvent?.receiveFormatParameters == answered)
    }

    @Test func disjointEventsLeaveTelephoneEventOut() throws {
        var engine = OfferAnswer.testing(codecs: [.pcmu, .telephoneEvent(events: "0-15")])
        let offer = try sdp(
            Malformed.head + "m=audio 5000 RTP/AVP 0 101\na=rtpmap:101 telephone-event/8000\na=fmtp:101 32-41\n")
        let answer = try engine.answer(offer)
        #expect(answer.sessionDescription.media[0].formats == ["0"])
        #expect(answer.session.telephoneEvent == nil)
    }

    @Test func staticPayloadTypesWithoutRTPMap() throws {
        var engine = OfferAnswer.testing()
        let answer = try engine.answer(try sdp(Malformed.head + "m=audio 5000 RTP/AVP 18 8 3\n"))
        #expect(answer.session.codec.encodingName == "PCMA")
        #expect(answer.sessionDescription.media[0].formats == ["8"])
    }

    @Test func onlyTheFirstUsableAudioStreamIsAccepted() throws {
        var engine = OfferAnswer.testing()
        let offer = try sdp(
            Malformed.head
                + "m=audio 5000 RTP/AVP 9\nm=audio 5002 RTP/AVP 0\nm=image 5004 udptl t38\nm=audio 5006 RTP/AVP 8\n")
        let answer = try engine.answer(offer)
        #expect(answer.sessionDescription.media.map(\.port) == [0, 40000, 0, 0])
        #expect(answer.sessionDescription.media.map(\.mediaType) == [.audio, .audio, .image, .audio])
        #expect(answer.sessionDescription.media[2].formats == ["t38"])
        #expect(answer.session.mediaIndex == 1)
        #expect(answer.session.remoteRTPAddress?.port == 5002)
    }

    @Test(
        "offers without a usable audio stream are refused with 488",
        arguments: [
            ("m=video 5000 RTP/AVP 31\n", SDPError.Code.noAcceptableMedia),
            ("m=image 5000 udptl t38\n", .noAcceptableMedia),
            ("m=audio 0 RTP/AVP 0\n", .noAcceptableMedia),
            ("", .noAcceptableMedia),
            (
                "m=audio 5000 UDP/TLS/RTP/SAVPF 111\na=rtpmap:111 opus/48000/2\na=fingerprint:sha-256 AB:CD\n",
                .unsupportedTransport
            ),
            ("m=audio 5000 TCP/MRCPv2 1\n", .unsupportedTransport),
            ("m=audio 5000 RTP/AVP 9 18\n", .noCommonCodec),
            ("m=audio 5000 RTP/AVP 96\na=rtpmap:96 opus/48000\na=rtpmap:97 PCMU/16000\n", .noCommonCodec),
        ])
    func refused(_ media: String, _ code: SDPError.Code) throws {
        var engine = OfferAnswer.testing(codecs: [.pcmu, .telephoneEvent()])
        let offer = try sdp(Malformed.head + media)
        #expect { try engine.receiveOffer(offer) } throws: { error in
            (error as? SDPError)?.code == code && (error as? SDPError)?.status == 488
        }
        #expect(engine.state == .stable)
    }

    @Test func opusMatchesWhateverChannelCountIsSignalled() throws {
        var engine = OfferAnswer.testing()
        let answer = try engine.answer(try sdp(Malformed.head + "m=audio 5000 RTP/AVP 107\na=rtpmap:107 opus/48000\n"))
        #expect(answer.session.codec.encodingName == "opus")
        #expect(try answer.sessionDescription.media[0].rtpMap(for: 107)?.channels == 2)
    }

    @Test func malformedKnownAttributesOfAnAudioStreamGive400() throws {
        var engine = OfferAnswer.testing()
        for media in [
            "m=audio 5000 RTP/AVP 0\na=rtpmap:0 PCMU/zero\n", "m=audio 5000 RTP/AVP 0\na=ptime:x\n",
            "m=audio 5000 RTP/AVP 0\na=rtcp:x\n", "m=audio 5000 RTP/AVP x\n",
        ] {
            let offer = try sdp(Malformed.head + media)
            let error = try #require(throws: SDPError.self) { try engine.receiveOffer(offer) }
            #expect(error.status == 400, "\(media)")
        }
    }

    @Test func addressesComeFromTheMediaSectionFirst() throws {
        var engine = OfferAnswer.testing()
        let offer = try sdp(
            """
            v=0
            o=- 1 1 IN IP4 192.0.2.1
            s=-
            c=IN IP4 192.0.2.1
            t=0 0
            m=audio 5000 RTP/AVP 0
            c=IN IP6 2001:db8::9
            a=rtcp:6000 IN IP4 192.0.2.99
            a=mid:a1

            """)
        let answer = try engine.answer(offer)
        #expect(answer.session.remoteRTPAddress?.description == "[2001:db8::9]:5000")
        #expect(answer.session.remoteRTCPAddress?.description == "192.0.2.99:6000")
        #expect(try answer.sessionDescription.media[0].mid == "a1")
    }
}
