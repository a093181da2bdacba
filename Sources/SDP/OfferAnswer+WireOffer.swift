// Writing our first offer straight into bytes: the lines `buildOffer()` would make of the configuration and
// `serialize(into:)` would write, in one buffer, without building the description's model. Only for the plain
// profile (no DTLS-SRTP, no WebRTC) and configured texts written as they are; anything else takes the model path.
// `AnswerBytesPathTests` and the offer tests check the bytes against the model path's.

extension OfferAnswer {
    /// The first offer (no description sent yet) written as bytes, with its terms; `nil` when the model path
    /// must make it.
    mutating func writeFirstOffer() throws(SDPError) -> (SessionDescription, OfferTerms)? {
        guard configuration.writesOffersAsBytes, !offersDTLS, !configuration.offersWebRTCProfile else { return nil }
        let codecs = payloadTypes(previous: nil, remote: nil)
        let cryptos = try offeredCryptos()
        let transport = offerTransport(previous: nil)
        guard
            let terms = OfferTerms(
                codecs: codecs, cryptos: cryptos, index: 0, count: 1, port: configuration.rtpPort,
                transport: transport, direction: offerDirection, configuration: configuration, isPlain: true)
        else { return nil }
        let written = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { scratch in
            var writer = WireWriter(scratch: scratch)
            guard writeSessionLines(into: &writer),
                writeAudioOffer(codecs, transport: transport, cryptos: cryptos, into: &writer)
            else { return nil as WireStorage? }
            return writer.finish()
        }
        return written.map { (SessionDescription(storage: $0), terms) }
    }

    /// The audio section `audioOffer(previous:remote:index:count:)` makes, as its serialization writes it.
    private func writeAudioOffer(
        _ offered: [(codec: Int, payloadType: UInt8)], transport: TransportProtocol, cryptos: [CryptoAttribute],
        into writer: inout WireWriter
    ) -> Bool {
        // Each codec read field by field through a buffer pointer: a whole `Codec` copied retains all it holds.
        configuration.codecs.withUnsafeBufferPointer { codecs in
            writeAudioOffer(offered, codecs: codecs, transport: transport, cryptos: cryptos, into: &writer)
        }
    }

    private func writeAudioOffer(
        _ offered: [(codec: Int, payloadType: UInt8)], codecs: UnsafeBufferPointer<Codec>,
        transport: TransportProtocol, cryptos: [CryptoAttribute], into writer: inout WireWriter
    ) -> Bool {
        writer.begin("m")
        writer.append("audio ")
        writer.appendDecimal(configuration.rtpPort)
        writer.append(ASCII.space)
        guard writer.appendField(transport.rawValue) else { return false }
        if offered.isEmpty { writer.append(" -") }
        for (_, payloadType) in offered {
            writer.append(ASCII.space)
            writer.appendDecimal(payloadType)
        }
        writer.end()
        for (codec, payloadType) in offered {
            guard let tail = codecs[codec].rtpMapTail, writer.appendRTPMap(tail: tail, payloadType: payloadType) else {
                return false
            }
            if codecs[codec].formatParameters != nil {
                guard let tail = codecs[codec].formatParametersTail else { return false }
                writer.appendFormatParameters(payloadType, tail: tail)
            }
        }
        writer.begin("a")
        writer.append("ptime:")
        writer.appendDecimal(configuration.packetTime)
        writer.end()
        if configuration.isRTCPMuxEnabled {
            writer.begin("a")
            writer.append("rtcp-mux")
            writer.end()
        }
        for crypto in cryptos {
            writer.begin("a")
            writer.append("crypto:")
            guard writer.appendText(crypto.attributeValue) else { return false }
            writer.end()
        }
        writer.begin("a")
        writer.append(offerDirection.attributeName)
        writer.end()
        return writer.appendAttributes(configuration.mediaAttributes)
    }
}
