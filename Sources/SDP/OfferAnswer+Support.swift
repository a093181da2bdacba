// What building offers and answers shares: formats of a remote m= line, remote addresses, crypto checks,
// our keys and directions.

/// A format of an m= line with what it stands for.
struct RTPFormat {
    let payloadType: UInt8
    let rtpMap: RTPMap
    let parameters: FormatParameters?
    /// Whether it is telephone-event (known once: negotiation asks for each codec of ours).
    let isTelephoneEvent: Bool

    init(payloadType: UInt8, rtpMap: RTPMap, parameters: FormatParameters?) {
        self.init(
            payloadType: payloadType, rtpMap: rtpMap, parameters: parameters,
            isTelephoneEvent: rtpMap.encodingName.equalsIgnoringASCIICase("telephone-event"))
    }

    /// A format whose kind is known already (one of our codecs).
    init(payloadType: UInt8, rtpMap: RTPMap, parameters: FormatParameters?, isTelephoneEvent: Bool) {
        self.payloadType = payloadType
        self.rtpMap = rtpMap
        self.parameters = parameters
        self.isTelephoneEvent = isTelephoneEvent
    }

    /// The formats of an RTP m= line, each with its rtpmap (or `fallback`'s, for a payload type without
    /// one) and fmtp; formats with no known meaning and repeats are left out.
    /// - Throws: `SDPError` (400) for a format that is no payload type or a malformed rtpmap or fmtp.
    static func formats(of media: MediaDescription, fallback: (UInt8) -> RTPMap? = RTPMap.staticAudio)
        throws(SDPError) -> [RTPFormat]
    {
        let maps = try media.rtpMaps
        let parameters = try media.formatParameters
        let payloadTypes = try media.payloadTypes
        var formats: [RTPFormat] = []
        formats.reserveCapacity(payloadTypes.count)
        for pt in payloadTypes where !formats.contains(where: { $0.payloadType == pt }) {
            guard let map = maps.first(where: { $0.payloadType == pt }) ?? fallback(pt) else { continue }
            let format = String(pt)
            formats.append(
                RTPFormat(payloadType: pt, rtpMap: map, parameters: parameters.first { $0.format == format }))
        }
        return formats
    }
}

extension RTPMap {
    /// True when both stand for the same codec: encoding name (ignoring case), clock rate and channel count,
    /// the count not compared for Opus (always signalled as 2, RFC 7587 §7).
    func isSameCodec(as other: RTPMap) -> Bool {
        guard encodingName.equalsIgnoringASCIICase(other.encodingName), clockRate == other.clockRate else {
            return false
        }
        return encodingName.equalsIgnoringASCIICase("opus") || channelCount == other.channelCount
    }
}

/// An a=crypto line of the other side that we can use.
struct UsableCrypto {
    var attribute: CryptoAttribute
    /// Our spelling of its suite.
    var suite: CryptoSuite
    var key: SRTPKeyParameters
    var keySalt: [UInt8]

    /// Checks one a=crypto line against `suites`: a suite we support, a single inline key of the right length,
    /// and no session parameters (we implement none of RFC 4568 §6.3's). `nil` otherwise, malformed included:
    /// RFC 4568 §7.1.2 has the answerer skip crypto lines it cannot use.
    init?(_ attribute: Attribute, suites: [CryptoSuite]) {
        guard let crypto = try? attribute.typedValue(CryptoAttribute.self),
            let suite = suites.first(where: { $0.matches(crypto.suite) }),
            crypto.keyParameters.count == 1, let key = crypto.keyParameters.first,
            let keySalt = key.keySaltBytes, keySalt.count == suite.keySaltLength,
            crypto.sessionParameters.isEmpty
        else { return nil }
        self.attribute = crypto
        self.suite = suite
        self.key = key
        self.keySalt = keySalt
    }
}

extension TransportProtocol {
    /// For the RTP profiles we run: whether it is secure (SAVP, SAVPF); `nil` for any other protocol
    /// (DTLS-SRTP's UDP/TLS/RTP/SAVP included).
    var isSecureRTP: Bool? {
        if matches(.rtpAVP) || matches(.rtpAVPF) { return false }
        if matches(.rtpSAVP) || matches(.rtpSAVPF) { return true }
        return nil
    }
}

extension OfferAnswer {
    /// Our master key and salt for `suite`: made once, then reused by later offers and answers.
    mutating func localKey(for suite: CryptoSuite) throws(SDPError) -> [UInt8] {
        if let key = localKeys[suite] { return key }
        guard let length = suite.keySaltLength, let key = keySource.makeKeyMaterial(count: length),
            key.count == length
        else {
            throw SDPError(.keySourceFailed, "the key source gave no \(suite) key")
        }
        localKeys[suite] = key
        return key
    }

    /// Where to send RTP and RTCP for `description.media[index]`: `nil` for a rejected stream or an
    /// unspecified (0.0.0.0) address.
    static func remoteAddresses(in description: SessionDescription, at index: Int, isRTCPMuxed: Bool)
        throws(SDPError) -> (rtp: NegotiatedSession.TransportAddress?, rtcp: NegotiatedSession.TransportAddress?)
    {
        let media = description.media[index]
        guard media.port != 0, let connection = description.connection(forMediaAt: index),
            !connection.isUnspecified
        else { return (nil, nil) }
        let rtp = NegotiatedSession.TransportAddress(host: connection.address, port: media.port)
        if isRTCPMuxed { return (rtp, rtp) }
        if let attribute = try media.rtcp {
            let host = attribute.connection?.address ?? connection.address
            if attribute.connection?.isUnspecified == true { return (rtp, nil) }
            return (rtp, NegotiatedSession.TransportAddress(host: host, port: attribute.port))
        }
        guard media.port < UInt16.max else { return (rtp, nil) }
        return (rtp, NegotiatedSession.TransportAddress(host: connection.address, port: media.port + 1))
    }

    /// The direction the other side's description gives `media[index]`, with an unspecified c= address
    /// (RFC 2543 hold, RFC 3264 §8.4) taken as "do not send to me".
    static func remoteDirection(of description: SessionDescription, at index: Int) -> MediaDirection {
        let stated = description.direction(forMediaAt: index)
        guard description.connection(forMediaAt: index)?.isUnspecified == true else { return stated }
        return MediaDirection(sends: stated.sends, receives: false)
    }

    /// Our RTCP port: the RTP port with rtcp-mux, else the next one.
    func localRTCPPort(isRTCPMuxed: Bool) -> UInt16? {
        let port = configuration.rtpPort
        if isRTCPMuxed { return port }
        return port < UInt16.max ? port + 1 : nil
    }

    /// A description with our o=, s= and c= lines around `media` (the version is set by `commit`).
    func makeDescription(media: [MediaDescription]) -> SessionDescription {
        let origin = Origin(
            username: configuration.username, sessionID: String(sessionID), sessionVersion: version,
            address: configuration.address)
        return SessionDescription(
            origin: origin, sessionName: configuration.sessionName,
            connection: Connection(address: configuration.address), media: media)
    }

    /// A rejected (or kept-disabled) copy of an m= line: port 0, same type, transport and formats (RFC 3264
    /// §6, §8.2).
    static func rejected(_ media: MediaDescription) -> MediaDescription {
        MediaDescription(
            mediaType: media.mediaType, port: 0, transport: media.transport,
            formats: media.formats.isEmpty ? ["0"] : media.formats)
    }
}
