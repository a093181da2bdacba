import ICE
import STUN

/// Gathering one call's candidates (RFC 8445 §5.1.1): the host candidates of its media sockets, server-reflexive
/// ones from a STUN Binding request from each socket to each STUN server, and the relayed ones its TURN
/// allocations report; complete when every request has ended, or at the deadline with what was found (there is
/// no Trickle ICE). Redundant candidates are dropped (§5.1.3). Pure: datagrams and instants in, datagrams to
/// send and the next deadline out.
struct CandidateGathering: Sendable {
    /// A Binding request to a STUN server from one socket.
    struct Probe: Sendable {
        let component: Int
        let base: STUNTransportAddress
        let server: STUNTransportAddress
        var transaction: STUNBindingTransaction
        var deadline: STUNInstant?
    }

    /// A datagram to send from a component's socket.
    struct Send: Sendable, Hashable {
        var bytes: [UInt8]
        var component: Int
        var destination: STUNTransportAddress
    }

    private(set) var candidates: [ICECandidate] = []
    private(set) var probes: [Probe] = []
    /// Relay allocations still running.
    private(set) var pendingRelays: Int
    let deadline: STUNInstant
    let isRelayOnly: Bool
    /// The Binding requests' timers: sent at 0, 0.1, 0.3, 0.7 and 1.5 s, within the default 3 s of gathering.
    static let probeTimers = STUNTransactionTimers(rto: serverRTO, rc: 5, rm: 16)
    /// The initial RTO of requests to STUN and TURN servers: 100 ms, as pjnath's, not RFC 8489 §6.2.1's
    /// recommended 500 ms. Gathering has 3 s (no Trickle ICE), and an Allocate takes two round trips (the
    /// 401, then the authenticated request): at 500 ms each gets three tries in time, and with 20% loss
    /// each way (36% of round trips lost) about one call in ten offered neither a relayed nor a reflexive
    /// candidate (seen in the NAT interop's loss case). At 100 ms each gets five tries by 1.5 s.
    static let serverRTO = Duration.milliseconds(100)
    /// A TURN client's timers: 0.1 s doubling, seven requests, 7.9 s to give up (RFC 8489 §6.2.1's Rc and Rm).
    static let relayTimers = STUNTransactionTimers(rto: serverRTO, rc: 7, rm: 16)

    /// - Parameters:
    ///   - hosts: each component's socket address (its host candidate and the base of the others).
    ///   - stunServers: the servers' addresses; those of another family than a socket are skipped.
    ///   - relays: how many TURN allocations were started (each reports `relayAllocated` or `relayFailed`).
    ///   - isRelayOnly: only relayed candidates are kept (no host candidate, no Binding request).
    ///   - deadline: when gathering stops waiting.
    ///   - generator: where the transaction IDs come from.
    init(
        hosts: [(component: Int, address: STUNTransportAddress)], stunServers: [STUNTransportAddress], relays: Int,
        isRelayOnly: Bool, deadline: STUNInstant, generator: inout some RandomNumberGenerator
    ) {
        pendingRelays = relays
        self.deadline = deadline
        self.isRelayOnly = isRelayOnly
        guard !isRelayOnly else { return }
        for (component, address) in hosts {
            candidates.append(
                .host(address: address, component: component, localPreference: Self.preference(address, rank: 0)))
            for server in stunServers where server.address.isIPv6Address == address.address.isIPv6Address {
                let transaction = STUNBindingTransaction(
                    fingerprint: true, isReliable: false, timers: Self.probeTimers, generator: &generator)
                probes.append(Probe(component: component, base: address, server: server, transaction: transaction))
            }
        }
    }

    /// The local preference of a candidate on an address (RFC 8421 interleaving by rank).
    static func preference(_ address: STUNTransportAddress, rank: Int) -> UInt16 {
        ICEPriority.localPreference(interfaceRank: rank, isIPv6: address.address.isIPv6Address)
    }

    /// Whether every request has ended, or the deadline passed (`now`).
    func isComplete(at now: STUNInstant) -> Bool {
        now >= deadline || (pendingRelays == 0 && probes.allSatisfy { $0.deadline == nil })
    }

    /// The earliest retransmission, or the deadline.
    var nextDeadline: STUNInstant {
        probes.compactMap(\.deadline).reduce(deadline) { min($0, $1) }
    }

    /// Sends every Binding request.
    mutating func start(at now: STUNInstant) -> [Send] {
        var out: [Send] = []
        for index in probes.indices {
            for action in probes[index].transaction.start(at: now) { apply(action, index, into: &out) }
        }
        return out
    }

    /// Retransmits and times out what is due.
    mutating func timerFired(at now: STUNInstant) -> [Send] {
        var out: [Send] = []
        for index in probes.indices {
            guard let due = probes[index].deadline, due <= now else { continue }
            for action in probes[index].transaction.timerFired(at: now) { apply(action, index, into: &out) }
        }
        return out
    }

    /// A STUN message from `source` on `component`'s socket: true when it answered one of the requests.
    mutating func receive(
        _ received: STUNReceivedMessage, component: Int, from source: STUNTransportAddress, at now: STUNInstant
    ) -> Bool {
        guard
            let index = probes.firstIndex(where: {
                $0.component == component && $0.server == source && $0.transaction.matches(received.message)
            })
        else { return false }
        var ignored: [Send] = []
        for action in probes[index].transaction.receive(received, at: now) { apply(action, index, into: &ignored) }
        return true
    }

    /// A TURN allocation on `server` succeeded: the relayed candidate (related address: the mapped one).
    mutating func relayAllocated(
        relayed: STUNTransportAddress, mapped: STUNTransportAddress?, base: STUNTransportAddress,
        server: STUNTransportAddress, component: Int, rank: Int
    ) {
        pendingRelays = max(0, pendingRelays - 1)
        let candidate = ICECandidate.relayed(
            address: relayed, mappedAddress: mapped ?? base, base: base, server: server.address, component: component,
            localPreference: Self.preference(relayed, rank: rank))
        guard !candidates.contains(where: { $0.address == relayed && $0.component == component }) else { return }
        candidates.append(candidate)
    }

    /// The mapping a TURN server over UDP saw for the socket the allocation was made from (XOR-MAPPED-ADDRESS
    /// of the Allocate response): a server-reflexive candidate too (RFC 8445 §5.1.1.2), found even when the
    /// Binding requests were lost. Not for relays over TCP or TLS, whose mapping is a stream's.
    mutating func reflexiveFromRelay(
        mapped: STUNTransportAddress, base: STUNTransportAddress, server: STUNTransportAddress, component: Int
    ) {
        guard !isRelayOnly else { return }
        addReflexive(mapped, base: base, server: server, component: component)
    }

    /// A TURN allocation failed (or its transport did).
    mutating func relayFailed() { pendingRelays = max(0, pendingRelays - 1) }

    /// The candidates by descending priority.
    var sortedCandidates: [ICECandidate] { candidates.sorted { $0.priority > $1.priority } }

    private mutating func apply(_ action: STUNTransactionAction, _ index: Int, into out: inout [Send]) {
        let probe = probes[index]
        switch action {
        case .send(let bytes): out.append(Send(bytes: bytes, component: probe.component, destination: probe.server))
        case .armTimer(let at): probes[index].deadline = at
        case .finished(let outcome):
            probes[index].deadline = nil
            if case .success(let mapped, _) = outcome {
                addReflexive(mapped, base: probe.base, server: probe.server, component: probe.component)
            }
        }
    }

    /// §5.1.3: a server-reflexive candidate equal to its base (no NAT) or to one already found is redundant.
    private mutating func addReflexive(
        _ mapped: STUNTransportAddress, base: STUNTransportAddress, server: STUNTransportAddress, component: Int
    ) {
        guard mapped != base, mapped.address.isIPv6Address == base.address.isIPv6Address,
            !candidates.contains(where: { $0.address == mapped && $0.component == component })
        else { return }
        candidates.append(
            .serverReflexive(
                address: mapped, base: base, server: server.address, component: component,
                localPreference: Self.preference(base, rank: 0)))
    }
}

extension STUNIPAddress {
    /// Whether this is an IPv6 address.
    var isIPv6Address: Bool {
        if case .v6 = self { return true }
        return false
    }
}
