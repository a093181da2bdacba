import STUN

extension ICEAgent {
    /// Answers a Binding request from the peer (RFC 8445 §7.3, RFC 8489 §6.3.1, §9.1.3): 400 without
    /// FINGERPRINT, USERNAME, MESSAGE-INTEGRITY, PRIORITY or exactly one role attribute; 401 for an unknown
    /// ufrag or a bad MESSAGE-INTEGRITY; 420 for unknown comprehension-required attributes; 487 for a role
    /// conflict this agent wins; otherwise a success with XOR-MAPPED-ADDRESS. A success learns a peer-reflexive
    /// remote candidate (§7.3.1.3), queues a triggered check (§7.3.1.4, replacing one in progress) and, when
    /// controlled, follows USE-CANDIDATE (§7.3.1.5).
    mutating func answer(
        _ received: STUNReceivedMessage, on base: STUNTransportAddress, from source: STUNTransportAddress,
        at now: STUNInstant, into out: inout [ICEAgentAction]
    ) {
        let request = received.message
        guard
            let local = locals.firstIndex(where: {
                ($0.type == .host || $0.type == .relayed) && $0.address == base
            })
        else {
            statistics.ignored += 1
            return
        }
        func reply(_ attributes: [STUNAttribute], error: Bool, key: STUNKey?) {
            let message = STUNMessage(
                error ? .errorResponse : .successResponse, .binding, transactionID: request.transactionID,
                attributes: attributes)
            let bytes = message.encoded(integrity: key.map { STUNIntegrity(key: $0) }, fingerprint: true)
            out.append(.send(bytes, from: base, to: source))
            statistics.requestsAnswered += 1
        }
        func refuse(_ code: STUNErrorCode, _ reason: String, key: STUNKey? = nil, extra: [STUNAttribute] = []) {
            reply([.errorCode(code, reason: reason)] + extra, error: true, key: key)
        }
        guard received.hasFingerprint else { return refuse(.badRequest, "FINGERPRINT required") }
        guard let username = request.username,
            received.hasMessageIntegrity || received.hasMessageIntegritySHA256
        else { return refuse(.badRequest, "USERNAME and MESSAGE-INTEGRITY required") }
        let ufrag = username.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let matching = [localCredentials, previousLocalCredentials].compactMap { $0 }.first { $0.ufrag == ufrag }
        guard let credentials = matching else { return refuse(.unauthenticated, "unknown username") }
        let key = STUNKey.shortTerm(password: credentials.password)
        guard received.isAuthentic(with: key) else { return refuse(.unauthenticated, "bad MESSAGE-INTEGRITY") }
        guard received.unknownRequiredAttributes.isEmpty else {
            return refuse(
                .unknownAttribute, "unknown attributes", key: key,
                extra: [.unknownAttributes(received.unknownRequiredAttributes)])
        }
        let controlling = request.iceControlling
        let controlled = request.iceControlled
        guard let priority = request.priority, (controlling == nil) != (controlled == nil) else {
            return refuse(.badRequest, "PRIORITY and one role attribute required", key: key)
        }
        // §7.3.1.1: the larger tie-breaker is controlling; the loser switches, the winner answers 487.
        if role == .controlling, let theirs = controlling {
            if tieBreaker >= theirs { return refuse(.roleConflict, "role conflict", key: key) }
            switchRole(to: .controlled, into: &out)
        } else if role == .controlled, let theirs = controlled {
            guard tieBreaker >= theirs else { return refuse(.roleConflict, "role conflict", key: key) }
            switchRole(to: .controlling, into: &out)
        }
        reply([.xorMappedAddress(source, transactionID: request.transactionID)], error: false, key: key)
        // A check with the credentials from before a restart keeps the old pair's consent, nothing more.
        guard credentials == localCredentials else { return }
        guard let remote = learnRemote(source, component: locals[local].component, priority: priority) else { return }
        if !pairs.contains(where: { $0.local == local && $0.remote == remote }) {
            addPair(local: local, remote: remote)
        }
        guard let pair = pairs.firstIndex(where: { $0.local == local && $0.remote == remote }) else { return }
        switch pairs[pair].state {
        case .succeeded: break
        case .inProgress:
            // §7.3.1.4: the outstanding check stops retransmitting and a triggered check replaces it.
            guard let slot = pending.firstIndex(where: { $0.pair == pair && !$0.isNomination && !$0.isCancelled })
            else { break }
            pending[slot].isCancelled = true
            pairs[pair].state = .waiting
            enqueueTriggered(ICETriggeredCheck(pair: pair, isNomination: false))
        case .frozen, .waiting, .failed:
            pairs[pair].state = .waiting
            enqueueTriggered(ICETriggeredCheck(pair: pair, isNomination: false))
        }
        if role == .controlled, request.hasUseCandidate {
            if pairs[pair].state == .succeeded {
                select(pairs[pair].validPair ?? pair, at: now, into: &out)
            } else {
                pairs[pair].nominateOnSuccess = true
            }
        }
    }

    /// The remote candidate at `address`, or a new peer-reflexive one with the request's PRIORITY (§7.3.1.3);
    /// `nil` if the table is full.
    private mutating func learnRemote(_ address: STUNTransportAddress, component: Int, priority: UInt32) -> Int? {
        if let index = remotes.firstIndex(where: { $0.address == address && $0.component == component }) {
            return index
        }
        guard remotes.count < configuration.maximumRemoteCandidates else { return nil }
        // Any foundation unique to the candidate will do (§7.3.1.3).
        let foundation = ICEFoundation.compute(
            type: .peerReflexive, baseAddress: address.address, server: .v4(UInt32(address.port)), transport: .udp)
        remotes.append(
            ICECandidate(
                foundation: foundation, component: component, priority: priority, address: address,
                type: .peerReflexive))
        return remotes.count - 1
    }
}
