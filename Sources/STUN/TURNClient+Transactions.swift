/// The client's requests and what their responses do (RFC 8656 §7-§12).
extension TURNClient {
    /// How long a permission lasts on the server (§9); not negotiable.
    static var permissionLifetime: Duration { .seconds(300) }
    /// How long a channel binding lasts on the server (§12); not negotiable.
    static var channelLifetime: Duration { .seconds(600) }
    /// The allocation lifetime a server gives when it says nothing (§7.2).
    static var defaultLifetime: UInt32 { 600 }

    /// When to refresh something that lives `lifetime`: the margin before it ends, never before half of it.
    func refreshDelay(_ lifetime: Duration) -> Duration {
        max(lifetime - configuration.refreshMargin, lifetime / 2)
    }

    /// Builds, records and sends a request for `purpose`, with credentials once the server has challenged.
    mutating func startTransaction(_ purpose: Purpose, at now: STUNInstant, staleNonceRetries: Int = 0)
        -> [TURNClientAction]
    {
        let id = STUNTransactionID.random(using: &random)
        var attributes: [STUNAttribute]
        switch purpose {
        case .allocate:
            attributes = [.requestedTransport(.udp)]
            if let seconds = configuration.requestedLifetime { attributes.append(.lifetime(seconds: seconds)) }
        case .refresh(let lifetime):
            attributes = lifetime.map { [.lifetime(seconds: $0)] } ?? []
        case .createPermission(let address):
            attributes = [.xorPeerAddress(STUNTransportAddress(address: address, port: 0), transactionID: id)]
        case .channelBind(let number, let peer):
            attributes = [.channelNumber(number), .xorPeerAddress(peer, transactionID: id)]
        }
        if let software = configuration.software { attributes.append(.software(software)) }
        var integrity: STUNIntegrity?
        if let auth {
            attributes += [.username(configuration.credentials.username), .realm(auth.realm), .nonce(auth.nonce)]
            if let offered = auth.offeredAlgorithms, let algorithm = auth.algorithm {
                attributes += [offered, .passwordAlgorithm(algorithm)]
            }
            // A server that offers PASSWORD-ALGORITHMS is an RFC 8489 one, which checks MESSAGE-INTEGRITY-SHA256
            // (§9.2.4); MESSAGE-INTEGRITY stays for RFC 5389 servers.
            integrity = STUNIntegrity(key: auth.key, sha1: true, sha256: auth.offeredAlgorithms != nil)
        }
        let request = STUNMessage(.request, purpose.method, transactionID: id, attributes: attributes)
        let bytes = request.encoded(integrity: integrity)
        var schedule = STUNRetransmissionSchedule(isReliable: configuration.isReliable, timers: configuration.timers)
        _ = schedule.start(at: now)
        transactions.append(
            Transaction(
                id: id, purpose: purpose, bytes: bytes, schedule: schedule, staleNonceRetries: staleNonceRetries,
                isAuthenticated: auth != nil))
        return [.send(bytes)]
    }

    /// Ends a batch of actions: re-arms the timer when the earliest deadline moved earlier or was not armed.
    mutating func finish(_ actions: inout [TURNClientAction]) -> [TURNClientAction] {
        var earliest: STUNInstant?
        func consider(_ instant: STUNInstant?) {
            guard let instant else { return }
            if earliest.map({ instant < $0 }) ?? true { earliest = instant }
        }
        for transaction in transactions { consider(transaction.schedule.deadline) }
        consider(refreshAt)
        for permission in permissions { consider(permission.refreshAt) }
        for channel in channels { consider(channel.refreshAt) }
        if let earliest, armedAt.map({ earliest < $0 }) ?? true {
            armedAt = earliest
            actions.append(.armTimer(at: earliest))
        }
        return actions
    }

    /// The long-term key for a 401 challenge (RFC 8489 §9.2.4): with the first algorithm of the challenge's
    /// PASSWORD-ALGORITHMS this module can compute (echoed in every later request), or MD5 when the server
    /// offers none, as RFC 5389 servers do. `nil` when none of the offered algorithms is known or OpenSSL fails.
    func authentication(realm: String, nonce: String, challenge: STUNMessage) -> Authentication? {
        let offered = challenge.attributes.first { $0.type == .passwordAlgorithms }
        var algorithm = STUNPasswordAlgorithm.md5
        if offered != nil {
            guard let known = challenge.passwordAlgorithms?.first(where: { $0.openSSLName != nil }) else { return nil }
            algorithm = known
        }
        let credentials = configuration.credentials
        guard
            let key = STUNKey.longTerm(
                username: credentials.username, realm: realm, password: credentials.password, algorithm: algorithm)
        else { return nil }
        return Authentication(
            realm: realm, nonce: nonce, key: key, offeredAlgorithms: offered, algorithm: offered.map { _ in algorithm })
    }

    /// Asks for a permission unless the address has one (or one is on its way), within the limit.
    mutating func requestPermission(
        for address: STUNIPAddress, at now: STUNInstant, into actions: inout [TURNClientAction]
    ) {
        guard !permissions.contains(where: { $0.address == address }) else { return }
        guard permissions.count < configuration.maximumPermissions else {
            let failure = TURNFailure(
                .limitReached, method: .createPermission, reason: "\(permissions.count) permissions")
            actions.append(.event(.permissionFailed(address, failure)))
            return
        }
        permissions.append(Permission(address: address, isPending: true))
        actions += startTransaction(.createPermission(address), at: now)
    }

    /// Starts the refreshes whose instant has come.
    mutating func refreshDue(at now: STUNInstant, into actions: inout [TURNClientAction]) {
        guard case .allocated = state else { return }
        if let at = refreshAt, at <= now {
            refreshAt = nil
            actions += startTransaction(.refresh(lifetime: configuration.requestedLifetime), at: now)
        }
        for index in permissions.indices {
            guard let at = permissions[index].refreshAt, at <= now, !permissions[index].isPending else { continue }
            permissions[index].refreshAt = nil
            permissions[index].isPending = true
            actions += startTransaction(.createPermission(permissions[index].address), at: now)
        }
        for index in channels.indices {
            guard let at = channels[index].refreshAt, at <= now, !channels[index].isPending else { continue }
            channels[index].refreshAt = nil
            channels[index].isPending = true
            actions += startTransaction(.channelBind(channels[index].number, channels[index].peer), at: now)
        }
    }

    /// A decoded STUN message from the server: a response to one of the transactions, or a Data indication.
    mutating func receive(_ received: STUNReceivedMessage, at now: STUNInstant) -> [TURNClientAction] {
        var actions: [TURNClientAction] = []
        switch received.message.messageClass {
        case .indication: receiveIndication(received, into: &actions)
        case .successResponse, .errorResponse: receiveResponse(received, at: now, into: &actions)
        case .request: break
        }
        return finish(&actions)
    }

    /// A Data indication (§11.6): from a peer with a permission, with XOR-PEER-ADDRESS and DATA.
    private func receiveIndication(_ received: STUNReceivedMessage, into actions: inout [TURNClientAction]) {
        let message = received.message
        guard case .allocated = state, message.method == .data, received.unknownRequiredAttributes.isEmpty,
            let peer = message.xorPeerAddress, let payload = message.data,
            permissions.contains(where: { $0.address == peer.address })
        else { return }
        actions.append(.event(.data(peer: peer, payload: payload)))
    }

    /// ChannelData from the server (§12.6): data from the peer the channel is bound to.
    mutating func receive(_ message: TURNChannelData) -> [TURNClientAction] {
        guard case .allocated = state, let channel = channels.first(where: { $0.number == message.channel }) else {
            return []
        }
        return [.event(.data(peer: channel.peer, payload: message.payload))]
    }

    private mutating func receiveResponse(
        _ received: STUNReceivedMessage, at now: STUNInstant, into actions: inout [TURNClientAction]
    ) {
        let message = received.message
        guard
            let index = transactions.firstIndex(where: {
                $0.id == message.transactionID && $0.purpose.method == message.method
            })
        else { return }
        let transaction = transactions[index]
        if transaction.isAuthenticated, let auth,
            message.messageClass == .successResponse || received.hasMessageIntegrity
                || received.hasMessageIntegritySHA256
        {
            // RFC 8489 §9.2.5: a response that fails the check is discarded as if it never came.
            guard received.isAuthentic(with: auth.key) else { return }
        }
        transactions.remove(at: index)
        let method = transaction.purpose.method
        guard received.unknownRequiredAttributes.isEmpty else {
            let unknown = received.unknownRequiredAttributes.map(\.description).joined(separator: ", ")
            return fail(
                transaction.purpose, TURNFailure(.unusableResponse, method: method, reason: unknown), into: &actions)
        }
        if message.messageClass == .successResponse {
            return succeed(transaction.purpose, message, at: now, into: &actions)
        }
        guard let (code, reason) = message.errorCode else {
            let failure = TURNFailure(.unusableResponse, method: method, reason: "no ERROR-CODE")
            return fail(transaction.purpose, failure, into: &actions)
        }
        switch code {
        case .unauthenticated:
            guard !transaction.isAuthenticated, let realm = message.realm, let nonce = message.nonce else {
                let failure = TURNFailure(.authenticationFailed, method: method, errorCode: code, reason: reason)
                return fail(transaction.purpose, failure, into: &actions)
            }
            guard let challenged = authentication(realm: realm, nonce: nonce, challenge: message) else {
                let failure = TURNFailure(
                    .keyUnavailable, method: method, reason: "no usable PASSWORD-ALGORITHMS, or OpenSSL failed")
                return fail(transaction.purpose, failure, into: &actions)
            }
            auth = challenged
            actions += startTransaction(transaction.purpose, at: now, staleNonceRetries: transaction.staleNonceRetries)
        case .staleNonce:
            guard auth != nil, let nonce = message.nonce,
                transaction.staleNonceRetries < configuration.maximumStaleNonceRetries
            else {
                let failure = TURNFailure(
                    .staleNonceRetriesExhausted, method: method, errorCode: code, reason: reason)
                return fail(transaction.purpose, failure, into: &actions)
            }
            auth?.nonce = nonce
            if let realm = message.realm { auth?.realm = realm }
            actions += startTransaction(
                transaction.purpose, at: now, staleNonceRetries: transaction.staleNonceRetries + 1)
        case .tryAlternate where transaction.purpose == .allocate:
            let alternate = message[.alternateServer].flatMap { STUNAddressCodec.decode($0, xorWith: nil) }
            let failure = TURNFailure(
                .tryAlternate, method: method, errorCode: code, reason: reason, alternateServer: alternate)
            fail(transaction.purpose, failure, into: &actions)
        default:
            let failure = TURNFailure(.errorResponse, method: method, errorCode: code, reason: reason)
            fail(transaction.purpose, failure, into: &actions)
        }
    }

    private mutating func succeed(
        _ purpose: Purpose, _ message: STUNMessage, at now: STUNInstant, into actions: inout [TURNClientAction]
    ) {
        switch purpose {
        case .allocate:
            guard case .allocating = state else { return }
            guard let relayed = message.xorRelayedAddress else {
                let failure = TURNFailure(.unusableResponse, method: .allocate, reason: "no XOR-RELAYED-ADDRESS")
                return abandon(failure, into: &actions)
            }
            let lifetime = Duration.seconds(
                message.lifetimeSeconds ?? configuration.requestedLifetime ?? Self.defaultLifetime)
            state = .allocated
            relayedAddress = relayed
            mappedAddress = message.xorMappedAddress
            expiresAt = now + lifetime
            refreshAt = now + refreshDelay(lifetime)
            actions.append(.event(.allocated(relayed: relayed, mapped: mappedAddress, lifetime: lifetime)))
        case .refresh(lifetime: 0):
            close(into: &actions)
        case .refresh:
            guard case .allocated = state else { return }
            let seconds = message.lifetimeSeconds ?? configuration.requestedLifetime ?? Self.defaultLifetime
            guard seconds > 0 else {
                return abandon(TURNFailure(.unusableResponse, method: .refresh, reason: "LIFETIME 0"), into: &actions)
            }
            let lifetime = Duration.seconds(seconds)
            expiresAt = now + lifetime
            refreshAt = now + refreshDelay(lifetime)
            actions.append(.event(.refreshed(lifetime: lifetime)))
        case .createPermission(let address):
            installPermission(address, at: now, into: &actions)
        case .channelBind(let number, let peer):
            guard let index = channels.firstIndex(where: { $0.number == number }) else { return }
            channels[index].isPending = false
            channels[index].refreshAt = now + refreshDelay(Self.channelLifetime)
            if !channels[index].isBound {
                channels[index].isBound = true
                actions.append(.event(.channelReady(peer: peer, channel: number)))
            }
            // §12: a ChannelBind installs or refreshes the permission for the peer's address too.
            installPermission(peer.address, at: now, into: &actions)
        }
    }

    private mutating func installPermission(
        _ address: STUNIPAddress, at now: STUNInstant, into actions: inout [TURNClientAction]
    ) {
        guard case .allocated = state else { return }
        let index: Int
        if let existing = permissions.firstIndex(where: { $0.address == address }) {
            index = existing
        } else {
            guard permissions.count < configuration.maximumPermissions else { return }
            permissions.append(Permission(address: address))
            index = permissions.count - 1
        }
        let stillPending = transactions.contains { $0.purpose == .createPermission(address) }
        permissions[index].isPending = stillPending
        permissions[index].refreshAt = stillPending ? nil : now + refreshDelay(Self.permissionLifetime)
        if !permissions[index].isInstalled {
            permissions[index].isInstalled = true
            actions.append(.event(.permissionReady(address)))
        }
    }

    /// A transaction failed (error response or timeout): what that costs depends on what it was for.
    mutating func fail(_ purpose: Purpose, _ failure: TURNFailure, into actions: inout [TURNClientAction]) {
        switch purpose {
        case .allocate:
            guard case .allocating = state else { return }
            abandon(failure, into: &actions)
        case .refresh(lifetime: 0):
            close(into: &actions)
        case .refresh:
            guard case .allocated = state else { return }
            abandon(failure, into: &actions)
        case .createPermission(let address):
            guard case .allocated = state else { return }
            permissions.removeAll { $0.address == address }
            actions.append(.event(.permissionFailed(address, failure)))
        case .channelBind(let number, let peer):
            guard case .allocated = state else { return }
            channels.removeAll { $0.number == number }
            actions.append(.event(.channelFailed(peer: peer, failure)))
        }
    }

    /// The allocation is lost: nothing more is sent or refreshed.
    mutating func abandon(_ failure: TURNFailure, into actions: inout [TURNClientAction]) {
        state = .failed(failure)
        forgetAll()
        actions.append(.event(.failed(failure)))
    }

    /// The deallocation finished (or gave up).
    private mutating func close(into actions: inout [TURNClientAction]) {
        guard case .closing = state else { return }
        state = .closed
        forgetAll()
        actions.append(.event(.closed))
    }

    private mutating func forgetAll() {
        transactions.removeAll()
        permissions.removeAll()
        channels.removeAll()
        refreshAt = nil
    }
}
