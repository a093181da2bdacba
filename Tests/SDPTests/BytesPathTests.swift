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

    /// m= lines whose media type and transport the answer compares a word at a time: each case of each letter,
    /// a byte that differs only where a letter's case bit is, lengths one short and one long, and a crypto line
    /// for the secure ones.
    static let mediaLines: [String] = {
        var lines: [String] = []
        let transports = [
            "RTP/AVP", "rtp/avp", "Rtp/aVp", "RTP/AVPF", "rtp/avpf", "RTP/SAVP", "rTp/SaVp", "RTP/SAVPF",
            "rtp/savpf", "RTP/AV", "RTP/AVQ", "RTP\u{0F}AVP", "RTP/AVP1", "RTP/SAVPX", "RTP/AVPFF", "UDP/TLS/RTP/SAVPF",
            "RTP/A@P", "RTP/A`P", "RTP/SAV@", "RT@/AVPF",
        ]
        for mediaType in ["audio", "AUDIO", "aUdIo", "audi0", "audioo", "audi", "video", "a@dio"] {
            for transport in transports {
                lines.append("m=\(mediaType) 49170 \(transport) 0 8 101\r\n")
            }
        }
        return lines
    }()

    @Test("a media type and transport compared a word at a time read as the model reads them", arguments: mediaLines)
    func mediaLineComparedLikeTheModel(_ line: String) throws {
        let text =
            "v=0\r\no=- 1 1 IN IP4 192.0.2.10\r\ns=-\r\nc=IN IP4 192.0.2.10\r\nt=0 0\r\n" + line
            + "a=rtpmap:101 telephone-event/8000\r\n"
            + "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz|2^20|1:4\r\n"
        guard let offer = try? SessionDescription(parsing: Array(text.utf8)) else {
            #expect(throws: (any Error).self) { try SessionDescription(parsingModel: Array(text.utf8)) }
            return
        }
        for policy in [SRTPPolicy.off, .optional, .mandatory] {
            expectBothPathsAgree(
                offer, bytes: .testing(policy: policy), model: .testing(policy: policy), context: "\(line), \(policy)"
            ) { a, _ in
                // Answered from the bytes: the word compares took the media type and transport.
                #expect(a.sessionDescription.isKeptAsBytes)
            }
        }
    }

    /// a=rtcp values: a port alone (read as digits in one go), with white space, out of range, with an address.
    static let rtcpValues = [
        "49171", "0", "65535", "65536", "049171", "99999999999999999999999", " 49171", "49171 ", "49171\t",
        "4917a", "", "49171 IN IP4 192.0.2.99", "49171 IN IP4 0.0.0.0", "-1",
    ]

    @Test("an a=rtcp port reads as the model reads it", arguments: rtcpValues)
    func rtcpReadLikeTheModel(_ value: String) throws {
        let text =
            "v=0\r\no=- 1 1 IN IP4 192.0.2.10\r\ns=-\r\nc=IN IP4 192.0.2.10\r\nt=0 0\r\n"
            + "m=audio 49170 RTP/AVP 0 101\r\na=rtpmap:101 telephone-event/8000\r\na=rtcp:\(value)\r\n"
        let offer = try SessionDescription(parsing: Array(text.utf8))
        for rtcpMux in [false, true] {
            expectBothPathsAgree(
                offer, bytes: .testing(rtcpMux: rtcpMux), model: .testing(rtcpMux: rtcpMux), context: "a=rtcp:\(value)"
            ) { a, b in
                #expect(a.session.remoteRTCPAddress == b.session.remoteRTCPAddress)
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

/// The answer to our offer taken from its bytes (`negotiate(answerWire:to:)`), checked against the model path.
@Suite("Answers taken from their bytes")
struct AnswerBytesPathTests {
    static let files = TestData.files(in: "answers") + TestData.files(in: "offers") + TestData.files(in: "parsing")

    /// Answers to our usual offer (opus 111, PCMU 0, PCMA 8, telephone-event 101, rtcp-mux, two a=crypto when
    /// SRTP is on) that each take another turn of the bytes path.
    static let edgeAnswers: [String] = [
        // PCMU by its static payload type, no rtpmap.
        "m=audio 5000 RTP/AVP 0\n",
        // Our dynamic payload types echoed without rtpmap: our mappings apply (left to the model path).
        "m=audio 5000 RTP/AVP 111 101\n",
        "m=audio 5000 RTP/AVP 0 101\n",
        // A dynamic payload type of its own for telephone-event, a ptime, a=rtcp with an address, sendonly.
        "m=audio 5000 RTP/AVP 8 96\na=rtpmap:8 PCMA/8000\na=rtpmap:96 telephone-event/8000\na=fmtp:96 0-15\n"
            + "a=ptime:30\na=rtcp:6001 IN IP4 192.0.2.77\na=sendonly\n",
        // RTCP on its own port alone, and a hold by the unspecified address.
        "m=audio 5000 RTP/AVP 0\nc=IN IP4 0.0.0.0\na=rtcp:5003\n",
        // rtcp-mux and inactive.
        "m=audio 5000 RTP/AVP 111\na=rtpmap:111 OPUS/48000/2\na=rtcp-mux\na=inactive\n",
        // Opus signalled with one channel still matches (RFC 7587 §7); a codec we did not offer is skipped.
        "m=audio 5000 RTP/AVP 9 111\na=rtpmap:9 G722/8000\na=rtpmap:111 opus/48000\n",
        // None of our codecs.
        "m=audio 5000 RTP/AVP 9\na=rtpmap:9 G722/8000\n",
        // The stream refused, another media type, another transport, two m= lines for our one.
        "m=audio 0 RTP/AVP 0\n",
        "m=video 5000 RTP/AVP 96\na=rtpmap:96 VP8/90000\n",
        "m=audio 5000 RTP/SAVP 0\n",
        "m=audio 5000 RTP/AVP 0\nm=video 0 RTP/AVP 96\n",
        // Malformed attributes the typed views throw for.
        "m=audio 5000 RTP/AVP 0\na=ptime:x\n",
        "m=audio 5000 RTP/AVP 0\na=rtpmap:0 PCMU\n",
        "m=audio 5000 RTP/AVP 0\na=rtcp:x y\n",
        // SRTP: our first tag echoed, a tag of ours with another suite, none.
        "m=audio 5000 RTP/AVP 0\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:ISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+\n",
        "m=audio 5000 RTP/AVP 0\na=crypto:2 AES_CM_128_HMAC_SHA1_80 inline:ISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+\n",
        "m=audio 5000 RTP/AVP 0\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:ISIj\n",
    ]

    static let cases: [(file: String?, answer: Int?)] =
        files.map { ($0, nil) } + edgeAnswers.indices.map { (nil, $0) }

    static func answer(_ index: Int) throws -> SessionDescription {
        let text = "v=0\no=peer 7 7 IN IP4 192.0.2.9\ns=-\nc=IN IP4 192.0.2.9\nt=0 0\n" + edgeAnswers[index]
        return try SessionDescription(parsing: Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8))
    }

    /// Configurations whose offers the answers answer: the usual one, without rtcp-mux, with ICE's attributes
    /// (our offer's terms then still kept), with an attribute a typed view reads (the terms then read back from
    /// the offer), and one whose codecs differ.
    static let configurations: [@Sendable (inout OfferAnswerConfiguration) -> Void] = [
        { _ in },
        { $0.isRTCPMuxEnabled = false },
        { $0.mediaAttributes = [Attribute("ice-ufrag", "8hhY"), Attribute("rtcp", "40005"), Attribute("sendonly")] },
        { $0.mediaAttributes = [Attribute("crypto", "9 AES_CM_128_HMAC_SHA1_80 inline:ISIj")] },
        { $0.codecs = [.pcma, .pcmu, .telephoneEvent(payloadType: 96, clockRate: 8000)] },
        // A codec whose fmtp does not parse back as written (the terms are then read back from the offer).
        { $0.codecs = [Codec(payloadType: 8, encodingName: "PCMA", clockRate: 8000, formatParameters: " x"), .pcmu] },
    ]

    /// Configurations whose texts the bytes path must write as the serializer does, or leave to it.
    static let offerConfigurations: [@Sendable (inout OfferAnswerConfiguration) -> Void] =
        configurations + [
            { $0.mediaAttributes = [Attribute("x(y", "v"), Attribute("empty", "")] },
            { $0.mediaAttributes = [Attribute("note", "a\u{0}b")] },
            {
                $0.codecs = [
                    Codec(payloadType: 97, encodingName: "L16", clockRate: 16000, channels: 2, formatParameters: " x"),
                    Codec(payloadType: 98, encodingName: "a b", clockRate: 8000, formatParameters: ""),
                ]
            },
            { $0.codecs = [.opus(), .pcmu, .pcmu] },
            // An fmtp the serializer writes otherwise than it is (the model path then writes the offer).
            {
                $0.codecs = [
                    Codec(payloadType: 97, encodingName: "L16", clockRate: 8000, formatParameters: "x\r\ny"), .pcmu,
                ]
            },
            { $0.packetTime = 30 },
            { $0.sessionName = "a session" },
        ]

    @Test("a first offer written as bytes is the model path's offer", arguments: offerConfigurations.indices)
    func offerWrittenLikeTheModel(_ index: Int) throws {
        for policy in [SRTPPolicy.off, .optional, .mandatory] {
            for hold in [false, true] {
                var fromBytes = OfferAnswer.testing(policy: policy, configure: Self.offerConfigurations[index])
                var fromModel = OfferAnswer.testing(policy: policy) {
                    Self.offerConfigurations[index](&$0)
                    $0.writesOffersAsBytes = false
                }
                let a = try hold ? fromBytes.makeHoldOffer() : fromBytes.makeOffer()
                let b = try hold ? fromModel.makeHoldOffer() : fromModel.makeOffer()
                #expect(!b.isKeptAsBytes)
                #expect(a.description == b.description, "configuration \(index), \(policy), hold \(hold)")
                #expect(a == b)
                #expect(a.media == b.media)
                #expect(fromBytes.localDescription == fromModel.localDescription)
            }
        }
    }

    @Test("an answer taken from its bytes gives the model path's session or error", arguments: cases.indices)
    func takenLikeTheModel(_ index: Int) throws {
        let (file, edge) = Self.cases[index]
        let answer = try file.map { try TestData.description($0) } ?? Self.answer(edge ?? 0)
        let name = file ?? "edge \(edge ?? 0)"
        for policy in [SRTPPolicy.off, .optional, .mandatory] {
            for (c, configure) in Self.configurations.enumerated() {
                var fromBytes = OfferAnswer.testing(policy: policy, configure: configure)
                var fromModel = OfferAnswer.testing(policy: policy) {
                    configure(&$0)
                    $0.writesOffersAsBytes = false
                }
                // The first offer, then (once answered) a hold re-offer answered by the same description.
                for round in 0..<2 {
                    if round == 1 {
                        guard fromBytes.state == .stable, fromModel.state == .stable,
                            (try? fromBytes.makeHoldOffer()) != nil, (try? fromModel.makeHoldOffer()) != nil
                        else { break }
                    } else {
                        _ = try fromBytes.makeOffer()
                        _ = try fromModel.makeOffer()
                    }
                    let a = Result { try fromBytes.receiveAnswer(answer) }
                    let b = Result { try fromModel.receiveAnswer(answer.withModel) }
                    switch (a, b) {
                    case (.success(let a), .success(let b)):
                        #expect(a == b, "\(name), \(policy), configuration \(c), round \(round)")
                        #expect(fromBytes.session == fromModel.session)
                        #expect(fromBytes.remoteDescription == fromModel.remoteDescription)
                    case (.failure(let a), .failure(let b)):
                        #expect(a as? SDPError == b as? SDPError, "\(name), \(policy), configuration \(c)")
                        fromBytes.cancelPendingOffer()
                        fromModel.cancelPendingOffer()
                    default:
                        Issue.record(
                            "\(name), \(policy), configuration \(c): one path took the answer, the other did not")
                    }
                }
            }
        }
    }

    @Test func aUsualAnswerIsTakenWithoutBuildingItsModel() throws {
        var engine = OfferAnswer.testing()
        let offer = try engine.makeOffer()
        #expect(offer.isKeptAsBytes)
        #expect(!offer.hasBuiltModel)
        let answer = try Self.answer(3)
        let session = try engine.receiveAnswer(answer)
        #expect(!answer.hasBuiltModel)
        #expect(session.codec.encodingName == "PCMA")
        #expect(session.telephoneEvent?.sendPayloadType == 96)
        #expect(session.remoteRTCPAddress?.host == "192.0.2.77")
        #expect(session.remoteRTCPAddress?.port == 6001)
        #expect(session.direction == .recvonly)
        #expect(session.remotePacketTime == 30)
        #expect(!offer.hasBuiltModel)
        // An answer that reuses our dynamic payload types without rtpmap is left to the model path.
        var other = OfferAnswer.testing()
        _ = try other.makeOffer()
        let echoed = try Self.answer(1)
        #expect(try other.receiveAnswer(echoed).codec.encodingName == "opus")
        #expect(echoed.hasBuiltModel)
    }
}
