import STUN

/// A small TURN server for the tests, on the same codec: it challenges unauthenticated requests with 401,
/// answers 438 when told to, and grants Allocate, Refresh, CreatePermission and ChannelBind, recording every
/// message it receives. Not a relay: the tests play the peers by building Data indications and ChannelData.
struct ScriptedTURNServer {
    static let username = "alice"
    static let password = "s3cret-Pa55"
    static let realm = "turn.example.test"
    static let relayed = STUNTransportAddress(address: .v4(0xC000_020F), port: 50_000)
    static let mapped = STUNTransportAddress(address: .v4(0xC000_0201), port: 32_853)

    let md5Key = STUNKey.longTerm(username: username, realm: realm, password: password)
    let sha256Key = STUNKey.longTerm(username: username, realm: realm, password: password, algorithm: .sha256)
    /// Offer PASSWORD-ALGORITHMS (SHA-256, then MD5) in 401s, as an RFC 8489 server does.
    var offersPasswordAlgorithms = false
    /// The key of the request being answered.
    var key: STUNKey?
    var nonce = "nonce-1"
    var lifetime: UInt32 = 600
    /// Answer the next authenticated request with 438 and a new nonce, this many times.
    var staleNonces = 0
    /// Refuse Allocate with this code (after authentication).
    var allocateError: STUNErrorCode?
    /// Refuse Refresh (with a non-zero lifetime) with this code.
    var refreshError: STUNErrorCode?
    /// Whether the server answers at all (false: every request is lost).
    var isAnswering = true
    /// Requests and indications received, in order.
    var messages: [STUNMessage] = []
    /// ChannelData received, in order.
    var channelData: [TURNChannelData] = []

    var requests: [STUNMessage] { messages.filter { $0.messageClass == .request } }

    /// One datagram from the client; the response, if any.
    mutating func handle(_ bytes: [UInt8]) -> [UInt8]? {
        if let first = bytes.first, TURNChannelData.isChannelData(firstByte: first) {
            if let message = try? TURNChannelData(decoding: bytes) { channelData.append(message) }
            return nil
        }
        guard let received = try? STUNReceivedMessage(decoding: bytes) else { return nil }
        let request = received.message
        messages.append(request)
        guard request.messageClass == .request, isAnswering else { return nil }
        let algorithm = request.passwordAlgorithm ?? .md5
        if offersPasswordAlgorithms, received.hasMessageIntegrity,
            request.passwordAlgorithms != [.sha256, .md5] || algorithm != .sha256
        {
            return error(request, .badRequest, "PASSWORD-ALGORITHMS not echoed", nonce: false)
        }
        key = algorithm == .sha256 ? sha256Key : md5Key
        guard let key else { return nil }
        guard received.hasMessageIntegrity else {
            return error(request, .unauthenticated, "Unauthenticated", nonce: true)
        }
        guard received.isAuthentic(with: key), request.username == Self.username, request.realm == Self.realm else {
            return error(request, .unauthenticated, "Unauthenticated", nonce: true)
        }
        if staleNonces > 0 || request.nonce != nonce {
            if staleNonces > 0 {
                staleNonces -= 1
                nonce = "nonce-\(Int(nonce.dropFirst(6)).map { $0 + 1 } ?? 9)"
            }
            return error(request, .staleNonce, "Stale Nonce", nonce: true)
        }
        switch request.method {
        case .allocate:
            if allocateError == .tryAlternate {
                return STUNMessage(
                    .errorResponse, .allocate, transactionID: request.transactionID,
                    attributes: [
                        .errorCode(.tryAlternate, reason: "Try Alternate"),
                        STUNAttribute(type: .alternateServer, value: [0, 1, 0x0D, 0x96, 192, 0, 2, 99]),
                    ]
                ).encoded(integrity: STUNIntegrity(key: key))
            }
            if let allocateError { return error(request, allocateError, "Refused", nonce: false) }
            let id = request.transactionID
            return success(
                request,
                [
                    .xorRelayedAddress(Self.relayed, transactionID: id), .lifetime(seconds: lifetime),
                    .xorMappedAddress(Self.mapped, transactionID: id),
                ])
        case .refresh:
            if let refreshError, request.lifetimeSeconds != 0 {
                return error(request, refreshError, "Refused", nonce: false)
            }
            return success(request, [.lifetime(seconds: request.lifetimeSeconds ?? lifetime)])
        case .createPermission, .channelBind:
            return success(request, [])
        default:
            return error(request, .badRequest, "Bad Request", nonce: false)
        }
    }

    func success(_ request: STUNMessage, _ attributes: [STUNAttribute]) -> [UInt8] {
        let response = STUNMessage(
            .successResponse, request.method, transactionID: request.transactionID, attributes: attributes)
        return response.encoded(integrity: key.map { STUNIntegrity(key: $0) })
    }

    func error(_ request: STUNMessage, _ code: STUNErrorCode, _ reason: String, nonce withNonce: Bool) -> [UInt8] {
        var attributes: [STUNAttribute] = [.errorCode(code, reason: reason)]
        if withNonce { attributes += [.realm(Self.realm), .nonce(nonce)] }
        if withNonce, offersPasswordAlgorithms { attributes.append(.passwordAlgorithms([.sha256, .md5])) }
        return STUNMessage(.errorResponse, request.method, transactionID: request.transactionID, attributes: attributes)
            .encoded()
    }

    /// A Data indication from `peer`.
    static func dataIndication(from peer: STUNTransportAddress, _ payload: [UInt8], seed: UInt64 = 99) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        let id = STUNTransactionID.random(using: &generator)
        return STUNMessage(
            .indication, .data, transactionID: id,
            attributes: [.xorPeerAddress(peer, transactionID: id), .data(payload)]
        ).encoded()
    }
}

/// Drives a ``TURNClient`` against a ``ScriptedTURNServer`` in virtual time: sends reach the server at once,
/// its answers come straight back, and the timer fires at each armed instant.
struct TURNHarness {
    var client: TURNClient<SplitMix64>
    var server = ScriptedTURNServer()
    var now = STUNInstant.zero
    var timer: STUNInstant?
    var events: [TURNClientEvent] = []
    /// Every send, with its instant in milliseconds.
    var sends: [(ms: Int64, bytes: [UInt8])] = []

    init(configuration: TURNClientConfiguration? = nil, seed: UInt64 = 7) {
        let credentials = TURNCredentials(
            username: ScriptedTURNServer.username, password: ScriptedTURNServer.password)
        client = TURNClient(
            configuration: configuration ?? TURNClientConfiguration(credentials: credentials),
            random: SplitMix64(seed: seed))
    }

    static func configuration(
        reliable: Bool = false, lifetime: UInt32? = nil, timers: STUNTransactionTimers = STUNTransactionTimers()
    ) -> TURNClientConfiguration {
        TURNClientConfiguration(
            credentials: TURNCredentials(username: ScriptedTURNServer.username, password: ScriptedTURNServer.password),
            isReliable: reliable, timers: timers, requestedLifetime: lifetime)
    }

    mutating func apply(_ actions: [TURNClientAction]) {
        for action in actions {
            switch action {
            case .send(let bytes):
                sends.append((now.nanoseconds / 1_000_000, bytes))
                if let answer = server.handle(bytes) { apply(client.receive(answer, at: now)) }
            case .armTimer(let at): timer = at
            case .event(let event): events.append(event)
            }
        }
    }

    /// Fires the timer at each armed instant up to `end`, then sets the clock to `end`.
    mutating func advance(to end: STUNInstant) {
        while let at = timer, at <= end {
            timer = nil
            now = at
            apply(client.timerFired(at: at))
        }
        now = end
    }

    mutating func start() { apply(client.start(at: now)) }

    /// The instants (ms) at which requests of `method` reached the server, from the recorded sends.
    func requestTimes(_ method: STUNMethod) -> [Int64] {
        sends.compactMap { send in
            guard let message = try? STUNReceivedMessage(decoding: send.bytes).message,
                message.messageClass == .request, message.method == method
            else { return nil }
            return send.ms
        }
    }
}

extension STUNInstant {
    static func seconds(_ seconds: Int64) -> STUNInstant { .milliseconds(seconds * 1000) }
}
