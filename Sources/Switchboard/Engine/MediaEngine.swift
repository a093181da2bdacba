import Foundation
import Media
package import SIPTransport

/// The media side of a provider: one event loop of its own (so a busy signalling loop or a slow delegate
/// never delays RTP) and the RTP port pairs its streams hold.
package final class MediaEngine: @unchecked Sendable {
    // @unchecked Sendable: `nextPair`, `sessionConfiguration`, `streamContextCache`, `pending` and `isFlushScheduled` are touched
    // only on the signalling loop (the one caller of `open` and `perform`); `pairs` only under `pairsLock`
    // (the signalling loop takes pairs, the media loop returns and expires them); `isExpiryScheduled` only
    // on the media loop; the media loop itself is thread-safe for posting work. That state is read and written
    // without run-time exclusivity checks (`@exclusivity(unchecked)`): no access to it overlaps another on its
    // thread, and the checks would not see the other thread anyway.

    package let loop: any EventLoopProtocol
    private let signalling: any EventLoopProtocol
    private let ownLoop: EventLoop?
    private let environment: EngineEnvironment
    @exclusivity(unchecked) private var nextPair = 0
    /// The streams' session configuration, one for all with the same media timeout (each stream keeps a
    /// reference, not a copy).
    @exclusivity(unchecked) private var sessionConfiguration: SharedMediaSessionConfiguration?
    /// The streams' loop, clock and DTLS settings, one for all with the same settings.
    @exclusivity(unchecked) private var streamContextCache: MediaStreamContext?
    /// Port pairs of ended streams, ready for new ones (`PairPool`), guarded by `pairsLock` (the sockets
    /// are not Sendable, so not a `Mutex`).
    @exclusivity(unchecked) private var pairs: PairPool
    private let pairsLock = NSLock()
    /// Whether the timer that closes idle pooled pairs is armed (media loop only).
    @exclusivity(unchecked) private var isExpiryScheduled = false
    /// Work for the media loop posted during this signalling-loop iteration, handed over at its end.
    @exclusivity(unchecked) private var pending: [@Sendable () -> Void] = []
    @exclusivity(unchecked) private var isFlushScheduled = false
    /// Streams opened on a pooled pair, and on a newly bound one (signalling loop only): the pool's hit
    /// rate under load.
    @exclusivity(unchecked) private(set) var reusedPairCount = 0
    @exclusivity(unchecked) private(set) var boundPairCount = 0

    /// A media loop fed from `signalling` (whose thread calls `open` and `perform`): the environment's
    /// own loop when it brings one, else a system loop of its own. At most `pooledPairs` port pairs of
    /// ended calls wait for new ones (`PairPool.capacity(expectedCallRate:descriptorLimit:)`).
    package init(
        signalling: any EventLoopProtocol, environment: EngineEnvironment,
        pooledPairs: Int = PairPool.defaultCapacity
    ) throws(TransportError) {
        self.signalling = signalling
        self.environment = environment
        pairs = PairPool(capacity: pooledPairs)
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
        let pair: MediaPair
        if let pooled = pairsLock.withLock({ pairs.take(host: host, ports: ports, now: signalling.now) }) {
            pair = pooled
            reusedPairCount += 1
        } else {
            pair = try bindPair(host: host, ports: ports)
            boundPairCount += 1
        }
        let stream = MediaStream(
            context: streamContext(dtls: dtls), random: environment.random, pair: pair, host: host,
            audio: audio, configuration: sharedConfiguration(mediaTimeout: mediaTimeout), events: events)
        perform { stream.open() }
        return stream
    }

    /// A new pair in `ports` on `host`. When the process is out of descriptors or the range out of free
    /// pairs, this call fails, and the pool's oldest pairs (rested or not) are closed on the media loop, their
    /// owner, so that the next calls find descriptors and ports: new calls matter more than pairs kept for
    /// later ones.
    private func bindPair(host: String, ports: ClosedRange<UInt16>) throws(TransportError) -> PairPool.Pair {
        defer { nextPair = (nextPair &+ 1) & 0x7FFF_FFFF }
        do {
            return MediaPair(
                try DatagramSocket.bindPair(host: host, ports: ports, start: nextPair, on: environment.network))
        } catch {
            if error.isResourceExhaustion || error.errno == EADDRINUSE, pooledPairCount > 0 {
                perform { [self] in
                    for pair in pairsLock.withLock({ pairs.evictOldest(Self.evictionBatch) }) { pair.close() }
                }
            }
            throw error
        }
    }

    /// Pooled pairs closed at once when descriptors run out.
    static let evictionBatch = 64

    /// The context for streams with `dtls`: one for all while the settings stay those of the provider
    /// (signalling loop only).
    private func streamContext(dtls: DTLSCallSettings?) -> MediaStreamContext {
        if let shared = streamContextCache, shared.dtls?.identity === dtls?.identity,
            shared.dtls?.handshakeTimeout == dtls?.handshakeTimeout, shared.dtls?.srtpProfiles == dtls?.srtpProfiles
        {
            return shared
        }
        let context = MediaStreamContext(loop: loop, clock: environment.mediaClock, dtls: dtls) {
            [weak self] pair, host in
            guard let self else {
                pair.close()
                return
            }
            self.recycle(pair, host: host)
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
    /// the media loop, and drop whatever still arrives (`MediaPair`), until a new stream takes them. Binding
    /// a pair costs six system calls and closing it two more, per call.
    private func recycle(_ pair: MediaPair, host: String) {
        pair.stream = nil
        let evicted = pairsLock.withLock { pairs.put(pair, host: host, now: loop.now) }
        evicted?.close()
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
            for pair in self.pairsLock.withLock({ self.pairs.expire(now: self.loop.now) }) { pair.close() }
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
        for pair in pairsLock.withLock({ pairs.removeAll() }) { pair.close() }
    }
}
