import Media
import SIPTransport
import STUN

/// One TURN allocation of a call (RFC 8656) on the media loop: a sans-I/O `TURNClient`, the transport to its
/// server (the component's own media socket over UDP, or a `TURNStreamLink` over TCP or TLS), and its timer.
/// What the server relays from peers, and what happens to the allocation, goes to `onEvent`. Loop-confined.
final class TURNRelay {
    /// How the relay reaches its server.
    enum Link {
        /// Datagrams from the component's media socket; the server's answers come back through the stream's
        /// demultiplexer (`receive(_:)`).
        case datagram(DatagramSocket)
        /// A TCP or TLS connection of its own.
        case stream(TURNStreamLink)
    }

    let component: Int
    /// The server's address.
    let server: STUNTransportAddress
    let serverSocketAddress: SocketAddress
    /// The host address the allocation was made from (part of the relayed candidate's foundation).
    let base: STUNTransportAddress
    /// The server's place in the configuration and its transport: orders the relayed candidates' priorities.
    let rank: Int
    /// Something happened: allocated, data from a peer, a channel bound, the allocation lost.
    var onEvent: (TURNClientEvent) -> Void = { _ in }

    private var client: TURNClient<EngineRandomGenerator>
    private let link: Link
    private let loop: any EventLoopProtocol
    private let clock: any MediaClock
    private var timer: (handle: TimerHandle, at: STUNInstant)?
    private var isClosed = false
    /// The peers a channel was asked for.
    private var channelsAsked: Set<STUNTransportAddress> = []

    /// A relay on `link` to `server`; nothing is sent until `start()`.
    init(
        component: Int, server: STUNTransportAddress, base: STUNTransportAddress, rank: Int,
        configuration: TURNClientConfiguration, link: Link, loop: any EventLoopProtocol, clock: any MediaClock,
        random: EngineRandomGenerator
    ) {
        self.component = component
        self.server = server
        serverSocketAddress = SocketAddress(server) ?? .loopback()
        self.base = base
        self.rank = rank
        self.link = link
        self.loop = loop
        self.clock = clock
        client = TURNClient(configuration: configuration, random: random)
        if case .stream(let stream) = link {
            stream.onBytes = { [weak self] bytes in self?.receiveStream(bytes) }
            stream.onReady = { [weak self] in self?.begin() }
            stream.onClosed = { [weak self] error in self?.linkClosed(error) }
        }
    }

    /// Whether the relay talks to its server over the component's media socket (UDP).
    var isDatagram: Bool {
        if case .datagram = link { return true }
        return false
    }

    /// The relayed transport address, once allocated.
    var relayedAddress: STUNTransportAddress? { client.relayedAddress }

    /// Whether the relay's server talks to it over `socket`'s datagrams from `source`.
    func isServer(_ source: SocketAddress, on socket: DatagramSocket) -> Bool {
        guard case .datagram(let own) = link else { return false }
        return own === socket && source == serverSocketAddress
    }

    /// Sends the Allocate (over a stream, once it is connected).
    func start() {
        if case .datagram = link { begin() }
    }

    /// A datagram the server sent to the component's socket.
    func receive(_ bytes: [UInt8]) { run(client.receive(bytes, at: now)) }

    /// Relays `payload` to `peer`: ChannelData once a channel is bound, a Send indication before (RFC 8656
    /// §11.2, §12.5).
    func send(_ payload: [UInt8], to peer: STUNTransportAddress) { run(client.send(payload, to: peer, at: now)) }

    /// Installs a permission for `peer`'s address, so the server relays what it sends (RFC 8656 §9).
    func createPermission(for peer: STUNIPAddress) { run(client.createPermission(for: peer, at: now)) }

    /// Binds a channel to `peer` (RFC 8656 §12): the media on the selected pair goes as ChannelData. Asked once
    /// per peer: a binding the server refused is not asked for again (media goes as Send indications).
    func bindChannel(to peer: STUNTransportAddress) {
        guard !channelsAsked.contains(peer), channelsAsked.count < 64 else { return }
        channelsAsked.insert(peer)
        run(client.bindChannel(to: peer, at: now))
    }

    /// Deletes the allocation (a Refresh with LIFETIME 0) and stops. A stream closes once the server answered,
    /// or after `closingGrace` (the allocation ends with the connection anyway, RFC 8656 §3.1): closing at once
    /// would reset the connection before the request is read.
    func close() {
        guard !isClosed else { return }
        onEvent = { _ in }
        run(client.close(at: now))
        isClosed = true
        if let timer { loop.cancelTimer(timer.handle) }
        timer = nil
        guard case .stream(let stream) = link else { return }
        // The handlers hold the relay (and its client) until the stream closes, then let go of it.
        let finish = {
            stream.close()
            stream.onBytes = { _ in }
        }
        stream.onBytes = { [self] bytes in
            for case .event(.closed) in client.receive(streamBytes: bytes, at: now) { finish() }
        }
        stream.onClosed = { _ in }
        _ = loop.scheduleTimer(after: Self.closingGrace) { finish() }
    }

    /// How long a stream stays open for the answer to the deallocation.
    static let closingGrace = Duration.seconds(2)

    private var now: STUNInstant { STUNInstant(nanoseconds: clock.now().nanoseconds) }

    private func begin() { run(client.start(at: now)) }

    private func receiveStream(_ bytes: [UInt8]) { run(client.receive(streamBytes: bytes, at: now)) }

    private func linkClosed(_ error: TransportError?) {
        guard !isClosed else { return }
        isClosed = true
        if let timer { loop.cancelTimer(timer.handle) }
        timer = nil
        let detail = error.map { "\($0)" } ?? "closed"
        onEvent(.failed(.transportLost(detail)))
    }

    private func run(_ actions: [TURNClientAction]) {
        for action in actions {
            switch action {
            case .send(let bytes):
                switch link {
                case .datagram(let socket): socket.send(bytes, to: serverSocketAddress)
                case .stream(let stream): stream.send(bytes)
                }
            case .armTimer(let at): arm(at)
            case .event(let event): onEvent(event)
            }
        }
    }

    private func arm(_ at: STUNInstant) {
        guard !isClosed else { return }
        if let timer {
            guard timer.at != at else { return }
            loop.cancelTimer(timer.handle)
        }
        let delay = Duration.nanoseconds(max(0, at.nanoseconds - now.nanoseconds))
        let handle = loop.scheduleTimer(after: delay) { [weak self] in
            guard let self, !self.isClosed else { return }
            self.timer = nil
            self.run(self.client.timerFired(at: self.now))
        }
        timer = (handle, at)
    }
}
