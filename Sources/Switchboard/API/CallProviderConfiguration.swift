import Foundation

/// How a provider runs, set once (CallKit's `CXProviderConfiguration` plus what SIP needs).
public struct CallProviderConfiguration: Sendable {
    /// A socket the provider listens on.
    public struct Listener: Sendable, Hashable, CustomStringConvertible {
        /// The transport.
        public var transport: SIPTransportKind
        /// `ADDRESS:PORT` (`0.0.0.0:5060`, `[::1]:0`, `127.0.0.1:5061`); port 0 picks a free port.
        public var address: String
        /// For WS and WSS: the only path WebSocket upgrades are answered on (others get 404); `/` when `nil`.
        public var resource: String?

        /// A listener on `address` over `transport`.
        /// - Parameters:
        ///   - transport: the transport.
        ///   - address: `ADDRESS:PORT`.
        ///   - resource: for WS and WSS, the path upgrades are answered on (`/` when `nil`).
        public init(_ transport: SIPTransportKind, _ address: String, resource: String? = nil) {
            self.transport = transport
            self.address = address
            self.resource = resource
        }

        public var description: String { "\(transport.rawValue):\(address)\(resource ?? "")" }
    }

    /// TLS trust and identity.
    public struct TLS: Sendable, Hashable {
        /// CA certificates (PEM) trusted for servers; the system store when `nil`.
        public var trustedCAFile: String?
        /// This side's certificate chain (PEM), required to listen on TLS.
        public var certificateFile: String?
        /// Its private key (PEM).
        public var privateKeyFile: String?
        /// Verify peers' certificates and names (RFC 5922). Only tests should turn this off.
        public var verifiesPeer: Bool

        /// TLS settings; peers are verified by default.
        public init(
            trustedCAFile: String? = nil, certificateFile: String? = nil, privateKeyFile: String? = nil,
            verifiesPeer: Bool = true
        ) {
            self.trustedCAFile = trustedCAFile
            self.certificateFile = certificateFile
            self.privateKeyFile = privateKeyFile
            self.verifiesPeer = verifiesPeer
        }
    }

    /// The name the app shows (CallKit's `localizedName`); also the User-Agent and Server header value.
    public var localizedName: String
    /// The identities calls are placed from and received on.
    public var accounts: [Account]
    /// The sockets to listen on; empty means UDP and TCP on any free port.
    public var listeners: [Listener]
    /// TLS trust and identity.
    public var tls: TLS
    /// Codecs in order of preference.
    public var codecs: [Codec]
    /// SRTP policy for calls.
    public var srtp: SRTPPolicy
    /// Calls in progress at once; more incoming INVITEs get 486, more start-call actions fail.
    public var maximumCalls: Int
    /// CallKit's grouping limits (Switchboard does not group calls: kept for the shape, always 1).
    public var maximumCallGroups: Int
    /// See `maximumCallGroups`.
    public var maximumCallsPerCallGroup: Int
    /// The handle types the app accepts.
    public var supportedHandleTypes: Set<Handle.HandleType>
    /// Always false: audio only.
    public var supportsVideo: Bool
    /// How long the delegate has to fulfil or fail an action before it times out.
    public var actionTimeout: Duration
    /// When `true`, the app calls `CallProvider.activateAudio(for:)` itself (as an iOS app does from
    /// CallKit's `didActivate`); otherwise the stack activates audio once media is ready. Until
    /// activation, outgoing audio is silence.
    public var usesManualAudioActivation: Bool
    /// Reliable provisional responses (RFC 3262): offered with `Supported: 100rel`.
    public var supportsReliableProvisionals: Bool
    /// The session interval asked for (RFC 4028), in seconds; `nil` turns session timers off.
    public var sessionInterval: UInt32?
    /// RFC 3261's T1 (the round-trip estimate). Tests use a short one.
    public var t1: Duration
    /// RFC 3261's T2.
    public var t2: Duration
    /// RFC 3261's T4.
    public var t4: Duration
    /// Largest SIP message accepted, in bytes.
    public var maximumMessageSize: Int
    /// Most TCP/TLS connections at once.
    public var maximumConnections: Int
    /// Most SIP transactions alive at once; beyond it new requests get 503 with Retry-After. Each call
    /// keeps two for 32 s after it ends (the INVITE's Accepted state, RFC 6026, and the BYE), so the default
    /// carries about 4,000 calls per second; each lingering transaction costs about 3 KB. An
    /// `expectedCallRate` that keeps more alive raises the limit to what it needs.
    public var maximumTransactions: Int
    /// The new calls per second the provider should be ready for (0, the default: no preparation). The
    /// transaction tables then make room up front for the transactions such a rate keeps alive (each call's
    /// two for 64*T1, a tenth more for those in progress, at most 4,194,304), so that the signalling loop
    /// never stops to grow them in the middle of the load (growing a table of a hundred thousand entries
    /// holds it for tens of ms), and `maximumTransactions` is raised to that many if it is lower: a declared
    /// rate is load the provider is meant to carry, not to shed. The room is reserved address space; memory
    /// is used as transactions fill it.
    public var expectedCallRate: Int
    /// Answer 480 to INVITEs the delegate leaves unanswered after this long (`nil`: wait for the caller).
    public var unansweredTimeout: Duration?
    /// An outgoing call that has no answer this long after its INVITE went out, or after its latest
    /// provisional response other than 100, is cancelled and ends `unanswered` (`nil`: let it ring as long as
    /// the far end does). 180 s by default, the least a proxy's Timer C may be, and restarted the same way (RFC
    /// 3261 §16.6; a UAS that rings long sends a provisional response a minute, §13.3.1.1): a far end that
    /// vanished then cannot keep the call ringing forever; if its CANCEL is not answered either, the INVITE
    /// is given up 64*T1 later (§9.1) and nothing of the call is left.
    public var outgoingAnswerTimeout: Duration?
    /// Each call's audio unless `CallProvider.setAudio(_:for:)` sets another: silence out, nothing kept.
    public var audio: CallAudio
    /// The local UDP ports RTP and RTCP use, in even/odd pairs.
    public var mediaPorts: ClosedRange<UInt16>
    /// The address media sockets bind to and SDP announces; `nil` uses the signalling address of the call
    /// (the kernel's source address for the route to the peer).
    public var mediaAddress: String?
    /// Media with no packet received for this long ends the call with BYE (`nil`: never). Asterisk does
    /// the same after 60 s by default.
    public var mediaTimeout: Duration?
    /// Whether calls carry RTP (`.rtp`, the default) or only negotiate it (`.signallingOnly`, load tests).
    public var mediaMode: MediaMode
    /// STUN servers calls learn their server-reflexive candidates from (RFC 8445 §5.1.1.2); none by default.
    /// With one, and no `icePolicy`, calls use ICE.
    public var stunServers: [STUNServer]
    /// TURN servers calls allocate relayed candidates on (RFC 8656), one allocation per component and server;
    /// none by default. With one, and no `icePolicy`, calls use ICE. Their passwords are never logged.
    public var turnServers: [TURNServer]
    /// Whether calls use ICE (RFC 8445, SDP per RFC 8839); `nil` (the default) means `.off` without STUN or
    /// TURN servers and `.on` with one. An `Account`'s own policy and servers win for its calls.
    public var icePolicy: ICEPolicy?
    /// How long a call gathers candidates before its offer or answer goes out (there is no Trickle ICE): then
    /// the candidates found so far are used. 3 s by default: a STUN request is sent at 0, 0.5 and 1.5 s, and a
    /// TURN allocation takes two round trips (RFC 8489 §6.2.1, RFC 8656 §7), so on a lossy path 3 s finds what
    /// 2 s would miss; gathering ends sooner when every request is answered.
    public var iceGatheringTimeout: Duration
    /// How long a call waits, after its answer, for ICE to select a pair before it fails (`.failed`, "ICE
    /// failed"); 10 s by default.
    public var iceConnectivityTimeout: Duration
    /// How offers key SRTP when `srtp` asks for it: `.sdes` (`a=crypto`, the default) or `.dtls` (DTLS-SRTP,
    /// RFC 5763: `a=fingerprint`, `a=setup`, `a=tls-id`). Answers take whichever keying an offer uses.
    public var srtpKeying: SRTPKeying
    /// The SRTP suites calls offer and accept, in preference order, whichever the keying: the `a=crypto` lines
    /// of SDES (RFC 4568) and the `use_srtp` profiles of DTLS-SRTP (RFC 5764 §4.1.2, RFC 7714 §14.2), where
    /// the DTLS server picks its first that the client offers. `nil` (the default) keeps each keying's order:
    /// AES-CM-80 then AES-CM-32 for SDES, AES-GCM-128 then the AES-CM suites for DTLS, as browsers offer. An
    /// empty list is a configuration error.
    public var srtpSuites: [SRTPSuite]?
    /// Whether offers use the WebRTC profile (RFC 8829 §5.2.1): `UDP/TLS/RTP/SAVPF` keyed by DTLS, with
    /// rtcp-mux, rtcp-rsize, `a=mid` in a BUNDLE group and the MID header extension; false by default. It
    /// implies SRTP (`srtp` `.off` counts as `.optional`, so plain offers are still answered).
    public var usesWebRTCProfile: Bool
    /// The certificate (PEM) this provider presents in DTLS-SRTP handshakes, with `dtlsPrivateKeyFile`;
    /// `nil` (the default) generates an ECDSA P-256 self-signed one when the provider starts (peers check it
    /// against our `a=fingerprint`, not against a CA).
    public var dtlsCertificateFile: String?
    /// The private key (PEM) of `dtlsCertificateFile`.
    public var dtlsPrivateKeyFile: String?
    /// How long a call's DTLS-SRTP handshake may take, from the negotiation (or ICE's selected pair) until
    /// the keys are checked, before the call ends (`CallEndedReason.mediaSecurityFailed`); 10 s by default.
    public var dtlsHandshakeTimeout: Duration
    /// Whether our SDP names a certificate other than the one we present (each fingerprint byte inverted);
    /// tests set it to play a peer whose SDP was changed on its way (RFC 5763 §5's attack).
    var advertisesForeignDTLSFingerprint = false
    /// Whether offers carry `a=rtcp-mux` and answers accept it (RFC 5761); tests turn it off to play a peer
    /// that declines it.
    var offersRTCPMux = true
    /// How long a call reported from a push (`CallProvider.reportPushPayload(_:)`) waits for its INVITE;
    /// then it ends with `CallEndedReason.failed`, as CallKit requires of a call that cannot connect.
    public var pushInviteTimeout: Duration
    /// How many calls reported from pushes may wait for their INVITE at once; past it the oldest fails.
    public var maximumPendingPushedCalls: Int

    /// The defaults: no account, UDP and TCP on free ports, Opus then G.711, SRTP off.
    public init(
        localizedName: String = "Switchboard", accounts: [Account] = [], listeners: [Listener] = [],
        tls: TLS = TLS(), codecs: [Codec] = [.opus, .pcmu, .pcma], srtp: SRTPPolicy = .off,
        maximumCalls: Int = 1_000
    ) {
        self.localizedName = localizedName
        self.accounts = accounts
        self.listeners = listeners
        self.tls = tls
        self.codecs = codecs
        self.srtp = srtp
        self.maximumCalls = maximumCalls
        self.maximumCallGroups = 1
        self.maximumCallsPerCallGroup = 1
        self.supportedHandleTypes = [.generic, .phoneNumber]
        self.supportsVideo = false
        self.actionTimeout = .seconds(10)
        self.usesManualAudioActivation = false
        self.supportsReliableProvisionals = true
        self.sessionInterval = 1800
        self.t1 = .milliseconds(500)
        self.t2 = .seconds(4)
        self.t4 = .seconds(5)
        self.maximumMessageSize = 65_535
        self.maximumConnections = 1_024
        self.maximumTransactions = 262_144
        self.expectedCallRate = 0
        self.unansweredTimeout = nil
        self.outgoingAnswerTimeout = .seconds(180)
        self.audio = CallAudio()
        self.mediaPorts = 40_000...49_999
        self.mediaAddress = nil
        self.mediaTimeout = nil
        self.mediaMode = .rtp
        self.stunServers = []
        self.turnServers = []
        self.icePolicy = nil
        self.iceGatheringTimeout = .seconds(3)
        self.iceConnectivityTimeout = .seconds(10)
        self.pushInviteTimeout = .seconds(20)
        self.maximumPendingPushedCalls = 16
        self.srtpKeying = .sdes
        self.srtpSuites = nil
        self.usesWebRTCProfile = false
        self.dtlsCertificateFile = nil
        self.dtlsPrivateKeyFile = nil
        self.dtlsHandshakeTimeout = .seconds(10)
    }
}

extension CallProviderConfiguration {
    /// The transactions `expectedCallRate` keeps alive at once: two per call for 64*T1 each, plus a tenth
    /// for those in progress; at most 4,194,304.
    var expectedTransactions: Int {
        guard expectedCallRate > 0 else { return 0 }
        let (seconds, attoseconds) = t1.components
        let t1Milliseconds = Swift.min(Swift.max(0, seconds), 60) * 1_000 + attoseconds / 1_000_000_000_000_000
        let rate = Int64(Swift.min(expectedCallRate, 1_000_000))
        // Two per call for 64*T1, a tenth more (rounded up): at most 1e6 × 128 × 60,000 × 11, within Int64.
        let alive = (rate * 128 * t1Milliseconds * 11 + 9_999) / 10_000
        return Int(Swift.min(alive, 1 << 22))
    }

    /// The transaction layer's limit: `maximumTransactions`, or what `expectedCallRate` keeps alive if more.
    var transactionLimit: Int { Swift.max(1, maximumTransactions, expectedTransactions) }
}
