public import SIPMessage

/// What became of a response from the transport.
@usableFromInline
enum ResponseDisposition {
    /// Unusable (no top Via branch, no CSeq, status out of range).
    case dropped
    /// Matched no client transaction.
    case stray
    /// Handed to client transaction `id`, with its machine's actions.
    case matched(TransactionID, [TransactionAction])
}

/// What became of a request from the transport.
@usableFromInline
enum RequestDisposition {
    /// Unusable: no top Via, no CSeq, a CSeq naming another method; no transaction.
    case dropped
    /// Handed to server transaction `id` (a retransmission, or an ACK), with its machine's actions.
    case matched(TransactionID, [TransactionAction])
    /// An ACK that matched no transaction: for the TU.
    case ack
    /// The table is full: send this 503 statelessly.
    case rejected(SIPResponse)
    /// Merged (§8.2.2.2): server transaction `id` was created to answer it 482; nothing for the TU.
    case merged(TransactionID, [TransactionAction])
    /// A new server transaction `id` for the TU, its machine's first actions, and for a CANCEL the INVITE
    /// transaction it names (`.some(nil)` when none).
    case created(TransactionID, [TransactionAction], cancelling: TransactionID??)
}

extension TransactionTable {
    /// §17.1.3: a response goes to the client transaction with its top Via branch and CSeq method.
    @usableFromInline
    mutating func receive(_ response: SIPResponse) -> ResponseDisposition {
        guard (100...699).contains(response.statusCode), let branch = response.topViaSummary?.branch,
            let cseq = try? response.cseq
        else {
            statistics.dropped += 1
            return .dropped
        }
        guard let id = clientIndex[ClientKey(branch: branch, method: cseq.method)] else {
            statistics.strayResponses += 1
            return .stray
        }
        let actions = deliver(response, to: id)
        if actions.isEmpty { statistics.absorbed += 1 }
        return .matched(id, actions)
    }

    /// §17.2.3 and §8.2.2.2: see `TransactionLayer.receive(_:from:isReliable:)`.
    @usableFromInline
    mutating func receive(_ request: SIPRequest, isReliable: Bool, topVia: TopViaSummary? = nil) -> RequestDisposition {
        guard let summary = RequestSummary(request, topVia: topVia) else {
            statistics.dropped += 1
            return .dropped
        }
        // With the cookie the key is exact; ACK looks for the INVITE it acknowledges (§17.2.3).
        let serverKey = summary.serverKey(method: summary.matchingMethod)
        // Tested once: each test of the optional key would copy it (two strings).
        let isExact = serverKey != nil
        // Call-ID is read only when it is needed: for RFC 2543 matching, and for a request that is new.
        var callID = isExact ? nil : RequestSummary.callID(of: request)
        let legacyKey = isExact ? nil : summary.legacyKey(callID: callID, request: request)
        guard isExact || legacyKey != nil else {
            statistics.dropped += 1
            return .dropped
        }
        let match: TransactionID?
        if let serverKey {
            match = serverIndex[serverKey]
        } else {
            match = matchLegacy(summary, request, key: legacyKey, asCancel: false)
        }
        if let id = match {
            let actions = deliver(request, to: id)
            if actions.isEmpty { statistics.absorbed += 1 }
            return .matched(id, actions)
        }
        if request.method == .ack { return .ack }
        guard !isFull else {
            statistics.overloadRejections += 1
            let retryAfter = SIPField(name: .retryAfter, value: String(configuration.retryAfterSeconds))
            return .rejected(
                ResponseBuilder.response(
                    to: request, statusCode: 503, toTag: ResponseBuilder.tag(for: request, seed: configuration.tagSeed),
                    extra: [retryAfter]))
        }
        if isExact { callID = RequestSummary.callID(of: request) }
        let mergeKey = configuration.detectsMergedRequests ? summary.mergeKey(callID: callID) : nil
        let original = mergeKey.flatMap { mergeIndex[$0] }
        if let original, isMerged(request, with: original) {
            // §8.2.2.2: the 482 goes through a server transaction of its own, which absorbs retransmissions
            // of the merged request (and, for INVITE, waits for the ACK of the 482).
            statistics.mergedRequests += 1
            let loop = ResponseBuilder.response(
                to: request, statusCode: 482, toTag: ResponseBuilder.tag(for: request, seed: configuration.tagSeed))
            let (id, _) = insertServer(
                request, isReliable: isReliable, keys: Keys(server: serverKey, legacy: legacyKey), starts: false)
            return .merged(id, (try? respond(loop, in: id)) ?? [])
        }
        let cancelling: TransactionID?? =
            request.method == .cancel ? .some(cancelledTransaction(summary, request, legacyKey: legacyKey)) : nil
        // The first live transaction keeps the merge key: two live ones share Call-ID, CSeq and method only
        // with different From tags (two calls under one Call-ID, §8.1.1.4 forbids it), and then a merged
        // copy of the second is taken for a new request. Only the transaction that holds the entry lists it.
        let (id, actions) = insertServer(
            request, isReliable: isReliable,
            keys: Keys(server: serverKey, legacy: legacyKey, merge: original == nil ? mergeKey : nil), starts: true)
        return .created(id, actions, cancelling: cancelling)
    }

    /// §8.2.2.2: a request without a To tag whose From tag, Call-ID and CSeq are those of live transaction
    /// `original` (which it did not match) was merged. Call-ID and CSeq are the index key; the tags are
    /// compared here, parsed only for this rare case.
    private func isMerged(_ incoming: SIPRequest, with original: TransactionID) -> Bool {
        guard let request = request(of: original), case .some(.none) = RequestSummary.toTag(of: incoming),
            let fromTag = RequestSummary.fromTag(of: incoming)
        else { return false }
        return ((try? request.from) ?? nil)?.tag == fromTag
    }

    /// Adds a server transaction for `request` to the table and the indexes `keys` name, and starts it
    /// (arms the 100 Trying timer of an INVITE) unless the layer answers it at once.
    private mutating func insertServer(
        _ request: SIPRequest, isReliable: Bool, keys: Keys, starts: Bool
    ) -> (TransactionID, [TransactionAction]) {
        let timers = configuration.timers
        let id: TransactionID
        var actions: [TransactionAction] = []
        if request.method == .invite {
            var machine = InviteServerTransaction(request: request, isReliable: isReliable, timers: timers)
            machine.keepsResponseWhenAccepted = keys.legacy != nil
            if starts { actions = machine.start() }
            let (slot, generation) = inviteServers.insert(Entry(machine: consume machine, keys: keys))
            id = Self.makeID(.inviteServer, slot: slot, generation: generation)
        } else {
            let machine = NonInviteServerTransaction(request: request, isReliable: isReliable, timers: timers)
            let (slot, generation) = nonInviteServers.insert(Entry(machine: consume machine, keys: keys))
            id = Self.makeID(.nonInviteServer, slot: slot, generation: generation)
        }
        if let key = keys.server { serverIndex[key] = id }
        if let key = keys.legacy { legacyIndex[key, default: []].append(id) }
        // `keys.merge` is set only when no live transaction holds that merge key (see `receive`).
        if let key = keys.merge { mergeIndex[key] = id }
        return (id, actions)
    }

    // MARK: Matching

    /// §9.2: the transaction a CANCEL cancels is the one its request would match were its method anything
    /// but CANCEL or ACK. Only INVITE is looked for with the cookie (§9.1: CANCEL is meant for INVITE).
    func cancelledTransaction(
        _ summary: RequestSummary, _ request: SIPRequest, legacyKey: LegacyKey?
    ) -> TransactionID? {
        if let key = summary.serverKey(method: .invite) { return serverIndex[key] }
        return matchLegacy(summary, request, key: legacyKey, asCancel: true)
    }

    /// The RFC 2543 rules of §17.2.3: Request-URI, From tag, Call-ID, CSeq and top Via equal to those of the
    /// request that created the transaction; the To tag equal to that request's (for ACK: to the To tag of
    /// the response the transaction sent); the CSeq method equal (for ACK: the transaction is an INVITE one;
    /// for a CANCEL looking for its target: any method but CANCEL and ACK).
    func matchLegacy(
        _ summary: RequestSummary, _ incoming: SIPRequest, key: LegacyKey?, asCancel: Bool
    ) -> TransactionID? {
        guard let key, let candidates = legacyIndex[key] else { return nil }
        let isACK = incoming.method == .ack
        let toTag: String? = RequestSummary.toTag(of: incoming) ?? nil
        // The whole top Via is compared: parsed here, once, as the summary holds only its branch and sent-by.
        let topVia = try? incoming.topVia
        for id in candidates {
            guard let original = request(of: id) else { continue }
            if asCancel {
                guard original.method != .cancel, original.method != .ack else { continue }
            } else {
                guard original.method == summary.matchingMethod else { continue }
            }
            guard original.uri.isEquivalent(to: incoming.uri), (try? original.topVia) == topVia else {
                continue
            }
            let expectedTag: String?
            if isACK {
                expectedTag = ((try? lastResponse(of: id)?.to) ?? nil)?.tag
            } else {
                expectedTag = ((try? original.to) ?? nil)?.tag
            }
            guard toTag == expectedTag else { continue }
            return id
        }
        return nil
    }
}
