/// Whether and how media is encrypted (RFC 3711 SRTP keyed by RFC 4568 SDES).
public enum SRTPPolicy: String, Sendable, Hashable, CaseIterable {
    /// Plain RTP: offers carry no a=crypto; RTP/SAVP offers are refused (488).
    case off
    /// Best effort: offers are RTP/AVP with a=crypto; answers use SRTP when the other side offers or accepts
    /// a crypto suite we support, plain RTP otherwise.
    case optional
    /// SRTP or nothing: offers are RTP/SAVP with a=crypto; offers and answers without usable crypto are
    /// refused (488).
    case mandatory
}

/// What the offer/answer engine offers and accepts for the one audio stream of a call.
public struct OfferAnswerConfiguration: Sendable, Hashable {
    /// The values, shared with copies (see `OfferAnswerConfiguration+Storage.swift`).
    var storage: Storage

    /// The codecs in preference order, telephone-event included (`Codec.defaultCodecs` by default).
    public var codecs: [Codec] {
        get { storage.fields.codecs }
        _modify { yield &uniqueStorage.fields.codecs }
    }
    /// The packetization we ask for, in milliseconds (a=ptime), 20 by default.
    public var packetTime: Int {
        get { storage.fields.packetTime }
        _modify { yield &uniqueStorage.fields.packetTime }
    }
    /// The SRTP policy, `.off` by default.
    public var srtpPolicy: SRTPPolicy {
        get { storage.fields.srtpPolicy }
        _modify { yield &uniqueStorage.fields.srtpPolicy }
    }
    /// The crypto suites offered and accepted, in preference order; suites outside `CryptoSuite.supported`
    /// are ignored.
    public var cryptoSuites: [CryptoSuite] {
        get { storage.fields.cryptoSuites }
        _modify { yield &uniqueStorage.fields.cryptoSuites }
    }
    /// The address we receive media on, written in o= and c= (IP4, or IP6 when it holds a colon).
    public var address: String {
        get { storage.fields.address }
        _modify { yield &uniqueStorage.fields.address }
    }
    /// The port we receive RTP on; RTCP is on the next port unless rtcp-mux is negotiated. Kept beside the
    /// shared storage, not in it: calls that differ only in their port share one storage.
    public var rtpPort: UInt16
    /// Whether we offer and accept rtcp-mux (RFC 5761), true by default.
    public var isRTCPMuxEnabled: Bool {
        get { storage.fields.isRTCPMuxEnabled }
        _modify { yield &uniqueStorage.fields.isRTCPMuxEnabled }
    }
    /// Whether answers list the common codecs in the offerer's order instead of ours (false by default).
    public var prefersOffererCodecOrder: Bool {
        get { storage.fields.prefersOffererCodecOrder }
        _modify { yield &uniqueStorage.fields.prefersOffererCodecOrder }
    }
    /// Attributes written at the end of the audio m= section of every offer and answer, as given: what a layer
    /// above adds without the engine knowing it (ICE's `a=ice-ufrag`, `a=ice-pwd`, `a=candidate`, RFC 8839).
    /// Empty by default.
    public var mediaAttributes: [Attribute] {
        get { storage.fields.mediaAttributes }
        _modify { yield &uniqueStorage.fields.mediaAttributes }
    }
    /// Whether a first offer is written straight into bytes when it can be (true, the default) or always made as a
    /// model and serialized: for checking the two paths against each other.
    package var writesOffersAsBytes: Bool {
        get { storage.fields.writesOffersAsBytes }
        _modify { yield &uniqueStorage.fields.writesOffersAsBytes }
    }
    /// How offers key SRTP when the policy asks for it: `a=crypto` (`.sdes`, the default) or `a=fingerprint`
    /// with `a=setup` and `a=tls-id` (`.dtls`, RFC 5763, RFC 8842), which needs `dtlsFingerprints`. Answers take
    /// whichever keying an offer uses, under the same policy.
    public var keying: SRTPKeying {
        get { storage.fields.keying }
        _modify { yield &uniqueStorage.fields.keying }
    }
    /// The fingerprints of the certificate this side presents in DTLS handshakes (RFC 8122), `sha-256` first:
    /// written in DTLS offers and answers. Empty (the default): DTLS-SRTP is neither offered nor accepted.
    public var dtlsFingerprints: [Fingerprint] {
        get { storage.fields.dtlsFingerprints }
        _modify { yield &uniqueStorage.fields.dtlsFingerprints }
    }
    /// Whether offers use the WebRTC profile (RFC 8829 §5.2.1, RFC 8834): `UDP/TLS/RTP/SAVPF` keyed by DTLS
    /// (whatever `keying` and `srtpPolicy` say; it needs `dtlsFingerprints`), `a=rtcp-mux`, `a=rtcp-rsize`
    /// (RFC 5506), `a=mid` in an `a=group:BUNDLE` (RFC 9143) and the MID header extension's `a=extmap` (RFC
    /// 8285). False by default.
    public var offersWebRTCProfile: Bool {
        get { storage.fields.offersWebRTCProfile }
        _modify { yield &uniqueStorage.fields.offersWebRTCProfile }
    }
    /// The o= username, `-` by default.
    public var username: String {
        get { storage.fields.username }
        _modify { yield &uniqueStorage.fields.username }
    }
    /// The s= line, `-` by default.
    public var sessionName: String {
        get { storage.fields.sessionName }
        _modify { yield &uniqueStorage.fields.sessionName }
    }
    /// The session-level lines of answers written from an offer's bytes, made from the three texts above.
    var sessionLineText: SessionLineText? { storage.fields.sessionLineText }

    /// - Parameters:
    ///   - address: the media address.
    ///   - rtpPort: the RTP port.
    ///   - codecs: the codecs in preference order.
    ///   - packetTime: a=ptime in milliseconds.
    ///   - srtpPolicy: the SRTP policy.
    ///   - cryptoSuites: the crypto suites in preference order (`CryptoSuite.defaultSuites` by default: the
    ///     AES-CM suites, 80-bit tag first).
    ///   - isRTCPMuxEnabled: whether to offer and accept rtcp-mux.
    public init(
        address: String, rtpPort: UInt16, codecs: [Codec] = Codec.defaultCodecs, packetTime: Int = 20,
        srtpPolicy: SRTPPolicy = .off, cryptoSuites: [CryptoSuite] = CryptoSuite.defaultSuites,
        isRTCPMuxEnabled: Bool = true
    ) {
        storage = Storage(
            Fields(
                address: address, codecs: codecs, packetTime: packetTime, srtpPolicy: srtpPolicy,
                cryptoSuites: cryptoSuites, isRTCPMuxEnabled: isRTCPMuxEnabled))
        self.rtpPort = rtpPort
    }

    /// Whether answers may take DTLS-SRTP: SRTP is not off and there is a certificate. Offers with an
    /// `a=fingerprint` are then answered from the model (`OfferAnswer+WireAnswer.swift` answers plain and SDES
    /// offers only).
    var answersDTLS: Bool { srtpPolicy != .off && !dtlsFingerprints.isEmpty }

    /// Whether offers carry DTLS-SRTP: the WebRTC profile, or DTLS keying while SRTP is on.
    var offersDTLS: Bool { offersWebRTCProfile || (keying == .dtls && srtpPolicy != .off) }

    /// The configured suites the engine supports, in preference order, without repeats.
    var usableCryptoSuites: [CryptoSuite] {
        var result: [CryptoSuite] = []
        for suite in cryptoSuites {
            guard let supported = CryptoSuite.supported.first(where: { $0.matches(suite) }),
                !result.contains(supported)
            else { continue }
            result.append(supported)
        }
        return result
    }
}

/// Where SRTP master keys come from. The engine stays pure: the real source (OpenSSL's `RAND_bytes`) is
/// plugged in by the media layer; tests plug in a deterministic one.
public protocol SRTPKeySource: Sendable {
    /// Returns `count` fresh, unpredictable bytes (a master key and salt, RFC 4568 §6.1), or `nil` when
    /// none can be had; the engine then refuses to make the offer or answer.
    mutating func makeKeyMaterial(count: Int) -> [UInt8]?
}
