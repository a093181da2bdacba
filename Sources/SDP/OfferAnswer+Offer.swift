// Making offers (RFC 3264 §5, §8) and taking their answers (§7).

extension OfferAnswer {
    /// The direction we offer: `sendonly` when we hold, `inactive` when both hold, `recvonly` when only the
    /// other side holds, `sendrecv` otherwise (RFC 3264 §8.4).
    var offerDirection: MediaDirection {
        MediaDirection(sends: !isRemoteHold, receives: !isLocalHold)
    }

    /// An offer from the configuration. A re-offer keeps every m= line of the last description we sent in
    /// place (RFC 3264 §8): the audio line is made afresh, the others stay rejected with port 0.
    /// The offer's terms come with it when its answer can be read against them (`OfferTerms`).
    mutating func buildOffer() throws(SDPError) -> (SessionDescription, OfferTerms?) {
        guard !configuration.codecs.isEmpty else { throw SDPError(.noCommonCodec, "no codecs configured") }
        guard let previous = localDescription, let index = session?.mediaIndex, previous.media.indices.contains(index)
        else {
            if let written = try writeFirstOffer() { return written }
            let (audio, terms) = try audioOffer(previous: nil, remote: nil, index: 0, count: 1)
            return (bundling(makeDescription(media: [audio]), at: 0), terms)
        }
        let remote = remoteDescription.flatMap { $0.media.indices.contains(index) ? $0.media[index] : nil }
        var media: [MediaDescription] = []
        var terms: OfferTerms?
        for (i, line) in previous.media.enumerated() {
            guard i == index else {
                media.append(OfferAnswer.rejected(line))
                continue
            }
            let (audio, audioTerms) = try audioOffer(
                previous: line, remote: remote, index: index, count: previous.media.count)
            media.append(audio)
            terms = audioTerms
        }
        return (bundling(makeDescription(media: media), at: index), terms)
    }

    /// The offer with `a=group:BUNDLE` naming the audio stream, for the WebRTC profile.
    private func bundling(_ offer: SessionDescription, at index: Int) -> SessionDescription {
        guard configuration.offersWebRTCProfile, let mid = try? offer.media[index].mid else { return offer }
        var bundled = offer
        bundled.attributes.append(OfferAnswer.bundleGroup(mid))
        return bundled
    }

    /// The payload type of each configured codec: in a re-offer the number already used for the codec, and
    /// never a number either side has mapped to another codec (RFC 3264 §8.3.2); a free dynamic number when
    /// the configured one is taken. Codecs left without a number are left out. Each codec is named by its index
    /// in `configuration.codecs` (a whole `Codec` copied retains all it holds).
    func payloadTypes(previous: MediaDescription?, remote: MediaDescription?) -> [(codec: Int, payloadType: UInt8)] {
        var known: [(pt: UInt8, map: RTPMap)] = []
        func learn(_ line: MediaDescription?) {
            guard let line, let formats = try? RTPFormat.formats(of: line) else { return }
            for format in formats where !known.contains(where: { $0.pt == format.payloadType }) {
                known.append((format.payloadType, format.rtpMap))
            }
        }
        learn(previous)
        learn(remote)
        let codecs = configuration.codecs
        var result: [(codec: Int, payloadType: UInt8)] = []
        result.reserveCapacity(codecs.count)
        // With nothing mapped yet (a first offer), a number is free when no codec of ours took it.
        func isFree(_ pt: UInt8, for map: RTPMap?) -> Bool {
            guard !result.contains(where: { $0.payloadType == pt }) else { return false }
            guard let map else { return true }
            return known.allSatisfy { $0.pt != pt || $0.map.isSameCodec(as: map) }
        }
        for index in codecs.indices {
            let configured = codecs[index].payloadType
            let map = known.isEmpty ? nil : codecs[index].rtpMap(payloadType: configured)
            if let map, let used = known.first(where: { $0.map.isSameCodec(as: map) && isFree($0.pt, for: map) }) {
                result.append((index, used.pt))
            } else if isFree(configured, for: map) {
                result.append((index, configured))
            } else if let free = (96...127).first(where: { isFree(UInt8($0), for: map) }) {
                result.append((index, UInt8(free)))
            }
        }
        return result
    }

    /// The transport to offer: the policy's, or the one already in use when the policy allows it.
    func offerTransport(previous: TransportProtocol?) -> TransportProtocol {
        if configuration.offersWebRTCProfile { return .udpTLSRTPSAVPF }
        if offersDTLS {
            // Mandatory: DTLS-SRTP's own profile (RFC 5764 §8). Optional: opportunistic, a=fingerprint in a plain
            // profile (RFC 8643), so that a peer without DTLS answers a plain call.
            let security = previous?.rtpSecurity
            if configuration.srtpPolicy == .mandatory {
                return security == .dtls ? previous ?? .udpTLSRTPSAVP : .udpTLSRTPSAVP
            }
            return security == .plain || security == .dtls ? previous ?? .rtpAVP : .rtpAVP
        }
        let secure = previous?.isSecureRTP
        switch configuration.srtpPolicy {
        case .mandatory: return secure == true ? previous ?? .rtpSAVP : .rtpSAVP
        case .optional: return secure != nil ? previous ?? .rtpAVP : .rtpAVP
        case .off: return secure == false ? previous ?? .rtpAVP : .rtpAVP
        }
    }

    private mutating func audioOffer(previous: MediaDescription?, remote: MediaDescription?, index: Int, count: Int)
        throws(SDPError) -> (MediaDescription, OfferTerms?)
    {
        let codecs = payloadTypes(previous: previous, remote: remote)
        var media = MediaDescription(
            mediaType: .audio, port: configuration.rtpPort, transport: offerTransport(previous: previous?.transport),
            formats: codecs.map { String($0.payloadType) })
        for (index, payloadType) in codecs {
            let codec = configuration.codecs[index]
            media.append(codec.rtpMap(payloadType: payloadType))
            if let parameters = codec.formatParameters {
                media.append(FormatParameters(format: String(payloadType), parameterString: parameters))
            }
        }
        media.attributes.append(Attribute("ptime", String(configuration.packetTime)))
        if configuration.isRTCPMuxEnabled || configuration.offersWebRTCProfile {
            media.attributes.append(Attribute("rtcp-mux"))
        }
        if configuration.offersWebRTCProfile { appendWebRTCOffer(to: &media, previous: previous) }
        if offersDTLS {
            try appendDTLSOffer(to: &media)
        }
        let cryptos = offersDTLS ? [] : try offeredCryptos()
        for crypto in cryptos { media.append(crypto) }
        media.setDirection(offerDirection)
        media.attributes.append(contentsOf: configuration.mediaAttributes)
        let terms = OfferTerms(
            codecs: codecs, cryptos: cryptos, index: index, count: count, port: media.port,
            transport: media.transport, direction: offerDirection, configuration: configuration,
            isPlain: !offersDTLS)
        return (media, terms)
    }

    /// Our a=crypto lines for an SDES-SRTP offer: one per usable suite, tagged from 1 (none with the policy off).
    mutating func offeredCryptos() throws(SDPError) -> [CryptoAttribute] {
        guard configuration.srtpPolicy != .off else { return [] }
        var cryptos: [CryptoAttribute] = []
        for (i, suite) in configuration.usableCryptoSuites.enumerated() {
            let key = try localKey(for: suite)
            cryptos.append(
                CryptoAttribute(tag: UInt32(i + 1), suite: suite, keyParameters: [SRTPKeyParameters(keySalt: key)]))
        }
        return cryptos
    }

    /// Checks the answer against our offer and works out the session (RFC 3264 §7).
    func negotiate(answer: SessionDescription, to offer: SessionDescription) throws(SDPError) -> NegotiatedSession {
        // Each read of `media` from a description kept as bytes builds the sections again: read once.
        let offerMedia = offer.media
        let answerMedia = answer.media
        guard answerMedia.count == offerMedia.count else {
            throw SDPError(
                .answerMismatch, "the answer has \(answerMedia.count) m= lines, the offer \(offerMedia.count)")
        }
        guard let index = offerMedia.firstIndex(where: { $0.port != 0 && $0.mediaType.matches(.audio) }) else {
            throw SDPError(.noAcceptableMedia, "our offer has no audio stream")
        }
        let offered = offerMedia[index]
        let answered = answerMedia[index]
        guard answered.mediaType.matches(.audio) else {
            throw SDPError(.answerMismatch, "the answer's m= line \(index + 1) is not audio", line: answered.mediaLine)
        }
        guard answered.port != 0 else {
            throw SDPError(.noAcceptableMedia, "the answer rejected the audio stream", line: answered.mediaLine)
        }
        guard answered.transport.matches(offered.transport) else {
            throw SDPError(.answerMismatch, "the answer changed the transport", line: answered.mediaLine)
        }

        let ours = try RTPFormat.formats(of: offered)
        let theirs = try RTPFormat.formats(of: answered) { pt in
            ours.first { $0.payloadType == pt }?.rtpMap ?? RTPMap.staticAudio(pt)
        }
        var codecs: [NegotiatedSession.NegotiatedCodec] = []
        var events: [NegotiatedSession.NegotiatedCodec] = []
        for format in theirs {
            guard let own = ours.first(where: { $0.rtpMap.isSameCodec(as: format.rtpMap) }) else { continue }
            let codec = NegotiatedSession.NegotiatedCodec(own: own, theirs: format, receiveParameters: nil)
            if format.isTelephoneEvent { events.append(codec) } else { codecs.append(codec) }
        }
        guard let chosen = codecs.first else {
            throw SDPError(.noCommonCodec, "the answer has none of the offered codecs", line: answered.mediaLine)
        }

        let srtp = try answeredSRTP(offered: offered, answered: answered)
        let dtls = try answeredDTLS(offer: offer, answer: answer, at: index)
        let isMuxed = offered.isRTCPMuxed && answered.isRTCPMuxed
        let addresses = try OfferAnswer.remoteAddresses(in: answer, at: index, isRTCPMuxed: isMuxed)
        let direction = OfferAnswer.remoteDirection(of: answer, at: index).reversed
            .intersection(offer.direction(forMediaAt: index))
        var session = NegotiatedSession(
            mediaIndex: index, codec: chosen, codecs: codecs,
            telephoneEvent: events.first { $0.clockRate == chosen.clockRate } ?? events.first,
            remotePacketTime: try answered.packetTime, remoteRTPAddress: addresses.rtp,
            remoteRTCPAddress: addresses.rtcp, localRTPPort: offered.port,
            localRTCPPort: localRTCPPort(isRTCPMuxed: isMuxed), isRTCPMuxed: isMuxed, direction: direction,
            isLocalHold: isLocalHold, isRemoteHold: isRemoteHold, srtp: srtp)
        session.dtls = dtls
        OfferAnswer.negotiateWebRTC(offer: offer, answer: answer, at: index, into: &session)
        return session
    }

    /// The SRTP keys of an answer to our offer: its a=crypto must echo one of our tags with the same suite
    /// (RFC 4568 §7.1.3).
    private func answeredSRTP(offered: MediaDescription, answered: MediaDescription) throws(SDPError)
        -> NegotiatedSession.SRTPParameters?
    {
        let ourCryptos = try offered.cryptos
        guard !ourCryptos.isEmpty else { return nil }
        let theirLines = answered.attributes(named: CryptoAttribute.attributeName)
        guard !theirLines.isEmpty else {
            if offered.transport.isSecureRTP == true || configuration.srtpPolicy == .mandatory {
                throw SDPError(.srtpRequired, "the answer has no a=crypto", line: answered.mediaLine)
            }
            return nil
        }
        guard let usable = Self.usableSRTP(ours: ourCryptos, theirs: theirLines) else {
            throw SDPError(.noAcceptableCrypto, "no a=crypto of the answer fits the offer", line: answered.mediaLine)
        }
        return usable
    }

    /// The keys of the first of the answer's a=crypto lines that echoes one of ours; `nil` when none does.
    static func usableSRTP(ours: [CryptoAttribute], theirs: [Attribute]) -> NegotiatedSession.SRTPParameters? {
        let suites = ours.map(\.suite)
        for line in theirs {
            guard let usable = UsableCrypto(line, suites: suites),
                let own = ours.first(where: { $0.tag == usable.attribute.tag && $0.suite.matches(usable.suite) }),
                let ownKey = own.keyParameters.first?.keySaltBytes
            else { continue }
            return NegotiatedSession.SRTPParameters(
                suite: usable.suite, tag: own.tag, localKeySalt: ownKey, remoteKeySalt: usable.keySalt,
                remoteLifetime: usable.key.lifetime, remoteMKI: usable.key.mki)
        }
        return nil
    }
}

extension NegotiatedSession.NegotiatedCodec {
    /// A codec from our format and theirs: we send with their payload type and parameters and receive with
    /// ours.
    init(own: RTPFormat, theirs: RTPFormat, receiveParameters: String?) {
        self.init(
            encodingName: own.rtpMap.encodingName, clockRate: own.rtpMap.clockRate,
            channels: own.rtpMap.channelCount, sendPayloadType: theirs.payloadType,
            receivePayloadType: own.payloadType, sendFormatParameters: theirs.parameters?.parameterString,
            receiveFormatParameters: receiveParameters ?? own.parameters?.parameterString)
    }
}
