// Taking an answer to our offer from its bytes: `negotiate(answer:to:)` for an answer `SessionDescription(parsing:)`
// kept as bytes, without building its model. The answer's audio section is read in place (`WireSection` reads
// any scanned description, not only offers); our offer is a model we made. Whatever this path does not take
// (DTLS-SRTP or WebRTC attributes in our offer, an answer that reuses a payload type of ours without an rtpmap,
// anything the model path would throw for, non-ASCII bytes) it leaves to the model path, which then decides as
// before: `FuzzSDP` and `BytesPathTests` check that both paths agree.

/// What taking an answer reads from the audio section of our offer, kept from when the offer was made: the
/// values the model path would parse back out of the offer's lines. Made only for an offer whose typed views give
/// back exactly these values: no DTLS-SRTP or WebRTC attributes, configured texts that parse as written, and no
/// attribute from the layer above that a typed view reads.
struct OfferTerms {
    /// Our formats, as `RTPFormat.formats(of:)` reads them from the offer.
    var formats: [RTPFormat]
    /// Our a=crypto lines.
    var cryptos: [CryptoAttribute]
    /// The audio section's index and the number of m= lines.
    var index: Int
    var count: Int
    var port: UInt16
    var transport: TransportProtocol
    var direction: MediaDirection
    var isRTCPMuxed: Bool
}

extension OfferTerms {
    /// The attributes whose typed views taking an answer reads (or that take it to the model path).
    private static let readNames = [
        "rtpmap", "fmtp", "crypto", "mid", "rtcp-rsize", "rtcp-mux", "fingerprint", "setup",
    ]

    init?(
        codecs offered: [(codec: Int, payloadType: UInt8)], cryptos: [CryptoAttribute], index: Int, count: Int,
        port: UInt16, transport: TransportProtocol, direction: MediaDirection, configuration: OfferAnswerConfiguration,
        isPlain: Bool
    ) {
        guard isPlain, !configuration.offersWebRTCProfile,
            !configuration.mediaAttributes.contains(where: { attribute in
                Self.readNames.contains { attribute.name.equalsIgnoringASCIICase($0) }
            })
        else { return nil }
        // Each codec read field by field through a buffer pointer: a whole `Codec` copied retains all it holds.
        let read = configuration.codecs.withUnsafeBufferPointer { codecs -> [RTPFormat]? in
            var formats: [RTPFormat] = []
            formats.reserveCapacity(offered.count)
            for (index, payloadType) in offered {
                // What the rtpmap and fmtp of the offer give back when parsed: worked out when the codec was made.
                guard codecs[index].traits.isReadBackAsWritten else { return nil }
                let parameters = codecs[index].formatParameters.map {
                    FormatParameters(format: payloadType.decimalText, parameterString: $0)
                }
                formats.append(
                    RTPFormat(
                        payloadType: payloadType, rtpMap: codecs[index].rtpMap(payloadType: payloadType),
                        parameters: parameters, isTelephoneEvent: codecs[index].isTelephoneEvent))
            }
            return formats
        }
        guard let formats = read else { return nil }
        self.formats = formats
        self.cryptos = cryptos
        self.index = index
        self.count = count
        self.port = port
        self.transport = transport
        self.direction = direction
        self.isRTCPMuxed = configuration.isRTCPMuxEnabled
    }
}

extension OfferAnswer {
    /// The session an answer kept as bytes negotiates with `offer`, as `negotiate(answer:to:)` works it out;
    /// `nil` when the model path must decide (and, where the answer is unusable, throw). `terms` are the offer's,
    /// kept from when it was made; without them they are read from the offer's model.
    func negotiate(answerWire answer: WireStorage, to offer: SessionDescription, terms: OfferTerms?)
        -> NegotiatedSession?
    {
        guard answer.isASCII, let sessionEnd = answer.lines.firstIndex(where: { $0.type == UInt8(ascii: "m") }),
            let ours = terms ?? Self.terms(of: offer)
        else { return nil }
        return answer.bytes.withUnsafeBufferPointer { bytes in
            let wire = WireOffer(bytes: bytes, lines: answer.lines)
            guard let section = wire.section(at: ours.index, count: ours.count, sessionEnd: sessionEnd) else {
                return nil
            }
            return negotiate(section, ours: ours)
        }
    }

    /// The terms read from an offer's model; `nil` when the offer carries DTLS-SRTP or WebRTC attributes (left to
    /// the model path) or one of its typed views throws.
    private static func terms(of offer: SessionDescription) -> OfferTerms? {
        let media = offer.media
        guard let index = media.firstIndex(where: { $0.port != 0 && $0.mediaType.matches(.audio) }) else {
            return nil
        }
        let offered = media[index]
        do {
            guard try DTLSDescription.read(offer, at: index) == nil, try offered.mid == nil,
                !offered.allowsReducedSizeRTCP
            else { return nil }
            return OfferTerms(
                formats: try RTPFormat.formats(of: offered), cryptos: try offered.cryptos, index: index,
                count: media.count, port: offered.port, transport: offered.transport,
                direction: offer.direction(forMediaAt: index), isRTCPMuxed: offered.isRTCPMuxed)
        } catch {
            return nil
        }
    }

    private func negotiate(_ answered: WireSection, ours: OfferTerms) -> NegotiatedSession? {
        let bytes = answered.offer.bytes
        guard answered.isAudio, answered.port != 0,
            bytes.equals(answered.transport, ignoringCaseOf: ours.transport.rawValue)
        else { return nil }
        return answered.withOffered { offered in
            guard answered.takesOwnMappings(offered.formats, ours: ours.formats) else { return nil }
            return negotiate(answered, offered, ours: ours)
        }
    }

    /// `negotiate(_:ours:)` with the answer's formats and attributes read.
    private func negotiate(_ answered: WireSection, _ offered: OfferedSection, ours: OfferTerms) -> NegotiatedSession? {
        let bytes = answered.offer.bytes
        let facts = offered.facts
        let theirs = offered.formats

        var codecs: [NegotiatedSession.NegotiatedCodec] = []
        var events: [NegotiatedSession.NegotiatedCodec] = []
        for format in theirs {
            guard let own = ours.formats.first(where: { format.isSameCodec(as: $0.rtpMap, in: bytes) }) else {
                continue
            }
            let codec = NegotiatedSession.NegotiatedCodec(
                own: own, theirPayloadType: format.payloadType, sendParameters: answered.parameterString(format))
            if format.isTelephoneEvent { events.append(codec) } else { codecs.append(codec) }
        }
        guard let chosen = codecs.first else { return nil }

        var srtp: NegotiatedSession.SRTPParameters?
        if !ours.cryptos.isEmpty {
            let theirLines = answered.cryptoAttributes()
            if theirLines.isEmpty {
                if ours.transport.isSecureRTP == true || configuration.srtpPolicy == .mandatory { return nil }
            } else {
                guard let usable = Self.usableSRTP(ours: ours.cryptos, theirs: theirLines) else { return nil }
                srtp = usable
            }
        }
        let isMuxed = ours.isRTCPMuxed && facts.isRTCPMuxed
        let connection = answered.connectionAddress
        guard let addresses = answered.remoteAddresses(facts, connection: connection, isRTCPMuxed: isMuxed) else {
            return nil
        }
        let direction = answered.remoteDirection(facts, connection: connection).reversed
            .intersection(ours.direction)
        return NegotiatedSession(
            mediaIndex: answered.index, codec: chosen, codecs: codecs,
            telephoneEvent: events.first { $0.clockRate == chosen.clockRate } ?? events.first,
            remotePacketTime: facts.packetTime, remoteRTPAddress: addresses.rtp, remoteRTCPAddress: addresses.rtcp,
            localRTPPort: ours.port, localRTCPPort: localRTCPPort(isRTCPMuxed: isMuxed), isRTCPMuxed: isMuxed,
            direction: direction, isLocalHold: isLocalHold, isRemoteHold: isRemoteHold, srtp: srtp)
    }
}

extension WireOffer {
    /// The media section at `index`, when the description has exactly `count` of them (the offer's count).
    func section(at index: Int, count: Int, sessionEnd: Int) -> WireSection? {
        var found: WireSection?
        var seen = 0
        for section in sections(from: sessionEnd) {
            if section.index == index { found = section }
            seen += 1
        }
        return seen == count ? found : nil
    }
}

extension WireSection {
    /// Whether the formats read in place are the ones the model path takes: a payload type of the m= line with
    /// no rtpmap of its own gets our offer's mapping there, the static one here. They differ only when we offered
    /// that payload type with another mapping than the static one (or one with none).
    func takesOwnMappings(_ formats: UnsafeBufferPointer<WireFormat>, ours: [RTPFormat]) -> Bool {
        var fields = FieldCursor(offer.bytes, formatList)
        while let field = fields.next() {
            guard let number = offer.bytes.decimal(field, limit: 127) else { return false }
            let pt = UInt8(number)
            let mappedHere = formats.contains { $0.payloadType == pt && $0.name != nil }
            guard !mappedHere, let own = ours.first(where: { $0.payloadType == pt }) else { continue }
            guard own.rtpMap == RTPMap.staticAudio(pt) else { return false }
        }
        return true
    }
}

extension WireFormat {
    /// `RTPMap.isSameCodec(as:)` against a format of our offer.
    func isSameCodec(as map: RTPMap, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard clockRate == map.clockRate, nameEquals(map.encodingName, in: bytes) else { return false }
        return channelCount == map.channelCount || nameEquals(.opus, "opus", in: bytes)
    }
}

extension NegotiatedSession.NegotiatedCodec {
    /// `init(own:theirs:receiveParameters:)` with their format read in place.
    init(own: RTPFormat, theirPayloadType: UInt8, sendParameters: String?) {
        self.init(
            encodingName: own.rtpMap.encodingName, clockRate: own.rtpMap.clockRate,
            channels: own.rtpMap.channelCount, sendPayloadType: theirPayloadType,
            receivePayloadType: own.payloadType, sendFormatParameters: sendParameters,
            receiveFormatParameters: own.parameters?.parameterString)
    }
}
