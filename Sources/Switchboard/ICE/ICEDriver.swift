import ICE
import Media
import SIPTransport
import STUN

/// Carries out one call's ICE on the media loop: the agent's sends through the right base (a media socket, or a
/// TURN allocation as a Send indication, then ChannelData once the selected pair's channel is bound), its timer,
/// the datagrams the stream's demultiplexer hands over (STUN and ChannelData: to the agent, to gathering, to the
/// relays), and the media the session sends, on the selected pair. Gathering is in `ICEDriver+Gathering.swift`.
/// Loop-confined; the agent, gathering and TURN clients are sans-I/O.
final class ICEDriver {
    /// A component's media socket and its host address.
    struct Socket {
        let component: Int
        let socket: DatagramSocket
        let host: STUNTransportAddress
    }

    /// Where a component's media goes.
    enum Route {
        /// From a media socket to the peer.
        case direct(DatagramSocket, SocketAddress)
        /// Through a TURN allocation to the peer.
        case relay(TURNRelay, STUNTransportAddress)
    }

    /// A datagram a relay unwrapped, for the session.
    struct Inbound {
        var bytes: [UInt8]
        var source: SocketAddress
        var port: MediaPort
    }

    let loop: any EventLoopProtocol
    let clock: any MediaClock
    let network: any NetworkStack
    let random: EngineRandom
    let sockets: [Socket]
    let plan: ICEPlan
    let events: ICEDriverEvents
    var agent: ICEAgent<EngineRandomGenerator>
    var gathering: CandidateGathering?
    var relays: [TURNRelay] = []
    /// What gathering found (what the SDP offers).
    var gathered: [ICECandidate] = []
    /// The components whose local candidates the agent has.
    var components: Set<Int> = []
    var routes: [Int: Route] = [:]
    /// Without ICE in the answer and a relayed default candidate: media keeps going through this relay, to
    /// where the session sends (RFC 8445 §5.1.4's point of relayed defaults).
    var fallbackRelays: [Int: TURNRelay] = [:]
    var agentDeadline: STUNInstant?
    var timer: (handle: TimerHandle, at: STUNInstant)?
    var inbound: [Inbound] = []
    var isReceiving = false
    var isClosed = false
    /// Relayed media the driver unwrapped outside a socket read (TURN over TCP or TLS): the stream drains it.
    var onInbound: () -> Void = {}
    /// A pair was selected (on the media loop): what waits for a path (DTLS) may start.
    var onSelected: () -> Void = {}
    /// Media datagrams sent through a relay, and sent directly; datagrams dropped for want of a route.
    private(set) var relayedPackets = 0
    private(set) var directPackets = 0
    private(set) var unroutedPackets = 0

    init(
        plan: ICEPlan, sockets: [Socket], loop: any EventLoopProtocol, clock: any MediaClock,
        network: any NetworkStack, random: EngineRandom, events: ICEDriverEvents
    ) {
        self.plan = plan
        self.sockets = sockets
        self.loop = loop
        self.clock = clock
        self.network = network
        self.random = random
        self.events = events
        agent = ICEAgent(
            configuration: ICEAgentConfiguration(initialRole: plan.role), credentials: plan.credentials,
            generator: random.generator)
    }

    var now: STUNInstant { STUNInstant(nanoseconds: clock.now().nanoseconds) }

    /// The selected pair of component 1, if any.
    var selectedPair: ICEPairInfo? { agent.selectedPair(component: 1) }

    // MARK: Datagrams in

    /// A STUN or ChannelData datagram that came in on `port`'s socket (from the stream's demultiplexer).
    func receive(_ bytes: [UInt8], from source: SocketAddress, port: MediaPort) {
        guard !isClosed, let socket = socket(for: port) else { return }
        isReceiving = true
        defer { isReceiving = false }
        guard let from = STUNTransportAddress(source) else { return }
        // Gathering first: a STUN server is often the TURN server itself, on the same address and port.
        if gathering != nil, receiveGathering(bytes, component: socket.component, from: from) { return }
        if let relay = relays.first(where: { $0.isServer(source, on: socket.socket) }) {
            relay.receive(bytes)
            return
        }
        run(agent.receive(bytes, on: socket.host, from: from, at: now))
    }

    /// Takes the next datagram a relay unwrapped, for the session.
    func takeInbound() -> Inbound? { inbound.isEmpty ? nil : inbound.removeFirst() }

    /// Data a relay brought from `peer`: a connectivity check for the agent, media for the session.
    func relayed(_ payload: [UInt8], from peer: STUNTransportAddress, by relay: TURNRelay) {
        guard let first = payload.first else { return }
        if first < 4 {
            guard let base = relay.relayedAddress else { return }
            run(agent.receive(payload, on: base, from: peer, at: now))
            return
        }
        guard let source = SocketAddress(peer) else { return }
        inbound.append(Inbound(bytes: payload, source: source, port: relay.component == 1 ? .rtp : .rtcp))
        if !isReceiving { onInbound() }
    }

    // MARK: Media out

    /// Sends one of the session's datagrams: on the selected pair of its component, or through the fallback
    /// relay to `destination`; false when there is no route yet (the datagram is dropped, RFC 7675 §4: no
    /// media before consent).
    @discardableResult
    func send(_ bytes: [UInt8], to destination: SocketAddress, from port: MediaPort) -> Bool {
        let component = port == .rtp ? 1 : 2
        if let route = routes[component] {
            switch route {
            case .direct(let socket, let address):
                socket.send(bytes, to: address)
                directPackets += 1
            case .relay(let relay, let peer):
                relay.send(bytes, to: peer)
                relayedPackets += 1
            }
            return true
        }
        if let relay = fallbackRelays[component], let peer = STUNTransportAddress(destination) {
            // ChannelData once bound (the client asks for the binding once per peer, RFC 8656 §12).
            relay.bindChannel(to: peer)
            relay.send(bytes, to: peer)
            relayedPackets += 1
            return true
        }
        unroutedPackets += 1
        return false
    }

    // MARK: Signalling

    /// The peer's ICE from its offer or answer: its credentials and candidates go to the agent (a restart
    /// first when `restart` brings this side's new credentials, or when the peer's credentials changed); with
    /// rtcp-mux only component 1 is checked and component 2's relays are released.
    func setRemote(_ remote: RemoteICEDescription, isRTCPMuxed: Bool, restart: ICECredentials?) {
        guard !isClosed else { return }
        if let restart {
            run(agent.restart(credentials: restart, at: now))
        } else if let known = agent.remoteCredentials, known != remote.credentials {
            run(agent.restart(credentials: agent.localCredentials, at: now))
        }
        if isRTCPMuxed {
            release(component: 2)
        } else {
            addLocalCandidates(component: 2)
        }
        run(agent.setRemoteParameters(credentials: remote.credentials, isLite: remote.isLite, at: now))
        for candidate in remote.candidates where candidate.component == 1 || !isRTCPMuxed {
            if let actions = try? agent.addRemoteCandidate(candidate, at: now) { run(actions) }
            for relay in relays where relay.component == candidate.component && relay.relayedAddress != nil {
                relay.createPermission(for: candidate.address.address)
            }
        }
    }

    /// The peer does without ICE: media goes to where the session sends. With a relayed default candidate
    /// (the c=/m= address the peer sends to) it keeps going through that relay; returns false when the
    /// stream can drop the driver and send from its sockets.
    func fallBack(defaults: [Int: ICECandidate]) -> Bool {
        for (component, candidate) in defaults where candidate.type == .relayed {
            fallbackRelays[component] = relays.first { $0.relayedAddress == candidate.address }
        }
        for relay in relays where !fallbackRelays.values.contains(where: { $0 === relay }) { relay.close() }
        relays.removeAll { relay in !fallbackRelays.values.contains { $0 === relay } }
        routes = [:]
        return !fallbackRelays.isEmpty
    }

    /// Deletes the allocations and stops.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        for relay in relays { relay.close() }
        relays = []
        fallbackRelays = [:]
        if let timer { loop.cancelTimer(timer.handle) }
        timer = nil
    }

    // MARK: The agent

    func run(_ actions: [ICEAgentAction]) {
        for action in actions {
            switch action {
            case .send(let bytes, let base, let destination): send(bytes, from: base, to: destination)
            case .armTimer(let at):
                agentDeadline = at
                rearm()
            case .event(let event): handle(event)
            }
        }
    }

    private func send(_ bytes: [UInt8], from base: STUNTransportAddress, to destination: STUNTransportAddress) {
        if let relay = relays.first(where: { $0.relayedAddress == base }) {
            relay.send(bytes, to: destination)
        } else if let socket = sockets.first(where: { $0.host == base }), let address = SocketAddress(destination) {
            socket.socket.send(bytes, to: address)
        }
    }

    private func handle(_ event: ICEEvent) {
        switch event {
        case .selected(let pair):
            routes[pair.component] = route(for: pair)
            if case .relay(let relay, let peer) = routes[pair.component] { relay.bindChannel(to: peer) }
            events.selected(pair)
            onSelected()
        case .consentLost(let pair):
            routes[pair.component] = nil
            events.consentLost(pair)
        case .failed: events.failed()
        case .pairSucceeded, .completed, .roleChanged: break
        }
    }

    private func route(for pair: ICEPairInfo) -> Route? {
        if pair.local.type == .relayed {
            return relays.first { $0.relayedAddress == pair.local.address }.map { .relay($0, pair.remote.address) }
        }
        guard let socket = sockets.first(where: { $0.host == pair.local.base }),
            let address = SocketAddress(pair.remote.address)
        else { return nil }
        return .direct(socket.socket, address)
    }

    /// Adds gathering's candidates of `component` to the agent (once).
    func addLocalCandidates(component: Int) {
        guard gathering == nil, !components.contains(component),
            gathered.contains(where: { $0.component == component })
        else { return }
        components.insert(component)
        for candidate in gathered where candidate.component == component {
            if let actions = try? agent.addLocalCandidate(candidate, at: now) { run(actions) }
        }
    }

    /// Component 2 is not used (rtcp-mux): its allocations are deleted.
    private func release(component: Int) {
        for relay in relays where relay.component == component { relay.close() }
        relays.removeAll { $0.component == component }
    }

    func socket(for port: MediaPort) -> Socket? {
        let component = port == .rtp ? 1 : 2
        return sockets.first { $0.component == component }
    }

    // MARK: Timer

    /// Arms the loop timer for the agent's or gathering's earliest deadline.
    func rearm() {
        guard !isClosed else { return }
        let next = [agentDeadline, gathering?.nextDeadline].compactMap { $0 }.min()
        if let timer {
            guard timer.at != next else { return }
            loop.cancelTimer(timer.handle)
            self.timer = nil
        }
        guard let next else { return }
        let delay = Duration.nanoseconds(max(0, next.nanoseconds - now.nanoseconds))
        let handle = loop.scheduleTimer(after: delay) { [weak self] in self?.fire() }
        timer = (handle, next)
    }

    private func fire() {
        timer = nil
        guard !isClosed else { return }
        let now = self.now
        if let due = gathering?.nextDeadline, due <= now { gatheringTimerFired(at: now) }
        // The agent runs only once its instant came (a loop timer may fire a little early on another clock).
        if let due = agentDeadline, due <= now {
            agentDeadline = nil
            run(agent.advance(to: now))
        }
        rearm()
    }
}
