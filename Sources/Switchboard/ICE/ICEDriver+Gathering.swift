import ICE
import SIPTransport
import STUN

/// Gathering (RFC 8445 §5.1.1) on the media loop: host candidates from the sockets, Binding requests to the STUN
/// servers from each, a TURN allocation per component and server; the gathered candidates go to the agent and
/// to the signalling side once `CandidateGathering` says it is complete.
extension ICEDriver {
    /// Starts gathering; `events.gathered` follows (at once when there is nothing to ask a server).
    func startGathering() {
        let now = self.now
        for (index, planned) in plan.relays.enumerated() {
            for component in plan.components {
                guard let socket = sockets.first(where: { $0.component == component }),
                    let relay = makeRelay(planned, rank: index, socket: socket)
                else { continue }
                relays.append(relay)
            }
        }
        var generator = random.generator
        let hosts = sockets.filter { plan.components.contains($0.component) }.map { ($0.component, $0.host) }
        var gathering = CandidateGathering(
            hosts: hosts, stunServers: plan.stunServers, relays: relays.count, isRelayOnly: plan.isRelayOnly,
            deadline: now + plan.gatheringTimeout, generator: &generator)
        let sends = gathering.start(at: now)
        self.gathering = gathering
        send(sends)
        for relay in relays { relay.start() }
        checkGathering()
        rearm()
    }

    /// A relay on `socket` to `planned`'s server, over its transport; `nil` when the families differ or the
    /// connection cannot be opened.
    private func makeRelay(_ planned: ICEPlan.Relay, rank: Int, socket: Socket) -> TURNRelay? {
        guard let server = STUNTransportAddress(planned.address),
            server.address.isIPv6Address == socket.host.address.isIPv6Address
        else { return nil }
        let link: TURNRelay.Link
        switch planned.server.transport.code {
        case .udp: link = .datagram(socket.socket)
        case .tcp, .tls:
            do throws(TransportError) {
                let context =
                    planned.server.transport == .tls ? try TLSContext(configuration: plan.tls, server: false) : nil
                link = .stream(
                    try TURNStreamLink(
                        network: network, loop: loop, server: planned.address, tls: context,
                        serverName: planned.server.host))
            } catch {
                return nil
            }
        }
        let configuration = TURNClientConfiguration(
            credentials: TURNCredentials(username: planned.server.username, password: planned.server.password),
            isReliable: planned.server.transport != .udp, timers: CandidateGathering.relayTimers)
        let transportRank = TURNServer.Transport.allCases.firstIndex(of: planned.server.transport) ?? 0
        let relay = TURNRelay(
            component: socket.component, server: server, base: socket.host, rank: rank * 3 + transportRank,
            configuration: configuration, link: link, loop: loop, clock: clock, random: random.generator)
        relay.onEvent = { [weak self, unowned relay] event in self?.relayEvent(event, from: relay) }
        return relay
    }

    private func relayEvent(_ event: TURNClientEvent, from relay: TURNRelay) {
        switch event {
        case .allocated(let relayed, let mapped, _):
            guard gathering != nil else { return }
            gathering?.relayAllocated(
                relayed: relayed, mapped: mapped, base: relay.base, server: relay.server, component: relay.component,
                rank: relay.rank)
            if let mapped, relay.isDatagram {
                gathering?.reflexiveFromRelay(
                    mapped: mapped, base: relay.base, server: relay.server, component: relay.component)
            }
            checkGathering()
            rearm()
        case .failed:
            let wasGathering = gathering != nil && relay.relayedAddress == nil
            // Its connection, if it has one, closes too.
            relay.close()
            relays.removeAll { $0 === relay }
            routes = routes.filter { _, route in
                if case .relay(let used, _) = route, used === relay { return false }
                return true
            }
            guard wasGathering else { return }
            gathering?.relayFailed()
            checkGathering()
            rearm()
        case .data(let peer, let payload): relayed(payload, from: peer, by: relay)
        case .refreshed, .permissionReady, .permissionFailed, .channelReady, .channelFailed, .closed: break
        }
    }

    /// A datagram from `from` on `component`'s socket, while gathering: true when it answered a Binding request.
    func receiveGathering(_ bytes: [UInt8], component: Int, from: STUNTransportAddress) -> Bool {
        guard let received = try? STUNReceivedMessage(decoding: bytes),
            gathering?.receive(received, component: component, from: from, at: now) == true
        else { return false }
        checkGathering()
        rearm()
        return true
    }

    func gatheringTimerFired(at now: STUNInstant) {
        guard let sends = gathering?.timerFired(at: now) else { return }
        send(sends)
        checkGathering()
    }

    private func send(_ sends: [CandidateGathering.Send]) {
        for item in sends {
            guard let socket = sockets.first(where: { $0.component == item.component }),
                let address = SocketAddress(item.destination)
            else { continue }
            socket.socket.send(item.bytes, to: address)
        }
    }

    /// Once gathering is complete: allocations still running are deleted (they are not in the SDP), the
    /// candidates of component 1 (and 2, for the answerer, who knows RTCP is not muxed) go to the agent, and
    /// the signalling side hears the candidates.
    private func checkGathering() {
        guard let current = gathering, current.isComplete(at: now) else { return }
        gathered = current.sortedCandidates
        gathering = nil
        for relay in relays where relay.relayedAddress == nil { relay.close() }
        relays.removeAll { $0.relayedAddress == nil }
        addLocalCandidates(component: 1)
        if !plan.isOfferer { addLocalCandidates(component: 2) }
        events.gathered(gathered)
    }
}
