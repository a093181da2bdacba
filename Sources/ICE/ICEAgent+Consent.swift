import STUN

extension ICEAgent {
    /// The interval to the next consent check: 0.8 to 1.2 of the mean (RFC 7675 §5.1).
    mutating func consentJitter() -> Duration {
        let permille = Int64(800 + random.next() % 401)
        let (seconds, attoseconds) = configuration.consentInterval.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        return .nanoseconds(nanoseconds / 1000 * permille)
    }

    /// Sends a consent check on the selected pair of `component`: a Binding request like a check, without
    /// USE-CANDIDATE, with a fresh transaction ID (RFC 7675 §5.1).
    mutating func consentTick(component: Int, at now: STUNInstant, into out: inout [ICEAgentAction]) {
        guard var entry = consent[component] else { return }
        entry.nextCheck = now + consentJitter()
        if let remoteCredentials {
            let local = entry.pair.local
            let (attributes, _) = checkAttributes(
                local: local, isNomination: false, remoteUfrag: remoteCredentials.ufrag)
            var transaction = STUNBindingTransaction(
                attributes: attributes, integrity: STUNIntegrity(key: .shortTerm(password: remoteCredentials.password)),
                fingerprint: true, isReliable: false, timers: configuration.consentTimers, generator: &random)
            var deadline = now
            for action in transaction.start(at: now) {
                switch action {
                case .send(let bytes):
                    out.append(.send(bytes, from: local.base, to: entry.pair.remote.address))
                    statistics.consentRequestsSent += 1
                case .armTimer(let at): deadline = at
                case .finished: break
                }
            }
            if entry.transactions.count >= 3 { entry.transactions.removeFirst() }
            entry.transactions.append((transaction, deadline))
        }
        consent[component] = entry
    }

    /// A consent transaction's retransmission timer fired.
    mutating func consentTimerFired(component: Int, slot: Int, at now: STUNInstant, into out: inout [ICEAgentAction]) {
        guard var entry = consent[component], slot < entry.transactions.count else { return }
        for action in entry.transactions[slot].transaction.timerFired(at: now) {
            switch action {
            case .send(let bytes):
                out.append(.send(bytes, from: entry.pair.local.base, to: entry.pair.remote.address))
                statistics.consentRequestsSent += 1
            case .armTimer(let at): entry.transactions[slot].deadline = at
            case .finished:
                entry.transactions.remove(at: slot)
                consent[component] = entry
                return
            }
        }
        consent[component] = entry
    }

    /// A response that matched no check: a consent response refreshes consent if it authenticates and is
    /// symmetric.
    mutating func consentResponse(
        _ received: STUNReceivedMessage, on base: STUNTransportAddress, from source: STUNTransportAddress,
        at now: STUNInstant
    ) {
        let id = received.message.transactionID
        for (component, var entry) in consent {
            guard let slot = entry.transactions.firstIndex(where: { $0.transaction.transactionID == id }) else {
                continue
            }
            var outcome: STUNBindingOutcome?
            for case .finished(let result) in entry.transactions[slot].transaction.receive(received, at: now) {
                outcome = result
            }
            guard let outcome else { break }
            entry.transactions.remove(at: slot)
            if case .success = outcome, source == entry.pair.remote.address, base == entry.pair.local.base {
                entry.expiry = now + configuration.consentTimeout
            }
            consent[component] = entry
            return
        }
        statistics.ignored += 1
    }

    /// Any success on the selected pair's addresses refreshes its consent.
    mutating func refreshConsent(base: STUNTransportAddress, remote: STUNTransportAddress, at now: STUNInstant) {
        let matching = consent.filter { $0.value.pair.local.base == base && $0.value.pair.remote.address == remote }
        let expiry = now + configuration.consentTimeout
        for component in matching.keys { consent[component]?.expiry = expiry }
    }

    /// Consent expired (RFC 7675 §5.1): the pair stops being selected and media on it must stop.
    mutating func consentExpired(component: Int, into out: inout [ICEAgentAction]) {
        guard let entry = consent.removeValue(forKey: component) else { return }
        if let current = selected[component], current.local.address == entry.pair.local.address,
            current.remote.address == entry.pair.remote.address
        {
            selected[component] = nil
        }
        out.append(.event(.consentLost(entry.pair)))
    }
}
