import STUN

extension ICEAgent {
    /// Pairs a new local candidate with every remote candidate (§6.1.2.2).
    mutating func formPairs(local index: Int) {
        for remote in remotes.indices { addPair(local: index, remote: remote) }
        unfreezeInitial()
    }

    /// Pairs a new remote candidate with every local candidate (§6.1.2.2).
    mutating func formPairs(remote index: Int) {
        for local in locals.indices { addPair(local: local, remote: index) }
        unfreezeInitial()
    }

    /// The local candidate a pair is formed with: a reflexive candidate is replaced by its base (§6.1.2.4), the
    /// host candidate of that address; `nil` for peer-reflexive candidates, which are never paired.
    func pairingLocal(_ index: Int) -> Int? {
        let candidate = locals[index]
        switch candidate.type {
        case .peerReflexive: return nil
        case .serverReflexive:
            return locals.firstIndex {
                $0.type == .host && $0.address == candidate.base && $0.component == candidate.component
            } ?? index
        default: return index
        }
    }

    /// Adds the pair if it is new, of one component and address family, and the table has room (§6.1.2.2,
    /// §6.1.2.4, §6.1.2.5: redundant pairs are not added; beyond the limit new pairs are dropped).
    mutating func addPair(local candidateIndex: Int, remote: Int) {
        guard let local = pairingLocal(candidateIndex) else { return }
        let l = locals[local]
        let r = remotes[remote]
        guard l.component == r.component, l.address.address.isIPv6 == r.address.address.isIPv6 else { return }
        guard !pairs.contains(where: { $0.local == local && $0.remote == remote }) else { return }
        guard pairs.count < configuration.maximumPairs else { return }
        pairs.append(
            ICECandidatePair(
                local: local, remote: remote, component: l.component, priority: pairPriority(l, r),
                foundation: l.foundation + ":" + r.foundation, state: .frozen, isInCheckList: true))
        if state == .failed { state = .running }
    }

    /// A pair outside the check list, for a valid pair a check produced (§7.2.5.3.2); `nil` if the table is full.
    mutating func validPair(local: Int, remote: Int) -> Int? {
        if let index = pairs.firstIndex(where: { $0.local == local && $0.remote == remote }) { return index }
        guard pairs.count < configuration.maximumPairs else { return nil }
        let l = locals[local]
        let r = remotes[remote]
        pairs.append(
            ICECandidatePair(
                local: local, remote: remote, component: l.component, priority: pairPriority(l, r),
                foundation: l.foundation + ":" + r.foundation, state: .succeeded, isInCheckList: false))
        return pairs.count - 1
    }

    /// §6.1.2.3: G is the controlling agent's candidate priority.
    func pairPriority(_ local: ICECandidate, _ remote: ICECandidate) -> UInt64 {
        role == .controlling
            ? ICEPriority.pair(controlling: local.priority, controlled: remote.priority)
            : ICEPriority.pair(controlling: remote.priority, controlled: local.priority)
    }

    mutating func recomputePriorities() {
        for index in pairs.indices {
            pairs[index].priority = pairPriority(locals[pairs[index].local], remotes[pairs[index].remote])
        }
    }

    /// §6.1.2.6: for each foundation with no pair Waiting or In-Progress, the frozen pair of the lowest component
    /// and highest priority becomes Waiting.
    mutating func unfreezeInitial() {
        var active = Set<String>()
        for pair in pairs where pair.isInCheckList && (pair.state == .waiting || pair.state == .inProgress) {
            active.insert(pair.foundation)
        }
        var best: [String: Int] = [:]
        for (index, pair) in pairs.enumerated() where pair.isInCheckList && pair.state == .frozen {
            guard !active.contains(pair.foundation) else { continue }
            if let current = best[pair.foundation] {
                let other = pairs[current]
                if (pair.component, other.priority) < (other.component, pair.priority) { best[pair.foundation] = index }
            } else {
                best[pair.foundation] = index
            }
        }
        for index in best.values { pairs[index].state = .waiting }
    }

    /// §7.2.5.3.3: a success unfreezes the frozen pairs of its foundation.
    mutating func unfreeze(foundation: String) {
        for index in pairs.indices where pairs[index].state == .frozen && pairs[index].foundation == foundation {
            pairs[index].state = .waiting
        }
    }

    /// The role changes (a repaired conflict or a lite peer): priorities are recomputed (§7.3.1.1).
    mutating func switchRole(to newRole: ICERole, into out: inout [ICEAgentAction]) {
        guard newRole != role else { return }
        role = newRole
        recomputePriorities()
        if newRole == .controlled { nominating = [:] }
        out.append(.event(.roleChanged(newRole)))
    }

    func info(_ index: Int) -> ICEPairInfo {
        let pair = pairs[index]
        return ICEPairInfo(
            component: pair.component, local: locals[pair.local], remote: remotes[pair.remote],
            priority: pair.priority, state: pair.state, isNominated: pair.isNominated)
    }

    /// The valid pair of `component` with the highest priority.
    func bestValidPair(component: Int) -> Int? {
        var best: Int?
        for (index, pair) in pairs.enumerated() where pair.isValid && pair.component == component {
            if best.map({ pairs[$0].priority < pair.priority }) ?? true { best = index }
        }
        return best
    }

    /// The nominated valid pair becomes the selected pair of its component (§8.1.1); when every component has
    /// one, the check list is Completed (§8.1.2) and consent freshness starts on each (RFC 7675).
    mutating func select(_ index: Int, at now: STUNInstant, into out: inout [ICEAgentAction]) {
        pairs[index].isNominated = true
        let chosen = info(index)
        let component = chosen.component
        if let current = selected[component], selectedNow.contains(component),
            current.local.address == chosen.local.address, current.remote.address == chosen.remote.address
        {
            return
        }
        selected[component] = chosen
        selectedNow.insert(component)
        consent[component] = ICEConsent(
            pair: chosen, nextCheck: now + consentJitter(),
            expiry: (pairs[index].lastResponse ?? now) + configuration.consentTimeout)
        out.append(.event(.selected(chosen)))
        if state != .completed, components.isSubset(of: selectedNow) {
            state = .completed
            previousLocalCredentials = nil
            out.append(.event(.completed))
        }
    }

    /// The controlling agent nominates (§8.1.1) once the best valid pair of a component cannot be beaten by a
    /// pair still being checked, or after ``ICEAgentConfiguration/nominationDelay``: it repeats the check that
    /// produced the pair, with USE-CANDIDATE, through the triggered queue.
    mutating func considerNomination(at now: STUNInstant) {
        guard role == .controlling, state != .completed else { return }
        for component in components.sorted() where nominating[component] == nil && !selectedNow.contains(component) {
            guard let best = bestValidPair(component: component) else { continue }
            let priority = pairs[best].priority
            let betterPending = pairs.contains {
                $0.isInCheckList && $0.component == component && $0.priority > priority
                    && ($0.state == .frozen || $0.state == .waiting || $0.state == .inProgress)
            }
            let waited = firstValidAt[component].map { now >= $0 + configuration.nominationDelay } ?? true
            guard !betterPending || waited else { continue }
            let checked =
                pairs[best].isInCheckList ? best : (pairs.firstIndex { $0.validPair == best } ?? best)
            nominating[component] = checked
            enqueueTriggered(ICETriggeredCheck(pair: checked, isNomination: true))
        }
    }

    mutating func enqueueTriggered(_ check: ICETriggeredCheck) {
        guard !triggered.contains(check), triggered.count < configuration.maximumTriggeredChecks else { return }
        triggered.append(check)
    }

    /// §8.1.2: the check list fails when every pair failed, nothing is in flight or queued, and some component
    /// has no valid pair.
    mutating func checkForFailure(into out: inout [ICEAgentAction]) {
        guard state == .running, remoteCredentials != nil, pending.isEmpty, triggered.isEmpty else { return }
        let list = pairs.filter(\.isInCheckList)
        guard !list.isEmpty, list.allSatisfy({ $0.state == .failed }) else { return }
        let covered = components.allSatisfy { component in pairs.contains { $0.isValid && $0.component == component } }
        guard !covered else { return }
        state = .failed
        out.append(.event(.failed))
    }
}

extension STUNIPAddress {
    var isIPv6: Bool {
        if case .v6 = self { return true }
        return false
    }
}
