import Foundation
import Media
package import SIPTransport

/// The media side of a provider: one event loop of its own (so a busy signalling loop or a slow delegate
/// never delays RTP) and the RTP port pairs its streams hold.
package final class MediaEngine: @unchecked Sendable {
    // @unchecked Sendable: `nextPair`, `sessionConfiguration`, `streamContextCache`, `pending` and `isFlushScheduled` are touched
    // only on the signalling loop (the one caller of `open` and `perform`); `pairs` only under `pairsLock`
    // (the signalling loop takes pairs, the media loop returns and expires them); `scratch` and
    // `isExpiryScheduled` only on the media loop; the media loop itself is thread-safe for posting work.

    package let loop: any EventLoopProtocol
    private let signalling: any EventLoopProtocol
    private let ownLoop: EventLoop?
    private let environment: EngineEnvironment
    private var nextPair = 0
    /// The streams' session configuration, one for all with the same media timeout (each stream keeps a
    /// reference, not a copy).
    private var sessionConfiguration: SharedMediaSessionConfiguration?
    /// The streams' loop, clock and DTLS settings, one for all with the same settings.
    private var streamContextCache: MediaStreamContext?
    /// Port pairs of ended streams, ready for new ones (`PairPool`), guarded by `pairsLock` (the sockets
    /// are not Sendable, so not a `Mutex`).
    private var pairs = PairPool()
    private let pairsLock = NSLock()
    /// Scratch space for draining pooled sockets (media loop only).
    private var scratch = [UInt8](repeating: 0, count: 2048)
    /// Whether the timer that closes idle pooled pairs is armed (media loop only).
    private var isExpiryScheduled = false
    /// Work for the media loop posted during this signalling-loop iteration, handed over at its end.
    private var pending: [@Sendable () -> Void] = []
    private var isFlushScheduled = false

    /// A media loop fed from `signalling` (whose thread calls `open` and `perform`).
    /// A media loop fed from `signalling` (whose thread calls `open` and `perform`): the environment's
    /// own loop when it brings one, else a system loop of its own.
    package init(signalling: any EventLoopProtocol, environment: EngineEnvironment) throws(TransportError) {
        self.signalling = signalling
        self.environment = environment
        if let shared = environment.loop {
            loop = shared
            ownLoop = nil
        } else {
            let system = try EventLoop(name: "media")
            loop = system
            ownLoop = system
            system.start()
        }
    }

    /// Binds an RTP/RTCP port pair on `host` in `ports` and starts a stream on the media loop
    /// (signalling loop only).
    /// - Throws: `TransportError` when no pair is free.
    func open(
        host: String, ports: ClosedRange<UInt16>, audio: CallAudio, mediaTimeout: Duration?,
        events: MediaStreamEvents, dtls: DTLSCallSettings? = nil
    ) throws(TransportError) -> MediaStream {
        let sockets: (rtp: DatagramSocket, rtcp: DatagramSocket)
        if let pooled = pairsLock.withLock({ pairs.take(host: host, ports: ports, now: signalling.now) }) {
            sockets = pooled
        } else {
            sockets = try DatagramSocket.bindPair(host: host, ports: ports, start: nextPair, on: environment.network)
            nextPair = (nextPair &+ 1) & 0x7FFF_FFFF
        }
        let stream = MediaStream(
            context: streamContext(dtls: dtls), random: environment.random, sockets: sockets, host: host,
            audio: audio, configuration: sharedConfiguration(mediaTimeout: mediaTimeout), events: events)
        perform { stream.open() }
        return stream
    }

    /// The context for streams with `dtls`: one for all while the settings stay those of the provider
    /// (signalling loop only).
    private func streamContext(dtls: DTLSCallSettings?) -> MediaStreamContext {
        if let shared = streamContextCache, shared.dtls?.identity === dtls?.identity,
            shared.dtls?.handshakeTimeout == dtls?.handshakeTimeout, shared.dtls?.srtpProfiles == dtls?.srtpProfiles
        {
            return shared
        }
        let context = MediaStreamContext(loop: loop, clock: environment.mediaClock, dtls: dtls) {
            [weak self] rtp, rtcp, host in
            guard let self else {
                rtp.close()
                rtcp.close()
                return
            }
            self.recycle(rtp: rtp, rtcp: rtcp, host: host)
        }
        streamContextCache = context
        return context
    }

    /// The session configuration for streams with `mediaTimeout` (signalling loop only).
    private func sharedConfiguration(mediaTimeout: Duration?) -> SharedMediaSessionConfiguration {
        if let shared = sessionConfiguration, shared.value.mediaTimeout == mediaTimeout { return shared }
        let shared = SharedMediaSessionConfiguration(
            MediaSessionConfiguration(mediaTimeout: mediaTimeout, maximumDatagramSize: MediaStream.receiveCapacity))
        sessionConfiguration = shared
        return shared
    }

    /// Starts ICE on `stream`: gathering on its sockets, then the agent (signalling loop).
    func startICE(on stream: MediaStream, _ plan: ICEPlan, events: ICEDriverEvents) {
        let network = environment.network
        let random = environment.random
        perform { stream.startICE(plan, network: network, random: random, events: events) }
    }

    /// Takes back the sockets of a closed stream (media loop): they keep their ports and their place in
    /// the media loop, and drop whatever still arrives, until a new stream takes them. Binding a pair costs
    /// six system calls and closing it two more, per call.
    private func recycle(rtp: DatagramSocket, rtcp: DatagramSocket, host: String) {
        for socket in [rtp, rtcp] {
            do throws(TransportError) {
                try socket.watch(on: loop) { [weak self, weak socket] in
                    guard let self, let socket else { return }
                    socket.discardPending(into: &self.scratch)
                }
            } catch {
                rtp.close()
                rtcp.close()
                return
            }
        }
        let evicted = pairsLock.withLock { pairs.put((rtp, rtcp), host: host, now: loop.now) }
        if let evicted {
            evicted.rtp.close()
            evicted.rtcp.close()
        }
        scheduleExpiry()
    }

    /// Arms the media-loop timer that closes pairs idle past `PairPool.idleLimit`, unless one is armed
    /// (media loop).
    private func scheduleExpiry() {
        guard !isExpiryScheduled, let due = pairsLock.withLock({ pairs.nextExpiry }) else { return }
        isExpiryScheduled = true
        let delay = max(.zero, due - loop.now)
        _ = loop.scheduleTimer(after: delay) { [weak self] in
            guard let self else { return }
            self.isExpiryScheduled = false
            for (rtp, rtcp) in self.pairsLock.withLock({ self.pairs.expire(now: self.loop.now) }) {
                rtp.close()
                rtcp.close()
            }
            self.scheduleExpiry()
        }
    }

    /// Runs `body` on the media loop, in order with the other work posted from the signalling loop
    /// (signalling loop only). The work of one signalling iteration (a batch of calls opening, answering
    /// and closing) goes over in one post: one wake-up of the media thread instead of one per step.
    func perform(_ body: @escaping @Sendable () -> Void) {
        pending.append(body)
        guard !isFlushScheduled else { return }
        isFlushScheduled = true
        signalling.atIterationEnd { [self] in flush() }
    }

    private func flush() {
        isFlushScheduled = false
        guard !pending.isEmpty else { return }
        let work = pending
        pending = []
        loop.execute {
            for body in work { body() }
        }
    }

    /// How many port pairs of ended streams wait in the pool.
    var pooledPairCount: Int { pairsLock.withLock { pairs.count } }

    /// Stops the media loop (after the streams were closed) and closes the pooled sockets.
    package func shutdown() {
        ownLoop?.stop()
        for (rtp, rtcp) in pairsLock.withLock({ pairs.removeAll() }) {
            rtp.close()
            rtcp.close()
        }
    }
}

/// Bound RTP/RTCP pairs of ended streams, oldest first. A pair is reused only once it has rested
/// `reuseDelay` (late packets of the old call die out, as with round-robin binding over the range), at
/// most `capacity` pairs wait (the oldest is closed beyond that), and none waits longer than `idleLimit`:
/// after a burst the pool gives its sockets and ports back instead of holding the peak for good (issue 20).
struct PairPool {
    typealias Pair = (rtp: DatagramSocket, rtcp: DatagramSocket)

    static let reuseDelay = Duration.seconds(1)
    static let capacity = 4096
    /// How long a pair may wait for a new call before it is closed.
    static let idleLimit = Duration.seconds(10)

    private var pairs: [(pair: Pair, host: String, released: ContinuousClock.Instant)] = []
    private var head = 0

    var count: Int { pairs.count - head }

    /// The oldest pair on `host` with its ports in `ports` that has rested long enough, if any.
    mutating func take(host: String, ports: ClosedRange<UInt16>, now: ContinuousClock.Instant) -> Pair? {
        guard head < pairs.count else { return nil }
        let oldest = pairs[head]
        guard now - oldest.released >= Self.reuseDelay, oldest.host == host,
            ports.contains(oldest.pair.rtp.localAddress.port)
        else { return nil }
        head += 1
        compact()
        return oldest.pair
    }

    /// Adds a released pair; returns the pair evicted to stay within `capacity`, if one was.
    mutating func put(_ pair: Pair, host: String, now: ContinuousClock.Instant) -> Pair? {
        pairs.append((pair, host, now))
        guard count > Self.capacity else { return nil }
        let evicted = pairs[head].pair
        head += 1
        compact()
        return evicted
    }

    /// When the oldest pair passes `idleLimit`, if any pair waits.
    var nextExpiry: ContinuousClock.Instant? { head < pairs.count ? pairs[head].released + Self.idleLimit : nil }

    /// Removes and returns the pairs that have waited `idleLimit` or longer at `now`, for closing.
    mutating func expire(now: ContinuousClock.Instant) -> [Pair] {
        var expired: [Pair] = []
        while head < pairs.count, now - pairs[head].released >= Self.idleLimit {
            expired.append(pairs[head].pair)
            head += 1
        }
        if head == pairs.count {
            pairs = []
            head = 0
        } else {
            compact()
        }
        return expired
    }

    mutating func removeAll() -> [Pair] {
        defer {
            pairs = []
            head = 0
        }
        return pairs[head...].map(\.pair)
    }

    private mutating func compact() {
        guard head >= 1024, head * 2 >= pairs.count else { return }
        pairs.removeFirst(head)
        head = 0
    }
}
