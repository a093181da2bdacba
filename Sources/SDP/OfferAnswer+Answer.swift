// Answering offers (RFC 3264 §6).

extension OfferAnswer {
    /// The answer to `offer` and the session it negotiates. The first audio stream we can use is accepted;
    /// every other m= line is rejected with port 0, keeping the m= line count and order (RFC 3264 §6).
    /// - Throws: 400 for a malformed known attribute of an audio stream; 488 when no audio stream can be
    ///   accepted, with the reason of the first one tried.
    mutating func buildAnswer(to offer: SessionDescription) throws(SDPError) -> (SessionDescription, NegotiatedSession)
    {
        if let wire = offer.wire, let answered = buildAnswer(toWire: wire) { return answered }
        var media: [MediaDescription] = []
        var accepted: NegotiatedSession?
        var failure: SDPError?
        for (index, line) in offer.media.enumerated() {
            if accepted == nil, line.port != 0, line.mediaType.matches(.audio) {
                do {
                    let (answer, negotiated) = try answerAudio(in: offer, at: index)
                    media.append(answer)
                    accepted = negotiated
                    continue
                } catch {
                    if error.status == 400 { throw error }
                    failure = failure ?? error
                }
            }
            media.append(OfferAnswer.rejected(line))
        }
        guard let accepted else {
            throw failure ?? SDPError(.noAcceptableMedia, "the offer has no active audio stream")
        }
        var answer = makeDescription(media: media)
        if accepted.isBundled, let mid = accepted.mediaID { answer.attributes.append(OfferAnswer.bundleGroup(mid)) }
        return (answer, accepted)
    }

    /// How an answer keys SRTP.
    private enum AnswerKeying {
        case plain
        case sdes(UsableCrypto)
        case dtls(DTLSDescription)
    }

    /// The keying for an offered audio line under our policy: DTLS-SRTP for a `UDP/TLS/RTP/...` profile, SDES for
    /// `RTP/SAVP(F)`, and in a plain profile whichever the offer carries (RFC 8643), our configured keying first.
    private func offeredKeying(_ line: MediaDescription, in offer: SessionDescription, at index: Int)
        throws(SDPError) -> AnswerKeying
    {
        guard let security = line.transport.rtpSecurity, configuration.answersDTLS else {
            return try offeredCrypto(line).map { .sdes($0) } ?? .plain
        }
        let dtls = try DTLSDescription.read(offer, at: index)
        switch security {
        case .dtls:
            guard let dtls else {
                throw SDPError(.srtpRequired, "DTLS-SRTP offered without a=fingerprint", line: line.mediaLine)
            }
            return .dtls(dtls)
        case .sdes:
            return try offeredCrypto(line).map { .sdes($0) } ?? .plain
        case .plain:
            if let dtls, configuration.keying == .dtls { return .dtls(dtls) }
            do throws(SDPError) {
                if let crypto = try offeredCrypto(line) { return .sdes(crypto) }
            } catch {
                guard dtls != nil, error.status == 488 else { throw error }
            }
            return dtls.map { .dtls($0) } ?? .plain
        }
    }

    /// The SRTP choice for an offered audio line under our policy (RFC 4568 §7.1.2); `nil` for plain RTP.
    private func offeredCrypto(_ line: MediaDescription) throws(SDPError) -> UsableCrypto? {
        guard let secure = line.transport.isSecureRTP else {
            throw SDPError(.unsupportedTransport, "\(line.transport) is not supported", line: line.mediaLine)
        }
        let policy = configuration.srtpPolicy
        if secure && policy == .off {
            throw SDPError(.unsupportedTransport, "\(line.transport) offered and SRTP is off", line: line.mediaLine)
        }
        guard policy != .off else { return nil }
        let lines = line.attributes(named: CryptoAttribute.attributeName)
        let suites = configuration.usableCryptoSuites
        if let usable = lines.lazy.compactMap({ UsableCrypto($0, suites: suites) }).first { return usable }
        if lines.isEmpty, secure || policy == .mandatory {
            throw SDPError(.srtpRequired, "no a=crypto offered and SRTP is required", line: line.mediaLine)
        }
        if secure || policy == .mandatory {
            throw SDPError(.noAcceptableCrypto, "no offered crypto suite is supported", line: line.mediaLine)
        }
        return nil
    }

    private mutating func answerAudio(in offer: SessionDescription, at index: Int) throws(SDPError)
        -> (MediaDescription, NegotiatedSession)
    {
        let offered = offer.media[index]
        let keying = try offeredKeying(offered, in: offer, at: index)
        let formats = try RTPFormat.formats(of: offered)

        // Codecs: every common one, in our order (or the offerer's), with the offerer's payload types.
        var common: [(codec: Codec, format: RTPFormat)] = []
        for codec in configuration.codecs where !codec.isTelephoneEvent {
            let map = codec.rtpMap(payloadType: codec.payloadType)
            guard let format = formats.first(where: { !$0.isTelephoneEvent && $0.rtpMap.isSameCodec(as: map) }),
                !common.contains(where: { $0.format.payloadType == format.payloadType })
            else { continue }
            common.append((codec, format))
        }
        if configuration.prefersOffererCodecOrder {
            common.sort { a, b in
                (formats.firstIndex { $0.payloadType == a.format.payloadType } ?? 0)
                    < (formats.firstIndex { $0.payloadType == b.format.payloadType } ?? 0)
            }
        }
        guard !common.isEmpty else {
            throw SDPError(.noCommonCodec, "none of the offered audio codecs is supported", line: offered.mediaLine)
        }

        // telephone-event: only when offered, with the events both ends support (RFC 4733 §7.1.1).
        var events: [(codec: Codec, format: RTPFormat, events: String)] = []
        for format in formats where format.isTelephoneEvent {
            guard
                let own = configuration.codecs.first(where: {
                    $0.isTelephoneEvent && $0.clockRate == format.rtpMap.clockRate
                }),
                let theirs = TelephoneEvents(formatParameters: format.parameters),
                let ours = TelephoneEvents(parsing: own.formatParameters ?? "0-15")
            else { continue }
            let both = theirs.intersection(ours)
            if !both.isEmpty { events.append((own, format, both.text)) }
        }

        var answer = MediaDescription(
            mediaType: offered.mediaType, port: configuration.rtpPort, transport: offered.transport,
            formats: common.map { String($0.format.payloadType) } + events.map { String($0.format.payloadType) })
        for (codec, format) in common {
            answer.append(codec.rtpMap(payloadType: format.payloadType))
            if let parameters = codec.formatParameters {
                answer.append(FormatParameters(format: String(format.payloadType), parameterString: parameters))
            }
        }
        for (codec, format, list) in events {
            answer.append(codec.rtpMap(payloadType: format.payloadType))
            answer.append(FormatParameters(format: String(format.payloadType), parameterString: list))
        }
        answer.attributes.append(Attribute("ptime", String(configuration.packetTime)))
        let isMuxed = offered.isRTCPMuxed && configuration.isRTCPMuxEnabled
        if isMuxed { answer.attributes.append(Attribute("rtcp-mux")) }
        var srtp: NegotiatedSession.SRTPParameters?
        var dtls: NegotiatedSession.DTLSParameters?
        switch keying {
        case .plain: break
        case .sdes(let crypto):
            let key = try localKey(for: crypto.suite)
            answer.append(
                CryptoAttribute(
                    tag: crypto.attribute.tag, suite: crypto.suite, keyParameters: [SRTPKeyParameters(keySalt: key)]))
            srtp = NegotiatedSession.SRTPParameters(
                suite: crypto.suite, tag: crypto.attribute.tag, localKeySalt: key, remoteKeySalt: crypto.keySalt,
                remoteLifetime: crypto.key.lifetime, remoteMKI: crypto.key.mki)
        case .dtls(let offeredDTLS):
            let parameters = try answerDTLS(offeredDTLS)
            appendDTLSAnswer(parameters, to: &answer)
            dtls = parameters
        }
        let mid = try offered.mid
        if let mid { answer.attributes.append(Attribute("mid", mid)) }
        // The WebRTC attributes are answered with DTLS-SRTP, as the profile asks (RFC 8829 §5.3.1).
        let webRTC =
            dtls == nil
            ? OfferAnswer.WebRTCAgreement() : OfferAnswer.answerWebRTC(offered, in: offer, mid: mid, into: &answer)
        let remote = OfferAnswer.remoteDirection(of: offer, at: index)
        let direction = remote.reversed.intersection(MediaDirection(sends: true, receives: !isLocalHold))
        answer.setDirection(direction)
        answer.attributes.append(contentsOf: configuration.mediaAttributes)

        let codecs = common.map { NegotiatedSession.NegotiatedCodec(codec: $0.codec, format: $0.format, events: nil) }
        let eventCodecs = events.map {
            NegotiatedSession.NegotiatedCodec(codec: $0.codec, format: $0.format, events: $0.events)
        }
        guard let chosen = codecs.first else {
            throw SDPError(.noCommonCodec, "none of the offered audio codecs is supported", line: offered.mediaLine)
        }
        let addresses = try OfferAnswer.remoteAddresses(in: offer, at: index, isRTCPMuxed: isMuxed)
        var session = NegotiatedSession(
            mediaIndex: index, codec: chosen, codecs: codecs,
            telephoneEvent: eventCodecs.first { $0.clockRate == chosen.clockRate } ?? eventCodecs.first,
            remotePacketTime: try offered.packetTime, remoteRTPAddress: addresses.rtp,
            remoteRTCPAddress: addresses.rtcp, localRTPPort: configuration.rtpPort,
            localRTCPPort: localRTCPPort(isRTCPMuxed: isMuxed), isRTCPMuxed: isMuxed, direction: direction,
            isLocalHold: isLocalHold, isRemoteHold: !remote.receives, srtp: srtp)
        session.dtls = dtls
        session.mediaID = dtls == nil ? nil : mid
        session.isReducedSizeRTCP = webRTC.isReducedSizeRTCP
        session.isBundled = webRTC.isBundled
        session.midExtensionID = webRTC.midExtensionID
        return (answer, session)
    }
}

extension NegotiatedSession.NegotiatedCodec {
    /// A codec we answer with: the offerer's payload type both ways (RFC 3264 §6.1), their parameters for
    /// sending, ours (or the common telephone events) for receiving.
    init(codec: Codec, format: RTPFormat, events: String?) {
        self.init(
            encodingName: codec.encodingName, clockRate: codec.clockRate, channels: codec.channels,
            sendPayloadType: format.payloadType, receivePayloadType: format.payloadType,
            sendFormatParameters: format.parameters?.parameterString,
            receiveFormatParameters: events ?? codec.formatParameters)
    }
}
