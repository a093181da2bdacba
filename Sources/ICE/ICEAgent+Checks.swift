import STUN

extension ICEAgent {
    /// One tick of Ta (§6.1.4.2): the head of the triggered queue, else the best Waiting pair, else a Frozen pair
    /// of a foundation with nothing Waiting or In-Progress.
    mutating func pacingTick(at now: STUNInstant, into out: inout [ICEAgentAction]) {
        pacingDue = nil
        guard remoteCredentials != nil else { return }
        if pending.count < configuration.maximumPendingChecks, let next = nextCheck() {
            startCheck(pair: next.pair, isNomination: next.isNomination, at: now, into: &out)
            lastCheckAt = now
        }
        schedulePacing(at: now)
    }

    /// Whether a tick would find a check to start: a triggered check, a Waiting pair, or a Frozen pair whose
    /// foundation has nothing Waiting or In-Progress.
    var hasCheckWork: Bool {
        if !triggered.isEmpty { return true }
        guard state != .completed else { return false }
        var active = Set<String>()
        var frozen = Set<String>()
        for pair in pairs where pair.isInCheckList {
            switch pair.state {
            case .waiting: return true
            case .inProgress: active.insert(pair.foundation)
            case .frozen: frozen.insert(pair.foundation)
            case .succeeded, .failed: break
            }
        }
        return !frozen.isSubset(of: active)
    }

    /// Arms the pacing timer if there is work and it is not armed: Ta after the last check.
    mutating func schedulePacing(at now: STUNInstant) {
        guard pacingDue == nil, remoteCredentials != nil, hasCheckWork else { return }
        pacingDue = lastCheckAt.map { max(now, $0 + configuration.pacing) } ?? now
    }

    private mutating func nextCheck() -> ICETriggeredCheck? {
        while !triggered.isEmpty {
            let check = triggered.removeFirst()
            guard check.pair < pairs.count else { continue }
            if !check.isNomination, pairs[check.pair].state == .inProgress || pairs[check.pair].state == .succeeded {
                continue
            }
            return check
        }
        guard state != .completed else { return nil }
        if let pair = bestPair(in: .waiting) { return ICETriggeredCheck(pair: pair, isNomination: false) }
        unfreezeInitial()
        return bestPair(in: .waiting).map { ICETriggeredCheck(pair: $0, isNomination: false) }
    }

    private func bestPair(in state: ICEPairState) -> Int? {
        var best: Int?
        for (index, pair) in pairs.enumerated() where pair.isInCheckList && pair.state == state {
            if best.map({ pairs[$0].priority < pair.priority }) ?? true { best = index }
        }
        return best
    }

    /// The attributes of a check or consent request (§7.1): USERNAME, PRIORITY, the role, USE-CANDIDATE.
    func checkAttributes(local: ICECandidate, isNomination: Bool, remoteUfrag: String) -> (
        [STUNAttribute], UInt32
    ) {
        let localPreference = UInt16(truncatingIfNeeded: local.priority >> 8)
        let priority = ICEPriority.candidate(
            type: .peerReflexive, localPreference: localPreference, component: local.component)
        var attributes: [STUNAttribute] = [
            .username("\(remoteUfrag):\(localCredentials.ufrag)"), .priority(priority),
            role == .controlling ? .iceControlling(tieBreaker: tieBreaker) : .iceControlled(tieBreaker: tieBreaker),
        ]
        if isNomination { attributes.append(.useCandidate) }
        return (attributes, priority)
    }

    /// Starts a check on `pair` as one Binding transaction, RTO per §14.3. A nomination (USE-CANDIDATE on a
    /// pair already valid) takes the RTO floor alone: the pacing term spreads the checks that discover
    /// paths, and pairs to unreachable candidates keep it high for seconds, while the call waits on this
    /// one transaction over a path known to work.
    mutating func startCheck(pair index: Int, isNomination: Bool, at now: STUNInstant, into out: inout [ICEAgentAction])
    {
        guard let remoteCredentials else { return }
        let pair = pairs[index]
        let local = locals[pair.local]
        let remote = remotes[pair.remote]
        let nominating = isNomination && role == .controlling
        let (attributes, priority) = checkAttributes(
            local: local, isNomination: nominating, remoteUfrag: remoteCredentials.ufrag)
        let active = pairs.count { $0.state == .waiting || $0.state == .inProgress }
        let rto =
            nominating
            ? configuration.checkTimers.rto : max(configuration.checkTimers.rto, configuration.pacing * max(active, 1))
        let timers = STUNTransactionTimers(rto: rto, rc: configuration.checkTimers.rc, rm: configuration.checkTimers.rm)
        var transaction = STUNBindingTransaction(
            attributes: attributes, integrity: STUNIntegrity(key: .shortTerm(password: remoteCredentials.password)),
            fingerprint: true, isReliable: false, timers: timers, generator: &random)
        var deadline = now
        for action in transaction.start(at: now) {
            switch action {
            case .send(let bytes): out.append(.send(bytes, from: local.base, to: remote.address))
            case .armTimer(let at): deadline = at
            case .finished: break
            }
        }
        if pair.state != .succeeded { pairs[index].state = .inProgress }
        pending.append(
            ICEPendingCheck(
                transaction: transaction, pair: index, isNomination: nominating, role: role, base: local.base,
                destination: remote.address, deadline: deadline, reflexivePriority: priority))
        statistics.checksStarted += 1
        statistics.checkRequestsSent += 1
    }

    /// A check's retransmission timer fired.
    mutating func checkTimerFired(_ slot: Int, at now: STUNInstant, into out: inout [ICEAgentAction]) {
        let check = pending[slot]
        for action in pending[slot].transaction.timerFired(at: now) {
            switch action {
            case .send(let bytes):
                guard !check.isCancelled else { continue }
                out.append(.send(bytes, from: check.base, to: check.destination))
                statistics.checkRequestsSent += 1
            case .armTimer(let at): pending[slot].deadline = at
            case .finished:
                pending.remove(at: slot)
                if !check.isCancelled { checkFailed(check, at: now, into: &out) }
                return
            }
        }
    }

    /// A response to a check or a consent request.
    mutating func handleResponse(
        _ received: STUNReceivedMessage, on base: STUNTransportAddress, from source: STUNTransportAddress,
        at now: STUNInstant, into out: inout [ICEAgentAction]
    ) {
        let id = received.message.transactionID
        guard let slot = pending.firstIndex(where: { $0.transaction.transactionID == id }) else {
            consentResponse(received, on: base, from: source, at: now)
            return
        }
        var outcome: STUNBindingOutcome?
        for case .finished(let result) in pending[slot].transaction.receive(received, at: now) { outcome = result }
        guard let outcome else {
            statistics.ignored += 1
            return
        }
        let check = pending.remove(at: slot)
        // §7.2.5.2.1: the response must come from where the request went, to where it left from.
        guard source == check.destination, base == check.base else {
            checkFailed(check, at: now, into: &out)
            return
        }
        switch outcome {
        case .success(let mapped, _): checkSucceeded(check, mapped: mapped, at: now, into: &out)
        case .errorResponse(let code, _, _) where code == .roleConflict:
            // §7.2.5.1: switch role if the request carried the current one, then check the pair again.
            if check.role == role { switchRole(to: role == .controlling ? .controlled : .controlling, into: &out) }
            if check.isNomination { nominating[pairs[check.pair].component] = nil }
            if pairs[check.pair].state == .inProgress { pairs[check.pair].state = .waiting }
            enqueueTriggered(ICETriggeredCheck(pair: check.pair, isNomination: false))
        default: checkFailed(check, at: now, into: &out)
        }
    }

    /// A check timed out, got an error, or was not symmetric.
    mutating func checkFailed(_ check: ICEPendingCheck, at now: STUNInstant, into out: inout [ICEAgentAction]) {
        guard check.pair < pairs.count else { return }
        let component = pairs[check.pair].component
        if check.isNomination {
            // The nominated pair did not answer: it is no longer valid, and another may be nominated.
            if nominating[component] == check.pair { nominating[component] = nil }
            if let valid = pairs[check.pair].validPair { pairs[valid].isValid = false }
            pairs[check.pair].isValid = false
            pairs[check.pair].state = .failed
        } else if pairs[check.pair].state != .succeeded {
            pairs[check.pair].state = .failed
        }
        considerNomination(at: now)
        checkForFailure(into: &out)
    }

    /// §7.2.5.3: the pair succeeds; the valid pair is the local candidate of the mapped address (a new
    /// peer-reflexive one if none, §7.2.5.3.1) with the remote candidate; its foundation unfreezes.
    mutating func checkSucceeded(
        _ check: ICEPendingCheck, mapped: STUNTransportAddress, at now: STUNInstant, into out: inout [ICEAgentAction]
    ) {
        let index = check.pair
        guard index < pairs.count else { return }
        statistics.checkSuccesses += 1
        pairs[index].state = .succeeded
        pairs[index].lastResponse = now
        let pair = pairs[index]
        let local =
            locals.firstIndex { $0.address == mapped && $0.base == check.base && $0.component == pair.component }
            ?? learnLocal(mapped: mapped, base: check.base, priority: check.reflexivePriority, from: pair.local)
        let valid = (local == pair.local ? index : local.flatMap { validPair(local: $0, remote: pair.remote) }) ?? index
        let isNew = !pairs[valid].isValid
        pairs[valid].isValid = true
        pairs[valid].lastResponse = now
        pairs[index].validPair = valid
        if firstValidAt[pair.component] == nil { firstValidAt[pair.component] = now }
        refreshConsent(base: check.base, remote: check.destination, at: now)
        if isNew { out.append(.event(.pairSucceeded(info(valid)))) }
        unfreeze(foundation: pair.foundation)
        if check.isNomination, role == .controlling {
            nominating[pair.component] = nil
            select(valid, at: now, into: &out)
        } else if role == .controlled, pairs[index].nominateOnSuccess {
            select(valid, at: now, into: &out)
        }
        considerNomination(at: now)
    }

    /// A peer-reflexive local candidate (§7.2.5.3.1): the mapped address, based on the check's base, with the
    /// priority the request carried; `nil` if the table is full.
    private mutating func learnLocal(
        mapped: STUNTransportAddress, base: STUNTransportAddress, priority: UInt32, from: Int
    )
        -> Int?
    {
        guard locals.count < configuration.maximumLocalCandidates else { return nil }
        let origin = locals[from]
        locals.append(
            ICECandidate(
                foundation: ICEFoundation.compute(
                    type: .peerReflexive, baseAddress: base.address, server: nil, transport: .udp),
                component: origin.component, priority: priority, address: mapped, type: .peerReflexive,
                relatedAddress: base))
        return locals.count - 1
    }
}
