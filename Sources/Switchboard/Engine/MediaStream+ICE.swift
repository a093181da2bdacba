import ICE
import Media
import SIPTransport
import STUN

/// A stream's ICE (RFC 8445) on the media loop: the driver takes the demultiplexer's STUN and ChannelData
/// (RFC 7983), symmetric RTP latching is off, and what the session sends goes on the selected pair.
extension MediaStream {
    /// Starts ICE: gathering on the stream's sockets (component 2 on the RTCP socket when the plan has it).
    func startICE(_ plan: ICEPlan, network: any NetworkStack, random: EngineRandom, events: ICEDriverEvents) {
        guard !session.isClosed, let host = STUNTransportAddress(rtp.localAddress) else {
            events.gathered([])
            return
        }
        var sockets = [ICEDriver.Socket(component: 1, socket: rtp, host: host)]
        if plan.components.contains(2), let rtcpHost = STUNTransportAddress(rtcpSocket.localAddress) {
            sockets.append(ICEDriver.Socket(component: 2, socket: rtcpSocket, host: rtcpHost))
        }
        let driver = ICEDriver(
            plan: plan, sockets: sockets, loop: loop, clock: clock, network: network, random: random, events: events)
        driver.onInbound = { [weak self] in
            guard let self else { return }
            self.drainICE()
            self.flush()
            self.arm()
        }
        // Later on the loop: a selection can come while the session hands the driver a check it received.
        driver.onSelected = { [weak self, loop] in loop.execute { [weak self] in self?.startDTLSIfReady() } }
        ice = driver
        session.isLatching = false
        let handler: MediaDatagramSeams<SocketAddress>.Handler = { [weak driver] bytes, source, port, _ in
            driver?.receive(bytes, from: source, port: port)
            return []
        }
        session.seams.stun = handler
        session.seams.turnChannelData = handler
        driver.startGathering()
    }

    /// The peer's ICE from a negotiation: to the agent, or (the peer does without ICE) the stream falls back to
    /// its sockets and latching, through the relay when that is where the peer was told to send.
    func updateICE(_ update: RemoteICEUpdate) {
        guard let ice, !session.isClosed else { return }
        switch update {
        case .ice(let remote, let isRTCPMuxed, let restart):
            ice.setRemote(remote, isRTCPMuxed: isRTCPMuxed, restart: restart)
        case .none(let defaults):
            session.isLatching = true
            if !ice.fallBack(defaults: defaults) {
                ice.close()
                self.ice = nil
                session.seams = MediaDatagramSeams()
            }
        }
        flush()
    }

    /// Hands the session what the relays unwrapped.
    func drainICE() {
        while let item = ice?.takeInbound() {
            session.receive(item.bytes, from: item.source, on: item.port, at: clock.now())
        }
        if !pendingDTLS.isEmpty { drainDTLS() }
    }
}

/// The peer's ICE, as the signalling side hands it to a stream.
enum RemoteICEUpdate: Sendable {
    /// The peer does ICE; `restart` carries this side's new credentials when its offer restarted ICE.
    case ice(RemoteICEDescription, isRTCPMuxed: Bool, restart: ICECredentials?)
    /// The peer does without ICE (or a middlebox broke it): this side's default candidates, per component.
    case none(defaults: [Int: ICECandidate])
}
