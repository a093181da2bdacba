// Answering an offer from its bytes: `buildAnswer(to:)` for an offer `SessionDescription(parsing:)` kept as
// bytes, without building its model. The same decisions as `answerAudio(in:at:)`, read off the lines in place,
// and the answer written straight into one buffer. Whatever this path does not take (SRTP faults, a malformed
// attribute it reads, no common codec, non-ASCII bytes, a configuration whose text the serializer would change)
// it leaves to the model path, which then answers or throws as before: `FuzzSDP` checks that both paths agree.

extension OfferAnswer {
    /// The answer to a scanned offer and the session it negotiates, as `buildAnswer(to:)` makes them; `nil` when
    /// the model path must decide.
    mutating func buildAnswer(toWire offer: WireStorage) -> (SessionDescription, NegotiatedSession)? {
        guard offer.isASCII, let sessionEnd = offer.lines.firstIndex(where: { $0.type == UInt8(ascii: "m") }) else {
            return nil
        }
        return offer.bytes.withUnsafeBufferPointer { bytes in
            let wire = WireOffer(bytes: bytes, lines: offer.lines)
            // DTLS-SRTP and the WebRTC attributes it brings are answered from the model.
            if configuration.answersDTLS, wire.hasFingerprint { return nil }
            return buildAnswer(wire, sessionEnd: sessionEnd)
        }
    }

    private mutating func buildAnswer(_ offer: WireOffer, sessionEnd: Int) -> (SessionDescription, NegotiatedSession)? {
        // Written on the stack (a larger answer moves to the heap), then copied once into bytes of its own size.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { scratch in
            var writer = WireWriter(scratch: scratch)
            return buildAnswer(offer, sessionEnd: sessionEnd, into: &writer)
        }
    }

    private mutating func buildAnswer(_ offer: WireOffer, sessionEnd: Int, into writer: inout WireWriter) -> (
        SessionDescription, NegotiatedSession
    )? {
        guard writeSessionLines(into: &writer) else { return nil }
        var accepted: NegotiatedSession?
        for section in offer.sections(from: sessionEnd) {
            if accepted == nil, section.port != 0, section.isAudio {
                guard let negotiated = answerAudio(section, into: &writer) else { return nil }
                accepted = negotiated
            } else {
                section.writeRejected(into: &writer)
            }
        }
        guard let accepted else { return nil }
        return (SessionDescription(storage: writer.finish()), accepted)
    }

    /// v=, o=, s=, c= and t= as `makeDescription(media:)` makes them; false when the serializer would change a
    /// configured text.
    func writeSessionLines(into writer: inout WireWriter) -> Bool {
        guard let text = configuration.sessionLineText else { return false }
        text.bytes.withUnsafeBufferPointer { bytes in
            writer.append(UnsafeBufferPointer(rebasing: bytes[..<text.split]))
            let idField = writer.appendDecimalRecording(sessionID)
            writer.append(ASCII.space)
            // A first answer's version is the session id: its digits copied rather than worked out again.
            writer.appendVersion(version, copying: version == sessionID ? idField : nil)
            writer.append(UnsafeBufferPointer(rebasing: bytes[text.split...]))
        }
        return true
    }

    /// `answerAudio(in:at:)` for one section: the answer's m= line and attributes written, the session returned;
    /// `nil` when the model path must decide.
    private mutating func answerAudio(_ section: WireSection, into writer: inout WireWriter) -> NegotiatedSession? {
        guard let crypto = offeredCrypto(section) else { return nil }
        return section.withOffered { offered in answerAudio(section, offered, crypto, into: &writer) }
    }

    /// `answerAudio(_:into:)` with the section's offered formats and crypto read.
    private mutating func answerAudio(
        _ section: WireSection, _ offered: OfferedSection, _ crypto: UsableCrypto?, into writer: inout WireWriter
    ) -> NegotiatedSession? {
        // The codecs and telephone-events in common on the stack: at most one per configured codec, and one per
        // offered format; read only while answering.
        return withUnsafeTemporaryAllocation(
            of: (codec: Int, format: Int).self, capacity: Swift.max(1, configuration.codecs.count)
        ) { buffer in
            let count = commonCodecs(offered.formats, in: section.offer.bytes, into: buffer)
            let common = UnsafeBufferPointer(rebasing: buffer[..<count])
            return withUnsafeTemporaryAllocation(of: CommonEvent.self, capacity: Swift.max(1, offered.formats.count)) {
                events in
                let eventCount = commonEvents(offered.formats, in: section.offer.bytes, into: events)
                return answerAudio(
                    section, offered, crypto, common: common,
                    events: UnsafeBufferPointer(rebasing: events[..<eventCount]), into: &writer)
            }
        }
    }

    /// `answerAudio(_:into:)` with the section's offered formats and crypto read, and the codecs in common.
    private mutating func answerAudio(
        _ section: WireSection, _ offered: OfferedSection, _ crypto: UsableCrypto?,
        common: UnsafeBufferPointer<(codec: Int, format: Int)>, events: UnsafeBufferPointer<CommonEvent>,
        into writer: inout WireWriter
    ) -> NegotiatedSession? {
        let facts = offered.facts
        let formats = offered.formats
        guard !common.isEmpty else { return nil }

        section.writeMediaLine(
            port: configuration.rtpPort, formats: formats, common: common, events: events, into: &writer)
        let codecs = configuration.codecs
        for (codec, format) in common {
            guard writeRTPMap(codec, payloadType: formats[format].payloadType, into: &writer) else {
                return nil
            }
            if codecs[codec].formatParameters != nil {
                guard let tail = codecs[codec].formatParametersTail else { return nil }
                writer.appendFormatParameters(formats[format].payloadType, tail: tail)
            }
        }
        for event in events {
            guard writeRTPMap(event.codec, payloadType: formats[event.format].payloadType, into: &writer),
                writeEventList(event, codecs, payloadType: formats[event.format].payloadType, into: &writer)
            else { return nil }
        }
        writer.begin("a")
        writer.append("ptime:")
        writer.appendDecimal(configuration.packetTime)
        writer.end()
        let isMuxed = facts.isRTCPMuxed && configuration.isRTCPMuxEnabled
        if isMuxed {
            writer.begin("a")
            writer.append("rtcp-mux")
            writer.end()
        }
        var srtp: NegotiatedSession.SRTPParameters?
        if case .some(let usable) = crypto {
            guard let key = try? localKey(for: usable.suite) else { return nil }
            let line = CryptoAttribute(
                tag: usable.attribute.tag, suite: usable.suite, keyParameters: [SRTPKeyParameters(keySalt: key)])
            writer.begin("a")
            writer.append("crypto:")
            guard writer.appendText(line.attributeValue) else { return nil }
            writer.end()
            srtp = NegotiatedSession.SRTPParameters(
                suite: usable.suite, tag: usable.attribute.tag, localKeySalt: key, remoteKeySalt: usable.keySalt,
                remoteLifetime: usable.key.lifetime, remoteMKI: usable.key.mki)
        }
        if let mid = facts.mid {
            writer.begin("a")
            writer.append("mid:")
            writer.append(section.offer.bytes, mid)
            writer.end()
        }
        let connection = section.connectionAddress
        let remote = section.remoteDirection(facts, connection: connection)
        let direction = remote.reversed.intersection(MediaDirection(sends: true, receives: !isLocalHold))
        writer.begin("a")
        writer.append(direction.attributeName)
        writer.end()
        // What the layer above adds to every audio section (ICE's attributes), last, as the model path does.
        guard writer.appendAttributes(configuration.mediaAttributes) else { return nil }

        // Each codec read field by field through a buffer pointer: a whole `Codec` copied retains all it holds.
        let negotiated = codecs.withUnsafeBufferPointer { codecs in
            common.map { codec, format in
                NegotiatedSession.NegotiatedCodec(
                    codec: codecs, codec, payloadType: formats[format].payloadType,
                    sendParameters: section.parameterString(formats[format]),
                    receiveParameters: codecs[codec].formatParameters)
            }
        }
        guard let chosen = negotiated.first,
            let addresses = section.remoteAddresses(facts, connection: connection, isRTCPMuxed: isMuxed)
        else { return nil }
        // The entry whose clock rate is the codec's, else the first.
        let event = events.first { codecs[$0.codec].clockRate == chosen.clockRate } ?? events.first
        let telephoneEvent = event.map { event in
            codecs.withUnsafeBufferPointer { codecs in
                NegotiatedSession.NegotiatedCodec(
                    codec: codecs, event.codec, payloadType: formats[event.format].payloadType,
                    sendParameters: section.parameterString(formats[event.format]),
                    receiveParameters: event.list(configuration.codecs))
            }
        }
        return NegotiatedSession(
            mediaIndex: section.index, codec: chosen, codecs: negotiated, telephoneEvent: telephoneEvent,
            remotePacketTime: facts.packetTime, remoteRTPAddress: addresses.rtp, remoteRTCPAddress: addresses.rtcp,
            localRTPPort: configuration.rtpPort, localRTCPPort: localRTCPPort(isRTCPMuxed: isMuxed),
            isRTCPMuxed: isMuxed, direction: direction, isLocalHold: isLocalHold, isRemoteHold: !remote.receives,
            srtp: srtp)
    }

    /// `offeredCrypto(_:)`: `.some(nil)` for plain RTP, `.some(crypto)` for SRTP, `nil` for a refusal (which the
    /// model path then reports).
    private func offeredCrypto(_ section: WireSection) -> UsableCrypto?? {
        guard let secure = section.isSecureRTP else { return nil }
        let policy = configuration.srtpPolicy
        if secure && policy == .off { return nil }
        guard policy != .off else { return .some(nil) }
        let lines = section.cryptoAttributes()
        let suites = configuration.usableCryptoSuites
        if let usable = lines.lazy.compactMap({ UsableCrypto($0, suites: suites) }).first { return usable }
        if secure || policy == .mandatory { return nil }
        return .some(nil)
    }

    /// Every configured codec the offer has (telephone-event aside), as `answerAudio(in:at:)` picks them: in
    /// our order (or the offerer's), each with the index of its offered format.
    /// Writes them into `common` (room for one per configured codec) and returns how many there are.
    private func commonCodecs(
        _ formats: UnsafeBufferPointer<WireFormat>, in bytes: UnsafeBufferPointer<UInt8>,
        into common: UnsafeMutableBufferPointer<(codec: Int, format: Int)>
    ) -> Int {
        var count = 0
        // Through buffer pointers: each codec and format is read field by field, never copied whole.
        configuration.codecs.withUnsafeBufferPointer { codecs in
            for c in codecs.indices where !codecs[c].isTelephoneEvent && count < common.count {
                guard
                    let format = formats.firstIndex(where: {
                        !$0.isTelephoneEvent && $0.isSameCodec(as: codecs, c, in: bytes)
                    }),
                    !common[..<count].contains(where: {
                        formats[$0.format].payloadType == formats[format].payloadType
                    })
                else { continue }
                common.initializeElement(at: count, to: (c, format))
                count += 1
            }
        }
        if configuration.prefersOffererCodecOrder {
            var sorted = UnsafeMutableBufferPointer(rebasing: common[..<count])
            sorted.sort { $0.format < $1.format }
        }
        return count
    }

    /// The offered telephone-events we take, with the events both ends support (RFC 4733 §7.1.1): the index of
    /// our codec, of the format, and the events. Writes them into `events` (room for one per format) and returns
    /// how many there are.
    private func commonEvents(
        _ formats: UnsafeBufferPointer<WireFormat>, in bytes: UnsafeBufferPointer<UInt8>,
        into events: UnsafeMutableBufferPointer<CommonEvent>
    ) -> Int {
        var count = 0
        guard formats.contains(where: \.isTelephoneEvent) else { return 0 }
        configuration.codecs.withUnsafeBufferPointer { codecs in
            for (index, format) in formats.enumerated() where format.isTelephoneEvent && count < events.count {
                guard
                    let own = codecs.firstIndex(where: { $0.clockRate == format.clockRate && $0.isTelephoneEvent }),
                    let ours = codecs[own].traits.events
                else { continue }
                // Offered as we configured it (the usual case): the same events, without parsing them again.
                if let parameters = format.parameters, !parameters.isEmpty, let text = codecs[own].formatParameters,
                    bytes.equals(parameters, exactly: text)
                {
                    events.initializeElement(
                        at: count, to: CommonEvent(codec: own, format: index, events: ours, isOurs: true))
                    count += 1
                    continue
                }
                guard let theirs = format.events(in: bytes) else { continue }
                let both = theirs.intersection(ours)
                guard !both.isEmpty else { continue }
                events.initializeElement(
                    at: count, to: CommonEvent(codec: own, format: index, events: both, isOurs: both == ours))
                count += 1
            }
        }
        return count
    }

    /// `a=rtpmap` of one of our codecs under the offerer's payload type.
    private func writeRTPMap(_ codec: Int, payloadType: UInt8, into writer: inout WireWriter) -> Bool {
        guard let tail = configuration.codecs[codec].rtpMapTail else { return false }
        return writer.appendRTPMap(tail: tail, payloadType: payloadType)
    }

    /// The `a=fmtp` of the events in common under the offerer's payload type: all ours from bytes made when the
    /// codec was set, else the list written out.
    private func writeEventList(
        _ event: CommonEvent, _ codecs: [Codec], payloadType: UInt8, into writer: inout WireWriter
    ) -> Bool {
        // Read through a buffer pointer: a whole `Codec` copied retains all it holds.
        let tail = event.isOurs ? codecs.withUnsafeBufferPointer { $0[event.codec].eventsTail } : nil
        if let tail {
            writer.appendFormatParameters(payloadType, tail: tail)
            return true
        }
        return writeFormatParameters(payloadType, event.list(codecs), into: &writer)
    }

    /// `a=fmtp` under the offerer's payload type.
    private func writeFormatParameters(_ payloadType: UInt8, _ parameters: String, into writer: inout WireWriter)
        -> Bool
    {
        writer.appendFormatParameters(payloadType, parameters)
    }
}

/// An offered telephone-event we take: the index of our codec and of the offered format, and the events both ends
/// support (`isOurs` when they are all ours).
struct CommonEvent {
    var codec: Int
    var format: Int
    var events: TelephoneEvents
    var isOurs: Bool

    /// The list we receive, as the fmtp writes it: our own text when we take all our events (written once when
    /// the codec was made).
    func list(_ codecs: [Codec]) -> String {
        // Read through a buffer pointer: the codec's traits are not copied.
        let ours = isOurs ? codecs.withUnsafeBufferPointer { $0[codec].traits.eventsText } : nil
        return ours ?? events.text
    }
}

extension WireWriter {
    /// `a=rtpmap` of a codec under `payloadType`, its text after the payload type being `tail`
    /// (`Codec.rtpMapTail`).
    mutating func appendRTPMap(tail: [UInt8], payloadType: UInt8) -> Bool {
        begin("a")
        append("rtpmap:")
        appendDecimal(payloadType)
        tail.withUnsafeBufferPointer { append($0) }
        end()
        return true
    }

    /// `a=fmtp` under `payloadType`, its text after the payload type being `tail`
    /// (`Codec.formatParametersTail`).
    mutating func appendFormatParameters(_ payloadType: UInt8, tail: [UInt8]) {
        begin("a")
        append("fmtp:")
        appendDecimal(payloadType)
        tail.withUnsafeBufferPointer { append($0) }
        end()
    }

    /// `a=fmtp` under `payloadType`; false when the text would be written otherwise.
    mutating func appendFormatParameters(_ payloadType: UInt8, _ parameters: String) -> Bool {
        begin("a")
        append("fmtp:")
        appendDecimal(payloadType)
        if !parameters.isEmpty {
            append(ASCII.space)
            guard appendText(parameters) else { return false }
        }
        end()
        return true
    }

    /// Attribute lines as `Attribute.serialize(into:)` writes them; false when one would be written otherwise.
    mutating func appendAttributes(_ attributes: [Attribute]) -> Bool {
        for attribute in attributes {
            begin("a")
            guard appendToken(attribute.name) else { return false }
            if let value = attribute.value {
                append(":")
                guard appendText(value) else { return false }
            }
            end()
        }
        return true
    }
}

extension NegotiatedSession.NegotiatedCodec {
    /// A codec we answer with (`codecs[index]`), as `init(codec:format:events:)` makes it.
    init(
        codec codecs: UnsafeBufferPointer<Codec>, _ index: Int, payloadType: UInt8, sendParameters: String?,
        receiveParameters: String?
    ) {
        self.init(
            encodingName: codecs[index].encodingName, clockRate: codecs[index].clockRate,
            channels: codecs[index].channels, sendPayloadType: payloadType, receivePayloadType: payloadType,
            sendFormatParameters: sendParameters, receiveFormatParameters: receiveParameters)
    }
}

extension MediaDirection {
    /// The attribute name, as `attribute` writes it.
    var attributeName: StaticString {
        switch self {
        case .sendrecv: "sendrecv"
        case .sendonly: "sendonly"
        case .recvonly: "recvonly"
        case .inactive: "inactive"
        }
    }
}
