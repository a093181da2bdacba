public import Foundation
import SIPTransport

/// A SIP identity: its address of record, its credentials and, when it registers, its registrar.
public struct Account: Sendable, Identifiable, CustomStringConvertible {
    /// How the account authenticates (RFC 3261 §22 digest).
    public enum Credentials: Sendable {
        /// No credentials: challenges fail.
        case none
        /// A fixed password.
        case password(String)
        /// Asked for each challenge with the realm; returns the current password or token (rotating
        /// tokens), or `nil` to fail the challenge. Called off the signalling loop's hot path, once per
        /// challenge.
        case provider(@Sendable (_ realm: String) -> String?)
    }

    /// Names the account in actions and events; the address of record unless set.
    public var id: String
    /// The address of record (`sip:alice@example.com`).
    public var addressOfRecord: String
    /// The display name put in From.
    public var displayName: String?
    /// The digest user name; the AOR's user part when `nil`.
    public var authenticationUser: String?
    /// How the account authenticates.
    public var credentials: Credentials
    /// The registrar (`sip:example.com`); `nil` for an account that does not register.
    public var registrar: String?
    /// An outbound proxy every request goes through (`sip:proxy.example.com;lr`).
    public var outboundProxy: String?
    /// The transport for the registrar and calls; `nil` lets the URI and RFC 3263 decide (or, with a
    /// `webSocketURL`, its scheme: WS or WSS).
    public var transport: SIPTransportKind?
    /// A WebSocket server to reach the account's registrar and every request through (RFC 7118):
    /// `ws://HOST:PORT/PATH` or `wss://...`. REGISTERs, calls, subscriptions and messages go over one
    /// connection to it, the upgrade asking for PATH; the Request-URIs are unchanged (`transport=ws`), and
    /// the Contact names an `.invalid` host when this side has no WebSocket listener (§8), so the server
    /// routes requests back over the connection. It takes `outboundProxy`'s place (that is not used then);
    /// a lost connection is re-opened and the account re-registers over the new one. `nil` connects as the
    /// registrar's and targets' URIs say.
    public var webSocketURL: String?
    /// Push parameters for the registration Contact (RFC 8599), so a push proxy can wake this device while
    /// it is suspended; `nil`: none. Change the token with `CallProvider.updatePushToken(_:for:)`.
    public var push: PushRegistration?
    /// The registration lifetime asked for, in seconds.
    public var expires: UInt32
    /// Whether the provider registers the account when it starts.
    public var registersOnStart: Bool
    /// Keep-alive interval on TCP, TLS, WS and WSS registration flows (RFC 5626 §4.4.1: CRLFCRLF; a WebSocket
    /// Ping over WS and WSS, RFC 7118 §6); a registrar's shorter `Flow-Timer` wins.
    public var keepAliveInterval: Duration
    /// The `+sip.instance` of the account's registrations over TCP, TLS, WS and WSS (RFC 5626 §4.1): a URN, usually
    /// `urn:uuid:` and a UUID that stays the same for the device across restarts (store it). `nil`: the
    /// provider makes a version 4 UUID URN for the account, kept for the provider's life. With it the
    /// REGISTER asks for outbound (`reg-id=1`, `;ob`, `Supported: outbound`): a registrar that confirms it
    /// (`Require: outbound` in the 200) routes calls over the registration's connection, and a broken
    /// connection is replaced at once (§4.5). Registrars without outbound ignore the parameters.
    public var instanceID: String?
    /// Codecs for this account's calls; the provider's when `nil`.
    public var codecs: [Codec]?
    /// SRTP policy for this account's calls; the provider's when `nil`.
    public var srtp: SRTPPolicy?
    /// STUN servers for this account's calls; the provider's when `nil`.
    public var stunServers: [STUNServer]?
    /// TURN servers for this account's calls; the provider's when `nil`. Their passwords never show in
    /// `description`.
    public var turnServers: [TURNServer]?
    /// ICE for this account's calls; when `nil`, the provider's policy, or `.on` when the account (or the
    /// provider) has a STUN or TURN server and no policy says otherwise.
    public var icePolicy: ICEPolicy?
    /// Whether the provider subscribes to the account's message-waiting state (solicited MWI: RFC 6665
    /// SUBSCRIBE with `Event: message-summary`, RFC 3842), as pjsua's `mwi_enabled` and baresip's mwi module
    /// do. The subscription starts once the account is registered (at start for an account without a
    /// registrar), answers digest challenges with the account's credentials, is refreshed before it
    /// expires, is tried again after failures (408, 5xx, transport errors, a notifier's `deactivated`,
    /// `timeout`, `probation` or `giveup`) with a back-off from 10*T1 doubling up to 600*T1 (5 s to 5 min with
    /// the default T1), stops for good on refusals (403, 404, 489, ...), and is ended (`Expires: 0`) by
    /// `unregister(account:)` and `invalidate()`. Every NOTIFY's summary reaches the delegate's
    /// `provider(_:account:didReceive:)`, like unsolicited ones. Off by default.
    public var subscribesToMessageSummary: Bool
    /// The URI subscribed to for message summaries (the Request-URI and To of the SUBSCRIBE); the address of
    /// record when `nil` (RFC 3842 §4: a user subscribes to their own AOR). SUBSCRIBEs go through the
    /// outbound proxy when there is one.
    public var messageSummaryURI: String?
    /// The subscription lifetime asked for, in seconds (RFC 6665 §4.1.2.1; 3600 by default).
    public var messageSummaryExpires: UInt32

    /// - Parameters:
    ///   - addressOfRecord: the AOR (`sip:alice@example.com`).
    ///   - id: the account's name; the AOR when `nil`.
    ///   - credentials: how it authenticates.
    ///   - registrar: the registrar's URI, or `nil` not to register.
    ///   - subscribesToMessageSummary: whether to subscribe to message-waiting state (RFC 3842).
    ///   - messageSummaryURI: the URI subscribed to; the AOR when `nil`.
    ///   - messageSummaryExpires: the subscription lifetime asked for, in seconds.
    ///   - webSocketURL: a `ws://` or `wss://` URL every request goes through (RFC 7118).
    ///   - push: push parameters for the registration Contact (RFC 8599).
    ///   - instanceID: the `+sip.instance` URN of the account's registrations (RFC 5626); made when `nil`.
    public init(
        addressOfRecord: String, id: String? = nil, displayName: String? = nil, authenticationUser: String? = nil,
        credentials: Credentials = .none, registrar: String? = nil, outboundProxy: String? = nil,
        transport: SIPTransportKind? = nil, expires: UInt32 = 600, registersOnStart: Bool = true,
        keepAliveInterval: Duration = .seconds(30), codecs: [Codec]? = nil, srtp: SRTPPolicy? = nil,
        subscribesToMessageSummary: Bool = false, messageSummaryURI: String? = nil,
        messageSummaryExpires: UInt32 = 3600, webSocketURL: String? = nil, push: PushRegistration? = nil,
        instanceID: String? = nil
    ) {
        self.id = id ?? addressOfRecord
        self.addressOfRecord = addressOfRecord
        self.displayName = displayName
        self.authenticationUser = authenticationUser
        self.credentials = credentials
        self.registrar = registrar
        self.outboundProxy = outboundProxy
        self.transport = transport
        self.expires = expires
        self.registersOnStart = registersOnStart
        self.keepAliveInterval = keepAliveInterval
        self.codecs = codecs
        self.srtp = srtp
        self.subscribesToMessageSummary = subscribesToMessageSummary
        self.messageSummaryURI = messageSummaryURI
        self.messageSummaryExpires = messageSummaryExpires
        self.webSocketURL = webSocketURL
        self.push = push
        self.instanceID = instanceID
    }

    /// Never shows the password.
    public var description: String {
        "account \(id) \(addressOfRecord)\(registrar.map { " via \($0)" } ?? "")"
    }
}

/// The transports SIP runs over.
///
/// A struct over a code rather than an enum, so a new transport is not a breaking change: a `switch` over
/// a kind needs a `default:`.
public struct SIPTransportKind: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The transports this version knows; internal so the library's own switches stay exhaustive.
    enum Code: String, CaseIterable {
        case udp, tcp, tls, ws, wss
    }

    /// The transport's code.
    let code: Code

    /// Wraps a known code.
    init(code: Code) { self.code = code }

    /// The lower-case name: `udp`, `tcp`, `tls`, `ws` or `wss`.
    public var rawValue: String { code.rawValue }

    /// The transport named `rawValue` (lower case), or `nil` for a name this version does not know.
    public init?(rawValue: String) {
        guard let code = Code(rawValue: rawValue) else { return nil }
        self.init(code: code)
    }

    /// UDP (RFC 768).
    public static let udp = SIPTransportKind(code: .udp)
    /// TCP (RFC 793).
    public static let tcp = SIPTransportKind(code: .tcp)
    /// TLS over TCP (RFC 5246, RFC 8446).
    public static let tls = SIPTransportKind(code: .tls)
    /// SIP over WebSocket (RFC 7118, RFC 6455): Via `SIP/2.0/WS`, URIs with `transport=ws`.
    public static let ws = SIPTransportKind(code: .ws)
    /// SIP over secure WebSocket (RFC 7118): Via `SIP/2.0/WSS`, `sips:` URIs with `transport=ws` (§5.2).
    public static let wss = SIPTransportKind(code: .wss)

    /// The port a server listens on for this transport when a URI names none: 5060, 5061 for TLS
    /// (RFC 3261 §19.1.2), 80 for WS and 443 for WSS (RFC 6455 §3).
    public var defaultPort: UInt16 { transportProtocol.defaultPort }

    /// Every transport this version knows, in the order `udp`, `tcp`, `tls`, `ws`, `wss`.
    public static var allCases: [SIPTransportKind] { Code.allCases.map(SIPTransportKind.init(code:)) }

    /// The raw value, as the enum this type replaced printed.
    public var description: String { rawValue }
}

/// The audio codecs Switchboard negotiates.
///
/// A struct over a code rather than an enum, so a new codec is not a breaking change: a `switch` over a
/// codec needs a `default:`.
public struct Codec: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The codecs this version knows; internal so the library's own switches stay exhaustive.
    enum Code: String, CaseIterable {
        case opus, pcmu, pcma
    }

    /// The codec's code.
    let code: Code

    /// Wraps a known code.
    init(code: Code) { self.code = code }

    /// The lower-case name: `opus`, `pcmu` or `pcma`.
    public var rawValue: String { code.rawValue }

    /// The codec named `rawValue` (lower case), or `nil` for a name this version does not know.
    public init?(rawValue: String) {
        guard let code = Code(rawValue: rawValue) else { return nil }
        self.init(code: code)
    }

    /// Opus (RFC 7587), 48 kHz, mono encoding.
    public static let opus = Codec(code: .opus)
    /// G.711 mu-law.
    public static let pcmu = Codec(code: .pcmu)
    /// G.711 A-law.
    public static let pcma = Codec(code: .pcma)

    /// Every codec this version knows, in the order `opus`, `pcmu`, `pcma`.
    public static var allCases: [Codec] { Code.allCases.map(Codec.init(code:)) }

    /// The raw value, as the enum this type replaced printed.
    public var description: String { rawValue }
}

/// Whether calls use SRTP (RFC 4568 SDES keys).
///
/// A struct over a code rather than an enum, so a new policy (DTLS-SRTP, say) is not a breaking change: a
/// `switch` over a policy needs a `default:`.
public struct SRTPPolicy: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The policies this version knows; internal so the library's own switches stay exhaustive.
    enum Code: String, CaseIterable {
        case off, optional, mandatory
    }

    /// The policy's code.
    let code: Code

    /// Wraps a known code.
    init(code: Code) { self.code = code }

    /// The lower-case name: `off`, `optional` or `mandatory`.
    public var rawValue: String { code.rawValue }

    /// The policy named `rawValue` (lower case), or `nil` for a name this version does not know.
    public init?(rawValue: String) {
        guard let code = Code(rawValue: rawValue) else { return nil }
        self.init(code: code)
    }

    /// Plain RTP only.
    public static let off = SRTPPolicy(code: .off)
    /// Offer RTP/AVP with a=crypto; use SRTP when the other side answers with a key.
    public static let optional = SRTPPolicy(code: .optional)
    /// RTP/SAVP only; calls without SRTP fail (488).
    public static let mandatory = SRTPPolicy(code: .mandatory)

    /// Every policy this version knows, in the order `off`, `optional`, `mandatory`.
    public static var allCases: [SRTPPolicy] { Code.allCases.map(SRTPPolicy.init(code:)) }

    /// The raw value, as the enum this type replaced printed.
    public var description: String { rawValue }
}

/// Where an account's registration stands.
public enum RegistrationState: Sendable, Hashable, CustomStringConvertible {
    /// Not registered and not trying.
    case unregistered
    /// A REGISTER is on its way.
    case registering
    /// Bound until `expires`, with this contact.
    case registered(expires: Date, contact: String)
    /// The registrar or the network refused; `willRetry` when a retry is scheduled.
    case failed(RegistrationFailure, willRetry: Bool)

    public var description: String {
        switch self {
        case .unregistered: "unregistered"
        case .registering: "registering"
        case .registered(let expires, let contact): "registered until \(expires) as \(contact)"
        case .failed(let failure, let retry): "failed: \(failure)\(retry ? " (retrying)" : "")"
        }
    }
}

/// Why a registration failed: the session errors the voice SDKs report.
public struct RegistrationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    ///
    /// A struct over a code rather than an enum, so a new kind is not a breaking change: a `switch` over a
    /// kind needs a `default:`.
    public struct Kind: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The kinds this version knows; internal so the library's own switches stay exhaustive.
        enum Code: String, CaseIterable {
            case authenticationFailed, rejected, registrarUnreachable, transportClosed, keepAliveTimeout
            case protocolError, serverError
        }

        /// The kind's code.
        let code: Code

        /// Wraps a known code.
        init(code: Code) { self.code = code }

        /// The kind's name, spelt as its static member (`authenticationFailed`).
        public var rawValue: String { code.rawValue }

        /// The kind named `rawValue`, or `nil` for a name this version does not know.
        public init?(rawValue: String) {
            guard let code = Code(rawValue: rawValue) else { return nil }
            self.init(code: code)
        }

        /// The credentials were refused (or missing).
        public static let authenticationFailed = Kind(code: .authenticationFailed)
        /// The registrar said no (403, 404, ...).
        public static let rejected = Kind(code: .rejected)
        /// No answer in time.
        public static let registrarUnreachable = Kind(code: .registrarUnreachable)
        /// The connection broke or could not be made.
        public static let transportClosed = Kind(code: .transportClosed)
        /// The keep-alive pong did not return: the flow is dead.
        public static let keepAliveTimeout = Kind(code: .keepAliveTimeout)
        /// The registrar's answers made no sense.
        public static let protocolError = Kind(code: .protocolError)
        /// A 5xx or 6xx.
        public static let serverError = Kind(code: .serverError)

        /// Every kind this version knows, in declaration order.
        public static var allCases: [Kind] { Code.allCases.map(Kind.init(code:)) }

        /// The raw value (`authenticationFailed`).
        public var description: String { rawValue }
    }

    /// The kind of failure.
    public var kind: Kind
    /// The SIP status, when a response said it.
    public var statusCode: Int?
    /// The reason phrase or a description.
    public var reason: String
    /// For `transportClosed`: why the connection failed, typed (a TLS or WSS certificate failure names
    /// itself, and `reason` says the same in words). `nil` otherwise.
    public var transportFailure: TransportFailure?

    public var description: String {
        if let statusCode { return "\(kind.rawValue) (\(statusCode) \(reason))" }
        return "\(kind.rawValue): \(reason)"
    }
}
