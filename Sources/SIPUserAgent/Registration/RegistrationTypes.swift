public import SIPMessage

/// Settings of one registration (RFC 3261 §10; RFC 5626 for outbound).
public struct RegistrationConfiguration: Sendable {
    /// The address of record: To and From of every REGISTER.
    public var addressOfRecord: SIPURI
    /// The Request-URI: the registrar's domain.
    public var registrar: SIPURI
    /// The contact to bind (host and port the transport reports; the driver fills them in).
    public var contact: SIPURI
    /// The requested binding lifetime in seconds.
    public var expires: UInt32
    /// `+sip.instance` (a URN, usually `urn:uuid:...`) and `reg-id` when outbound (RFC 5626) is on.
    public var instanceID: String?
    /// With `instanceID`, the registration asks for outbound (RFC 5626 §4.2): `reg-id` and the `ob` URI
    /// parameter on the Contact, `Supported: outbound`. The driver keeps the flow: CRLF or WebSocket pings
    /// over connections, STUN Binding requests over UDP (§4.4.2).
    public var regID: Int?
    /// RFC 5626 §4.5 flow recovery, once the registrar confirmed outbound: a broken flow is replaced at once;
    /// a replacement that fails waits a random 50-100% of min(`outboundMaximumTime`, `outboundBaseTime` *
    /// 2^failures) before the next. 30 s and 1800 s, the RFC's defaults for a UA with one flow.
    public var outboundBaseTime: Duration = .seconds(30)
    public var outboundMaximumTime: Duration = .seconds(1800)
    /// Back-off after timeouts and transport errors: first wait, doubling up to `maximumRetryDelay`.
    public var initialRetryDelay: Duration
    public var maximumRetryDelay: Duration
    /// Re-register with the address the registrar saw (`received`/`rport`) when it differs from ours.
    public var followsNAT: Bool
    /// Whether the contact names the registration's own TCP/TLS connection (a client with no listener of
    /// that transport): behind a NAT, `received` and `rport` then name that connection as the registrar sees
    /// it, and the contact follows both (with a listener, only a different host counts).
    public var contactNamesFlow = false
    /// The User-Agent header, if any.
    public var userAgent: String?

    public init(
        addressOfRecord: SIPURI, registrar: SIPURI, contact: SIPURI, expires: UInt32 = 3600,
        instanceID: String? = nil, regID: Int? = nil, initialRetryDelay: Duration = .seconds(2),
        maximumRetryDelay: Duration = .seconds(300), followsNAT: Bool = true, userAgent: String? = nil
    ) {
        self.addressOfRecord = addressOfRecord
        self.registrar = registrar
        self.contact = contact
        self.expires = expires
        self.instanceID = instanceID
        self.regID = regID
        self.initialRetryDelay = initialRetryDelay
        self.maximumRetryDelay = maximumRetryDelay
        self.followsNAT = followsNAT
        self.userAgent = userAgent
    }
}

/// Where a registration stands.
public enum RegistrationState: Sendable, Hashable, CustomStringConvertible {
    case idle
    /// A REGISTER is on its way (first, refresh or retry).
    case registering
    /// Bound; `expires` seconds granted, counted from the 200. `contacts` are all bindings the 200 listed.
    case registered(expires: UInt32, contact: SIPURI, contacts: [Contact])
    /// The registrar or the network said no; `willRetry` tells whether a retry is scheduled.
    case failed(RegistrationError, willRetry: Bool)
    /// Removing the binding (Expires: 0).
    case unregistering
    /// The binding is removed (or never made and stopped).
    case unregistered

    public var description: String {
        switch self {
        case .idle: "idle"
        case .registering: "registering"
        case .registered(let expires, let contact, _): "registered expires=\(expires) contact=\(contact)"
        case .failed(let error, let retry): "failed \(error)\(retry ? " (retrying)" : "")"
        case .unregistering: "unregistering"
        case .unregistered: "unregistered"
        }
    }
}

/// Why a registration failed; carries the final response when there is one.
public struct RegistrationError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        let raw: UInt8
        public let description: String
        public static func == (a: Code, b: Code) -> Bool { a.raw == b.raw }
        public func hash(into hasher: inout Hasher) { hasher.combine(raw) }

        /// 401/407 that could not be answered, or answered and refused again.
        public static let authenticationFailed = Code(raw: 1, description: "authentication failed")
        /// 403, 404 and other final refusals: no retry.
        public static let rejected = Code(raw: 2, description: "rejected by the registrar")
        /// No response within 64*T1.
        public static let registrarUnreachable = Code(raw: 3, description: "registrar unreachable")
        /// The connection broke or could not be made.
        public static let transportFailed = Code(raw: 4, description: "transport failed")
        /// The keep-alive pong did not come back: the flow is dead.
        public static let keepAliveTimeout = Code(raw: 5, description: "keep-alive timeout")
        /// The registrar kept asking for a longer interval, or sent an unusable answer.
        public static let protocolError = Code(raw: 6, description: "protocol error")
        /// 5xx/6xx (other than 503 with Retry-After, which is retried).
        public static let serverError = Code(raw: 7, description: "server error")
    }

    public let code: Code
    /// The SIP status, when a response caused this.
    public let status: Int?
    /// The reason phrase or a description of the failure.
    public let reason: String

    public init(_ code: Code, status: Int? = nil, reason: String) {
        self.code = code
        self.status = status
        self.reason = reason
    }

    public var description: String {
        if let status { return "\(code) (\(status) \(reason))" }
        return "\(code): \(reason)"
    }
}
