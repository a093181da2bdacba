import STUN

/// The agent's timers, all derived from its state; the earliest is what the driver is asked to arm.
enum ICEDueItem: Hashable, Sendable {
    case pacing
    case check(Int)
    case nomination
    case consentCheck(component: Int)
    case consentTransaction(component: Int, slot: Int)
    case consentExpiry(component: Int)
}

extension ICEAgent {
    /// The earliest timer and what it is for.
    func nextDue() -> (at: STUNInstant, item: ICEDueItem)? {
        var best: (at: STUNInstant, item: ICEDueItem)?
        func offer(_ at: STUNInstant, _ item: ICEDueItem) {
            if best.map({ at < $0.at }) ?? true { best = (at, item) }
        }
        if let pacingDue { offer(pacingDue, .pacing) }
        for (slot, check) in pending.enumerated() { offer(check.deadline, .check(slot)) }
        if let at = nominationDue { offer(at, .nomination) }
        for (component, entry) in consent {
            offer(entry.nextCheck, .consentCheck(component: component))
            offer(entry.expiry, .consentExpiry(component: component))
            for (slot, transaction) in entry.transactions.enumerated() {
                offer(transaction.deadline, .consentTransaction(component: component, slot: slot))
            }
        }
        return best
    }

    /// When the controlling agent stops waiting for better pairs of some component (§8.1.1).
    private var nominationDue: STUNInstant? {
        guard role == .controlling, state != .completed else { return nil }
        var due: STUNInstant?
        for (component, first) in firstValidAt
        where nominating[component] == nil && !selectedNow.contains(component)
            && bestValidPair(component: component) != nil
        {
            let at = first + configuration.nominationDelay
            if due.map({ at < $0 }) ?? true { due = at }
        }
        return due
    }

    /// Fires every timer due at or before `now`, each at its own instant, in order.
    mutating func runDue(until now: STUNInstant, into out: inout [ICEAgentAction]) {
        // Each firing moves its timer later or removes it; the bound only guards against a bug looping.
        var budget = 100_000
        while budget > 0, let (at, item) = nextDue(), at <= now {
            budget -= 1
            switch item {
            case .pacing: pacingTick(at: at, into: &out)
            case .check(let slot): checkTimerFired(slot, at: at, into: &out)
            case .nomination: considerNomination(at: at)
            case .consentCheck(let component): consentTick(component: component, at: at, into: &out)
            case .consentTransaction(let component, let slot):
                consentTimerFired(component: component, slot: slot, at: at, into: &out)
            case .consentExpiry(let component): consentExpired(component: component, into: &out)
            }
            schedulePacing(at: at)
        }
    }

    /// Runs what is due, then asks for the timer if its instant changed.
    mutating func finish(at now: STUNInstant, into out: inout [ICEAgentAction]) {
        schedulePacing(at: now)
        runDue(until: now, into: &out)
        checkForFailure(into: &out)
        let next = nextDue()?.at
        if next != armed {
            armed = next
            if let next { out.append(.armTimer(at: next)) }
        }
    }
}
