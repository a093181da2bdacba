import SIPTransport
import STUN

/// The requests: Binding (RFC 8489 §3), long-term authentication (RFC 8489 §9.2.4), Allocate, Refresh,
/// CreatePermission and ChannelBind (RFC 8656 §7, §8, §10, §12).
extension VirtualTURNServer {
    /// One STUN message or UDP ChannelData from a client.
    func receive(_ bytes: [UInt8], from client: TURNClientKey) {
        guard let first = bytes.first else { return }
        if TURNChannelData.isChannelData(firstByte: first) {
            if let message = try? TURNChannelData(decoding: bytes) { receive(message, from: client) }
            return
        }
        guard let received = try? STUNReceivedMessage(decoding: bytes) else { return }
        switch received.message.messageClass {
        case .request: answer(received, from: client)
        case .indication: receiveIndication(received.message, from: client)
        case .successResponse, .errorResponse: break
        }
    }

    private func answer(_ received: STUNReceivedMessage, from client: TURNClientKey) {
        let request = received.message
        if request.method == .binding { return answerBinding(received, from: client) }
        let turnMethods: [STUNMethod] = [.allocate, .refresh, .createPermission, .channelBind]
        guard turnMethods.contains(request.method) else {
            return reply(error(request, .badRequest, "Unknown method", fingerprint: received.hasFingerprint), client)
        }
        switch authenticate(received) {
        case .refused(let response): reply(response, client)
        case .accepted(let username, let key):
            let context = RequestContext(
                request: request, client: client, username: username, key: key, fingerprint: received.hasFingerprint)
            guard received.unknownRequiredAttributes.isEmpty else {
                return reply(
                    context.error(
                        .unknownAttribute, "Unknown Attribute",
                        [.unknownAttributes(received.unknownRequiredAttributes)]), client)
            }
            reply(handle(context), client)
        }
    }

    private func reply(_ response: [UInt8], _ client: TURNClientKey) { send(response, to: client) }

    private func handle(_ context: RequestContext) -> [UInt8] {
        if context.request.method == .allocate { return allocate(context) }
        guard let allocation = allocations[context.client] else {
            return context.error(.allocationMismatch, "Allocation Mismatch")
        }
        // RFC 8656 §5: the allocation's later requests must come with the credentials that made it.
        guard allocation.username == context.username else {
            return context.error(.wrongCredentials, "Wrong Credentials")
        }
        switch context.request.method {
        case .refresh: return refresh(allocation, context)
        case .createPermission: return createPermission(allocation, context)
        default: return channelBind(allocation, context)
        }
    }

    // MARK: Binding

    private func answerBinding(_ received: STUNReceivedMessage, from client: TURNClientKey) {
        let request = received.message
        guard received.unknownRequiredAttributes.isEmpty else {
            let response = STUNMessage(
                .errorResponse, .binding, transactionID: request.transactionID,
                attributes: [
                    .errorCode(.unknownAttribute, reason: "Unknown Attribute"),
                    .unknownAttributes(received.unknownRequiredAttributes),
                ])
            return reply(response.encoded(fingerprint: received.hasFingerprint), client)
        }
        guard let mapped = client.address.stunAddress else { return }
        counters.bindingRequests += 1
        let response = STUNMessage(
            .successResponse, .binding, transactionID: request.transactionID,
            attributes: [.xorMappedAddress(mapped, transactionID: request.transactionID)])
        reply(response.encoded(fingerprint: received.hasFingerprint), client)
    }

    // MARK: Authentication

    enum Authentication {
        case accepted(username: String, key: STUNKey)
        case refused([UInt8])
    }

    /// RFC 8489 §9.2.4 in RFC 5389's order: no MESSAGE-INTEGRITY gets 401 with a nonce; a request without
    /// USERNAME, REALM or NONCE 400; a stale or unknown nonce 438 with a new one; an unknown user or a wrong
    /// MESSAGE-INTEGRITY 401.
    func authenticate(_ received: STUNReceivedMessage) -> Authentication {
        let request = received.message
        let fingerprint = received.hasFingerprint
        guard received.hasMessageIntegrity else {
            return .refused(challenge(request, .unauthenticated, "Unauthenticated", fingerprint: fingerprint))
        }
        guard let username = request.username, let realm = request.realm, let nonce = request.nonce else {
            return .refused(error(request, .badRequest, "Missing USERNAME, REALM or NONCE", fingerprint: fingerprint))
        }
        guard isFresh(nonce) else {
            return .refused(challenge(request, .staleNonce, "Stale Nonce", fingerprint: fingerprint))
        }
        guard realm == self.realm, let password = users[username],
            let key = STUNKey.longTerm(username: username, realm: realm, password: password),
            received.checkMessageIntegrity(with: key) == true
        else {
            return .refused(challenge(request, .unauthenticated, "Unauthenticated", fingerprint: fingerprint))
        }
        return .accepted(username: username, key: key)
    }

    private func isFresh(_ nonce: String) -> Bool {
        guard let issued = nonces[nonce] else { return false }
        return world.loop.elapsedTime - issued < settings.nonceLifetime
    }

    /// A new nonce, remembered with the instant it was issued.
    private func issueNonce() -> String {
        let value = UInt64.random(in: .min ... .max, using: &world.network.random)
        let nonce = "sb" + String(value, radix: 16)
        nonces[nonce] = world.loop.elapsedTime
        nonceOrder.append(nonce)
        if nonceOrder.count > Self.nonceLimit { nonces[nonceOrder.removeFirst()] = nil }
        return nonce
    }

    /// A 401 or 438 with REALM and a fresh NONCE, without MESSAGE-INTEGRITY (RFC 8489 §9.2.4).
    private func challenge(_ request: STUNMessage, _ code: STUNErrorCode, _ reason: String, fingerprint: Bool)
        -> [UInt8]
    {
        STUNMessage(
            .errorResponse, request.method, transactionID: request.transactionID,
            attributes: [.errorCode(code, reason: reason), .realm(realm), .nonce(issueNonce())]
        ).encoded(fingerprint: fingerprint)
    }

    /// An error response without MESSAGE-INTEGRITY (the request was not authenticated).
    func error(_ request: STUNMessage, _ code: STUNErrorCode, _ reason: String, fingerprint: Bool) -> [UInt8] {
        STUNMessage(
            .errorResponse, request.method, transactionID: request.transactionID,
            attributes: [.errorCode(code, reason: reason)]
        ).encoded(fingerprint: fingerprint)
    }
}

/// An authenticated request and what its answers need.
struct RequestContext {
    let request: STUNMessage
    let client: TURNClientKey
    let username: String
    let key: STUNKey
    let fingerprint: Bool

    var id: STUNTransactionID { request.transactionID }

    /// A success response signed with the request's key.
    func success(_ attributes: [STUNAttribute]) -> [UInt8] {
        STUNMessage(.successResponse, request.method, transactionID: id, attributes: attributes)
            .encoded(integrity: STUNIntegrity(key: key), fingerprint: fingerprint)
    }

    /// An error response signed with the request's key.
    func error(_ code: STUNErrorCode, _ reason: String, _ extra: [STUNAttribute] = []) -> [UInt8] {
        STUNMessage(
            .errorResponse, request.method, transactionID: id, attributes: [.errorCode(code, reason: reason)] + extra
        ).encoded(integrity: STUNIntegrity(key: key), fingerprint: fingerprint)
    }
}
