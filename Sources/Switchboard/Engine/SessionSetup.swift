import COpenSSL
import SDP
import SIPAuthentication
import SIPCore
import SIPMessage
import SIPTransport
import SIPUserAgent

/// Builds what a new `InviteSession` needs: its configuration (Contact in the flow's form, 100rel, session
/// timer, T1/T2), its offer/answer engine with the codecs, SRTP policy and media address of the call, and
/// an outgoing call's From, To, route set and extra header fields.
struct SessionSetup {
    /// The provider's session settings.
    struct Settings {
        var userAgent: String
        var t1: Duration
        var t2: Duration
        var reliableProvisionals: ReliableProvisionalPolicy
        var sessionInterval: UInt32?
        var codecs: [Codec]
        var srtp: SRTPPolicy
        var offersRTCPMux: Bool
        var srtpKeying: SRTPKeying
        /// The `a=crypto` suites in preference order (`CallProviderConfiguration.srtpSuites`).
        var cryptoSuites: [CryptoSuite]
        var usesWebRTCProfile: Bool
        /// Our certificate's fingerprints for DTLS-SRTP offers and answers; empty without a certificate.
        var dtlsFingerprints: [Fingerprint]

        init(_ configuration: CallProviderConfiguration, dtls: DTLSCallSettings? = nil) {
            srtpKeying = configuration.srtpKeying
            cryptoSuites = configuration.srtpSuites.map { $0.map(\.cryptoSuite) } ?? CryptoSuite.defaultSuites
            usesWebRTCProfile = configuration.usesWebRTCProfile
            dtlsFingerprints = dtls?.fingerprints ?? []
            if configuration.advertisesForeignDTLSFingerprint {
                dtlsFingerprints = dtlsFingerprints.map {
                    Fingerprint(hashFunction: $0.hashFunction, bytes: $0.bytes.map { ~$0 })
                }
            }
            offersRTCPMux = configuration.offersRTCPMux
            userAgent = configuration.localizedName
            t1 = configuration.t1
            t2 = configuration.t2
            reliableProvisionals = configuration.supportsReliableProvisionals ? .supported : .disabled
            sessionInterval = configuration.sessionInterval
            codecs = configuration.codecs
            srtp = configuration.srtp
        }
    }

    var settings: Settings {
        didSet {
            configurationCache = nil
            sessionConfigurationCache = nil
        }
    }
    let random: EngineRandom
    /// The `.invalid` host a WebSocket client's Contact names (`SIPTransportLayer.webSocketClientHost`).
    var webSocketClientHost = "switchboard.invalid"
    /// The SDP/media hand-off: the provider opens a new session's stream, given the signalling address the
    /// session uses, and says what its SDP announces (at once, or once ICE gathered its candidates).
    var openMedia: (SessionKey, String, MediaSetup) -> MediaOpening = { _, host, _ in
        .ready(LocalMedia(host: host, port: 0))
    }
    /// The SDP codec list last built: sessions with the same codecs share its storage.
    private var codecListCache: (codecs: [Codec], list: [SDP.Codec])?
    /// The offer/answer configuration last built, but for its RTP port: sessions made from the same terms share
    /// its storage (one allocation and its session-line text for all of them, instead of one per call).
    private var configurationCache: (terms: ConfigurationTerms, configuration: OfferAnswerConfiguration)?

    /// The session configuration last built, shared with the next session whose Contact is the same: a
    /// UAS's sessions all have one, and building its URI costs more than the rest of a configuration.
    private var sessionConfigurationCache: (inputs: ContactInputs, configuration: InviteSessionConfiguration)?

    /// What a session's Contact is made of.
    private struct ContactInputs: Equatable {
        var user: String
        var local: SocketAddress
        var transport: SIPTransport.TransportProtocol
        var webSocketClientHost: String
    }

    /// What a session's offer/answer configuration is made from besides `settings` and its RTP port.
    private struct ConfigurationTerms: Equatable {
        var host: String
        var codecs: [SDP.Codec]
        var policy: SRTPPolicy
        var attributes: [Attribute]
        var offersWebRTCProfile: Bool
    }

    init(settings: Settings, random: EngineRandom) {
        self.settings = settings
        self.random = random
    }

    /// The session configuration for a session whose Contact is `user` at `local`, in the form of the flow
    /// toward `destination`.
    mutating func configuration(contactUser user: String, local: SocketAddress, _ destination: Destination)
        -> InviteSessionConfiguration
    {
        let inputs = ContactInputs(
            user: user, local: local, transport: destination.transport, webSocketClientHost: webSocketClientHost)
        if let cached = sessionConfigurationCache, cached.inputs == inputs { return cached.configuration }
        let configuration = makeConfiguration(contactUser: user, local: local, destination)
        sessionConfigurationCache = (inputs, configuration)
        return configuration
    }

    private func makeConfiguration(contactUser user: String, local: SocketAddress, _ destination: Destination)
        -> InviteSessionConfiguration
    {
        let contactURI = TransportForm.contact(
            user: user, host: HopResolver.host(local), port: local.port, flow: destination.transport,
            webSocketClientHost: webSocketClientHost)
        var configuration = InviteSessionConfiguration(
            contact: NameAddress(uri: .sip(contactURI)), reliableProvisionalResponses: settings.reliableProvisionals,
            sessionTimer: settings.sessionInterval.map { SessionTimerConfiguration(interval: $0) },
            userAgent: settings.userAgent)
        configuration.t1 = settings.t1
        configuration.t2 = settings.t2
        return configuration
    }

    /// The offer/answer engine of a session that announces `media`, with `codecs` (and telephone-event) under
    /// `srtp` (the provider's when nil: an incoming call's).
    mutating func offerAnswer(
        _ media: LocalMedia, codecs: [Codec]? = nil, srtp: SRTPPolicy? = nil, offersWebRTCProfile: Bool = true
    ) -> OfferAnswer {
        var policy = srtp ?? settings.srtp
        // The WebRTC profile is SRTP: answers then take SRTP when offered, and plain RTP otherwise.
        if settings.usesWebRTCProfile, policy == .off { policy = .optional }
        var list = codecList(codecs ?? settings.codecs)
        if settings.usesWebRTCProfile { list = Self.askingForDTX(list) }
        let terms = ConfigurationTerms(
            host: media.host, codecs: list, policy: policy, attributes: media.attributes,
            offersWebRTCProfile: offersWebRTCProfile)
        var configuration: OfferAnswerConfiguration
        if let cached = configurationCache, cached.terms == terms {
            configuration = cached.configuration
            configuration.rtpPort = media.port
        } else {
            configuration = makeConfiguration(terms, rtpPort: media.port)
            configurationCache = (terms, configuration)
        }
        return OfferAnswer(
            configuration: configuration, random: random.generator,
            keySource: CryptographicKeySource(random: random))
    }

    /// The offer/answer configuration `terms` and `settings` make, receiving RTP on `rtpPort`.
    private func makeConfiguration(_ terms: ConfigurationTerms, rtpPort: UInt16) -> OfferAnswerConfiguration {
        var configuration = OfferAnswerConfiguration(
            address: terms.host, rtpPort: rtpPort, codecs: terms.codecs,
            srtpPolicy: Self.policy(terms.policy), cryptoSuites: settings.cryptoSuites,
            isRTCPMuxEnabled: settings.offersRTCPMux)
        configuration.mediaAttributes = terms.attributes
        if !settings.dtlsFingerprints.isEmpty {
            configuration.dtlsFingerprints = settings.dtlsFingerprints
            configuration.keying = settings.srtpKeying == .dtls ? .dtls : .sdes
            configuration.offersWebRTCProfile = settings.usesWebRTCProfile && terms.offersWebRTCProfile
        }
        return configuration
    }

    /// `codecs` as SDP codecs with telephone-event last, shared with the last session that had the same.
    private mutating func codecList(_ codecs: [Codec]) -> [SDP.Codec] {
        if let cached = codecListCache, cached.codecs == codecs { return cached.list }
        let list = Self.sdpCodecs(codecs)
        codecListCache = (codecs, list)
        return list
    }

    /// `codecs` as SDP codecs, telephone-event last. Pure.
    static func sdpCodecs(_ codecs: [Codec]) -> [SDP.Codec] {
        codecs.map {
            switch $0.code {
            case .opus: .opus()
            case .pcmu: .pcmu
            case .pcma: .pcma
            }
        } + [.telephoneEvent()]
    }

    /// `codecs` with `usedtx=1` on Opus (RFC 7587 §6.1), as WebRTC endpoints ask: the peer may stop sending in
    /// silence (the media timeout then counts its RTCP). Pure.
    static func askingForDTX(_ codecs: [SDP.Codec]) -> [SDP.Codec] {
        codecs.map { codec in
            guard codec.encodingName.lowercased() == "opus", let fmtp = codec.formatParameters,
                !fmtp.contains("usedtx")
            else { return codec }
            var asking = codec
            asking.formatParameters = fmtp + ";usedtx=1"
            return asking
        }
    }

    /// The SDP layer's SRTP policy for the API's. Pure.
    static func policy(_ srtp: SRTPPolicy) -> SDP.SRTPPolicy {
        switch srtp.code {
        case .off: .off
        case .optional: .optional
        case .mandatory: .mandatory
        }
    }

    /// The outgoing call of `request`: From (the account's AOR, else `switchboard` at `local`), To (the
    /// callee without URI parameters), the outbound proxy as a loose route, and the extra fields (Replaces
    /// and Referred-By of a transfer included). Pure.
    static func outgoingCall(
        _ request: OutgoingRequest, requestURI: URI, callID: String, localTag: String, initialSequence: UInt32,
        from fromURI: SIPURI
    ) -> OutgoingCall {
        // Built with its display name at once: setting it afterwards would build the address twice.
        let from = NameAddress(displayName: request.displayName, uri: .sip(fromURI))
        var headers = request.headers
        if let replaces = request.replaces { headers.append(SIPField(name: .replaces, value: replaces.description)) }
        if let referredBy = request.referredBy {
            headers.append(SIPField(name: .referredBy, value: referredBy.description))
        }
        return OutgoingCall(
            requestURI: requestURI, from: from, to: .callee(request.target), callID: callID, localTag: localTag,
            initialSequence: initialSequence, routeSet: [NameAddress](outboundProxy: request.outboundProxy),
            headers: headers)
    }
}

/// What the provider needs to open a new session's media, besides the signalling address.
enum MediaSetup {
    /// An outgoing call, with its account's ICE settings (`nil`: no ICE).
    case outgoing(ICESettings?)
    /// An incoming INVITE (its To names the account, its SDP the offer).
    case incoming(SIPRequest)
}

/// What the SDP of a new session announces.
enum MediaOpening {
    /// This, now.
    case ready(LocalMedia)
    /// ICE is gathering candidates: `SessionDriver.mediaReady(_:_:)` brings what the offer or answer
    /// announces; until then an incoming call's session uses the placeholder and its answer waits.
    case gathering(placeholder: LocalMedia)
    /// No stream could be opened (no free RTP port pair): the session is not created.
    case unavailable
}

/// An outgoing call to place.
struct OutgoingRequest {
    var target: URI
    var from: SIPURI?
    var displayName: String?
    var outboundProxy: SIPURI?
    var transport: SIPTransportKind?
    var credentials: (@Sendable (String) -> DigestCredentials?)?
    var codecs: [Codec]
    var srtp: SRTPPolicy
    /// ICE for the call (the account's or the provider's), `nil` for none.
    var ice: ICESettings?
    var headers: [SIPField]
    var replaces: Replaces?
    var referredBy: NameAddress?
    /// Whether the offer may use the WebRTC profile (false: the provider's is off, or a plain retry).
    var offersWebRTCProfile = true

    /// The user part of the Contact (and of From, without an account).
    var contactUser: String { from?.user ?? "switchboard" }
}

/// SRTP master keys from OpenSSL's CSPRNG (`RAND_bytes`), as RFC 4568 §6.1 asks; from the engine's own
/// source when it brings one (a seeded one in tests).
struct CryptographicKeySource: SRTPKeySource {
    let random: EngineRandom

    mutating func makeKeyMaterial(count: Int) -> [UInt8]? {
        guard count > 0, count <= 1024 else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        if random !== EngineRandom.system {
            bytes.withUnsafeMutableBytes { random.bytes.fill($0) }
            return bytes
        }
        let ok = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        return ok == 1 ? bytes : nil
    }
}
