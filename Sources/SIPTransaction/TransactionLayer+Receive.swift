import SIPMessage

extension TransactionLayer {
    /// A message from the transport, already parsed (and, for requests, checked with
    /// `SIPRequest.validate()`, which answers malformed requests with 400 before they get here).
    /// - Parameters:
    ///   - message: the request or response.
    ///   - source: where it came from; a server transaction sends its responses there.
    ///   - isReliable: whether it came over a reliable transport (used for new server transactions).
    public mutating func receive(_ message: Message, from source: Address, isReliable: Bool) -> [Action] {
        switch message {
        case .request(let request): receive(request, from: source, isReliable: isReliable)
        case .response(let response): receive(response, from: source)
        }
    }

    /// A response from the transport: passed to the client transaction it matches by §17.1.3 (top Via
    /// branch and CSeq method), or delivered as stray. A response without a usable top Via branch or CSeq,
    /// or with a status outside 100...699, is dropped.
    public mutating func receive(_ response: SIPResponse, from source: Address) -> [Action] {
        guard (100...699).contains(response.statusCode), let via = try? response.topVia, let branch = via.branch,
            let cseq = try? response.cseq
        else {
            statistics.dropped += 1
            return []
        }
        guard let id = clientIndex[ClientKey(branch: branch, method: cseq.method)] else {
            statistics.strayResponses += 1
            return [.deliver(.strayResponse(response, source: source))]
        }
        var actions: [Action] = []
        update(id, into: &actions) { $0.receive(response) }
        if actions.isEmpty { statistics.retransmissions += 1 }
        return actions
    }

    /// A request from the transport (§17.2.3): a retransmission or an ACK goes to the server transaction it
    /// matches; an ACK that matches none goes to the TU; a merged request is answered 482 (§8.2.2.2); any
    /// other request starts a server transaction and goes to the TU, or is answered 503 when the table is
    /// full. A request without a usable top Via or CSeq gets no transaction and is dropped.
    public mutating func receive(_ request: SIPRequest, from source: Address, isReliable: Bool) -> [Action] {
        guard let summary = RequestSummary(request), summary.branch != nil || summary.legacyKey != nil else {
            statistics.dropped += 1
            return []
        }
        var actions: [Action] = []
        if let id = matchServerTransaction(summary) {
            update(id, into: &actions) { $0.receive(request) }
            if actions.isEmpty { statistics.retransmissions += 1 }
            return actions
        }
        if request.method == .ack {
            return [.deliver(.ack(request, transaction: nil, source: source))]
        }
        guard table.count < configuration.maximumTransactions else {
            statistics.overloadRejections += 1
            let retryAfter = SIPField(name: .retryAfter, value: String(configuration.retryAfterSeconds))
            let response = ResponseBuilder.response(
                to: request, statusCode: 503, toTag: ResponseBuilder.tag(for: request, seed: configuration.tagSeed),
                extra: [retryAfter])
            return [.send(.response(response), to: source, transaction: nil)]
        }
        let mergeKey = configuration.detectsMergedRequests ? summary.mergeKey : nil
        if let mergeKey, mergeIndex[mergeKey] != nil {
            // §8.2.2.2: the 482 goes through a server transaction of its own, which absorbs retransmissions
            // of the merged request (and, for INVITE, waits for the ACK of the 482).
            statistics.mergedRequests += 1
            let id = insertServerTransaction(summary, source: source, isReliable: isReliable, mergeKey: nil)
            let loop = ResponseBuilder.response(
                to: request, statusCode: 482, toTag: ResponseBuilder.tag(for: request, seed: configuration.tagSeed))
            update(id, into: &actions) { $0.send(loop) }
            return actions
        }
        let cancelled = request.method == .cancel ? cancelledTransaction(summary) : nil
        let id = insertServerTransaction(summary, source: source, isReliable: isReliable, mergeKey: mergeKey)
        // Timers first: a TU that answers while the driver walks these actions finds them armed.
        update(id, into: &actions) { $0.start() }
        if request.method == .cancel {
            actions.append(.deliver(.cancel(request, transaction: id, cancelling: cancelled, source: source)))
        } else {
            actions.append(.deliver(.request(request, transaction: id, source: source)))
        }
        return actions
    }

    // MARK: Matching

    /// §17.2.3: by branch, sent-by and method with the cookie; by the RFC 2543 rules without it.
    func matchServerTransaction(_ summary: RequestSummary) -> TransactionID? {
        if let key = summary.serverKey(method: summary.matchingMethod) { return serverIndex[key] }
        return matchLegacy(summary, asCancel: false)
    }

    /// §9.2: the transaction a CANCEL cancels is the one its request would match were its method anything
    /// but CANCEL or ACK. Only INVITE is looked for with the cookie (§9.1: CANCEL is meant for INVITE).
    func cancelledTransaction(_ summary: RequestSummary) -> TransactionID? {
        if let key = summary.serverKey(method: .invite) { return serverIndex[key] }
        return matchLegacy(summary, asCancel: true)
    }

    /// The RFC 2543 rules of §17.2.3: Request-URI, From tag, Call-ID, CSeq and top Via equal to those of the
    /// request that created the transaction; the To tag equal to that request's (for ACK: to the To tag of
    /// the response the transaction sent); the CSeq method equal (for ACK: the transaction is an INVITE one;
    /// for a CANCEL looking for its target: any method but CANCEL and ACK).
    func matchLegacy(_ summary: RequestSummary, asCancel: Bool) -> TransactionID? {
        guard let key = summary.legacyKey, let candidates = legacyIndex[key] else { return nil }
        let request = summary.request
        let isACK = request.method == .ack
        let toTag: String? = summary.toTag ?? nil
        for id in candidates {
            guard let transaction = table[id]?.transaction else { continue }
            let original = transaction.request
            if asCancel {
                guard original.method != .cancel, original.method != .ack else { continue }
            } else {
                guard original.method == summary.matchingMethod else { continue }
            }
            guard original.uri.isEquivalent(to: request.uri), (try? original.topVia) == summary.topVia else {
                continue
            }
            let expectedTag: String?
            if isACK {
                expectedTag = ((try? transaction.lastResponse?.to) ?? nil)?.tag
            } else {
                expectedTag = ((try? original.to) ?? nil)?.tag
            }
            guard toTag == expectedTag else { continue }
            return id
        }
        return nil
    }

    /// Adds a server transaction for `summary`'s request to the table and its indexes.
    mutating func insertServerTransaction(
        _ summary: RequestSummary, source: Address, isReliable: Bool, mergeKey: MergeKey?
    ) -> TransactionID {
        let id = makeID()
        let request = summary.request
        let timers = configuration.timers
        let transaction: Transaction =
            request.method == .invite
            ? .inviteServer(InviteServerTransaction(request: request, isReliable: isReliable, timers: timers))
            : .nonInviteServer(NonInviteServerTransaction(request: request, isReliable: isReliable, timers: timers))
        var entry = Entry(transaction: transaction, address: source)
        if let key = summary.serverKey(method: request.method) {
            entry.serverKey = key
            serverIndex[key] = id
        } else if let key = summary.legacyKey {
            entry.legacyKey = key
            legacyIndex[key, default: []].append(id)
        }
        if let mergeKey {
            entry.mergeKey = mergeKey
            mergeIndex[mergeKey] = id
        }
        table[id] = entry
        return id
    }
}
