/// A TURN user's long-term credentials (RFC 8656 §5, RFC 8489 §9.2).
///
/// The password never appears in ``description``, ``debugDescription`` or a mirror (`dump`, string
/// interpolation of a containing value): they print `<redacted>`.
public struct TURNCredentials: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The username (USERNAME).
    public var username: String
    /// The password, turned into the long-term key with the server's REALM.
    public var password: String

    /// - Parameters:
    ///   - username: the username.
    ///   - password: the password.
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// `TURNCredentials(username: alice, password: <redacted>)`.
    public var description: String { "TURNCredentials(username: \(username), password: <redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["username": username, "password": "<redacted>"]) }
}

/// How a ``TURNClient`` talks to its server and how long it keeps what it asked for (RFC 8656).
public struct TURNClientConfiguration: Hashable, Sendable, CustomStringConvertible {
    /// The credentials.
    public var credentials: TURNCredentials
    /// Whether the client reaches the server over TCP or TLS: one send per request and Ti, and padded
    /// ChannelData (the relay to the peers is still UDP).
    public var isReliable: Bool
    /// RTO, Rc, Rm and Ti of every request.
    public var timers: STUNTransactionTimers
    /// The LIFETIME asked for in Allocate and Refresh, in seconds; `nil` leaves it to the server (600 s).
    public var requestedLifetime: UInt32?
    /// SOFTWARE for every request; none by default.
    public var software: String?
    /// How long before an allocation, a permission or a channel binding expires the client refreshes it; it
    /// never refreshes earlier than half the lifetime (60 s by default: refreshes at 540 s of a 600-s
    /// allocation, 240 s of a permission and 540 s of a channel).
    public var refreshMargin: Duration
    /// How many times a request is sent again with a fresh nonce after 438 Stale Nonce (§7.4, 3 by default).
    public var maximumStaleNonceRetries: Int
    /// The most peer IP addresses with a permission (64 by default).
    public var maximumPermissions: Int
    /// The most channels (64 by default; the protocol allows 4,096).
    public var maximumChannels: Int
    /// Bounds on what the client decodes from the server.
    public var decodingLimits: STUNDecodingLimits

    /// - Parameters:
    ///   - credentials: the credentials.
    ///   - isReliable: whether the transport to the server is TCP or TLS.
    ///   - timers: the retransmission parameters.
    ///   - requestedLifetime: the LIFETIME to ask for, in seconds.
    ///   - software: SOFTWARE for every request.
    ///   - refreshMargin: how long before expiry to refresh.
    ///   - maximumStaleNonceRetries: retries after 438 per request.
    ///   - maximumPermissions: the most peer addresses with a permission.
    ///   - maximumChannels: the most channels.
    ///   - decodingLimits: bounds on decoding; 64 KiB messages over streams, 1,280 bytes over UDP by default.
    public init(
        credentials: TURNCredentials, isReliable: Bool = false, timers: STUNTransactionTimers = STUNTransactionTimers(),
        requestedLifetime: UInt32? = nil, software: String? = nil, refreshMargin: Duration = .seconds(60),
        maximumStaleNonceRetries: Int = 3, maximumPermissions: Int = 64, maximumChannels: Int = 64,
        decodingLimits: STUNDecodingLimits? = nil
    ) {
        self.credentials = credentials
        self.isReliable = isReliable
        self.timers = timers
        self.requestedLifetime = requestedLifetime
        self.software = software
        self.refreshMargin = refreshMargin
        self.maximumStaleNonceRetries = maximumStaleNonceRetries
        self.maximumPermissions = maximumPermissions
        self.maximumChannels = maximumChannels
        self.decodingLimits =
            decodingLimits ?? STUNDecodingLimits(maximumMessageSize: isReliable ? 65_556 : 1280)
    }

    public var description: String {
        "TURNClientConfiguration(\(credentials), \(isReliable ? "stream" : "UDP"))"
    }
}

/// What a ``TURNClient`` asks its driver to do, in order.
public enum TURNClientAction: Hashable, Sendable {
    /// Send these bytes to the server: one datagram over UDP, or bytes to write to the stream.
    case send([UInt8])
    /// Arm (or re-arm) the client's one timer for this instant; call ``TURNClient/timerFired(at:)`` then.
    case armTimer(at: STUNInstant)
    /// Something the client's user wants to know.
    case event(TURNClientEvent)
}

/// What happened to an allocation (RFC 8656).
public enum TURNClientEvent: Hashable, Sendable {
    /// The server allocated `relayed` (XOR-RELAYED-ADDRESS); `mapped` is the client's reflexive address
    /// (XOR-MAPPED-ADDRESS) and `lifetime` the allocation's (§7.3).
    case allocated(relayed: STUNTransportAddress, mapped: STUNTransportAddress?, lifetime: Duration)
    /// A Refresh succeeded; the allocation now lives this long (§8).
    case refreshed(lifetime: Duration)
    /// The server installed a permission for this peer address (§10); sent once, not on each refresh.
    case permissionReady(STUNIPAddress)
    /// The permission could not be installed or refreshed; it is gone.
    case permissionFailed(STUNIPAddress, TURNFailure)
    /// The channel is bound to the peer (§12); data to the peer now goes as ChannelData. Sent once.
    case channelReady(peer: STUNTransportAddress, channel: TURNChannelNumber)
    /// The channel could not be bound or refreshed; data to the peer goes as Send indications again.
    case channelFailed(peer: STUNTransportAddress, TURNFailure)
    /// Application data from a peer, from a Data indication or ChannelData (§11.6, §12.6).
    case data(peer: STUNTransportAddress, payload: [UInt8])
    /// The allocation failed or was lost; the client does nothing more.
    case failed(TURNFailure)
    /// The allocation was deleted (or never made) after ``TURNClient/close(at:)``.
    case closed
}

/// Why a TURN request, or the whole allocation, failed (RFC 8656 §7.4, §8, §10, §12).
///
/// The codes grow over time, so match with `==` against the static members of ``Code``; a server's refusal
/// keeps its ERROR-CODE in ``errorCode`` (e.g. 437, 441, 486, 508).
public struct TURNFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let raw: UInt8
        let name: String

        public var description: String { name }

        /// The server answered with an error response; see ``TURNFailure/errorCode``.
        public static let errorResponse = Code(raw: 1, name: "error response")
        /// No response came in time (Rc sends and Rm × RTO over UDP, Ti over streams).
        public static let timeout = Code(raw: 2, name: "timeout")
        /// A response the client cannot use: unknown comprehension-required attributes, no ERROR-CODE, or a
        /// success without XOR-RELAYED-ADDRESS.
        public static let unusableResponse = Code(raw: 3, name: "unusable response")
        /// 401 to a request that already carried credentials, or a 401 without REALM and NONCE.
        public static let authenticationFailed = Code(raw: 4, name: "authentication failed")
        /// 438 Stale Nonce more times than ``TURNClientConfiguration/maximumStaleNonceRetries``.
        public static let staleNonceRetriesExhausted = Code(raw: 5, name: "stale nonce retries exhausted")
        /// 300 Try Alternate: the server names another in ``TURNFailure/alternateServer``; this client does not
        /// follow it itself (its driver owns the socket), so it starts a new client there.
        public static let tryAlternate = Code(raw: 6, name: "try alternate server")
        /// More permissions or channels than the configuration allows, or channel numbers exhausted.
        public static let limitReached = Code(raw: 7, name: "limit reached")
        /// The stream to the server carried bytes that are neither STUN nor ChannelData.
        public static let streamFraming = Code(raw: 8, name: "stream framing")
        /// OpenSSL could not compute the long-term key.
        public static let keyUnavailable = Code(raw: 9, name: "long-term key unavailable")
        /// The TCP or TLS connection to the server closed or never came up (reported by the driver).
        public static let transportLost = Code(raw: 10, name: "transport lost")

        public static func == (a: Code, b: Code) -> Bool { a.raw == b.raw }
        public func hash(into hasher: inout Hasher) { hasher.combine(raw) }
    }

    /// What kind of failure.
    public let code: Code
    /// The request's method.
    public let method: STUNMethod
    /// The server's ERROR-CODE, for error responses.
    public let errorCode: STUNErrorCode?
    /// The server's reason phrase, or detail fit for a log line.
    public let reason: String
    /// ALTERNATE-SERVER of a 300 response.
    public let alternateServer: STUNTransportAddress?

    init(
        _ code: Code, method: STUNMethod, errorCode: STUNErrorCode? = nil, reason: String = "",
        alternateServer: STUNTransportAddress? = nil
    ) {
        self.code = code
        self.method = method
        self.errorCode = errorCode
        self.reason = reason
        self.alternateServer = alternateServer
    }

    /// The failure a driver reports when the connection to the server is lost: the allocation is gone with it.
    /// - Parameter detail: what happened, fit for a log line.
    public static func transportLost(_ detail: String) -> TURNFailure {
        TURNFailure(.transportLost, method: .allocate, reason: detail)
    }

    /// `Allocate: error response 486 Allocation Quota Reached`.
    public var description: String {
        var text = "\(method): \(code.name)"
        if let errorCode { text += " \(errorCode)" }
        if !reason.isEmpty { text += " \(reason)" }
        if let alternateServer { text += " (\(alternateServer))" }
        return text
    }
}
