import SIPTransport
import STUN

/// RFC 5626 §4.4.2 keep-alives of a registration's UDP flow, once the registrar confirmed outbound: a STUN
/// Binding request to the registrar's address from the SIP UDP socket every `interval`. The flow has failed
/// when a request goes unanswered (its Binding transaction times out, RFC 8489 §6.2.1) or when the mapped
/// address changes (the NAT lost its binding and made a new one, RFC 5626 §4.4.2); `onFailure` then hears
/// why, once, and the keep-alive stops. Loop-confined.
final class UDPFlowKeepAlive {
    /// The edge proxy or registrar the flow goes to.
    let destination: SocketAddress
    /// The address the first response named: the flow's outside as the server sees it.
    private(set) var mappedAddress: STUNTransportAddress?
    /// Requests sent and answered, for tests and statistics.
    private(set) var probes = 0
    private(set) var answers = 0

    private let engine: Engine
    private let interval: () -> Duration
    private let timers: STUNTransactionTimers
    private let onFailure: (String) -> Void
    private let origin: ContinuousClock.Instant
    private var observer: Int?
    private var nextProbe: TimerHandle?
    private var retransmission: TimerHandle?
    private var transaction: STUNBindingTransaction?

    /// - Parameters:
    ///   - engine: the engine whose SIP UDP socket carries the flow.
    ///   - destination: the registrar's (or edge proxy's) address.
    ///   - interval: the time from one answer to the next request (read anew each time).
    ///   - timers: the Binding transaction's RTO, Rc and Rm.
    ///   - onFailure: hears why the flow failed.
    init(
        engine: Engine, destination: SocketAddress, interval: @escaping () -> Duration,
        timers: STUNTransactionTimers = STUNTransactionTimers(), onFailure: @escaping (String) -> Void
    ) {
        self.engine = engine
        self.destination = destination
        self.interval = interval
        self.timers = timers
        self.onFailure = onFailure
        origin = engine.loop.now
    }

    /// Starts probing: the first request goes out one interval from now.
    func start() {
        guard observer == nil else { return }
        observer = engine.transport.addSTUNObserver { [weak self] bytes, source in self?.receive(bytes, from: source) }
        schedule()
    }

    /// Stops probing; nothing more is sent or reported.
    func stop() {
        if let observer { engine.transport.removeSTUNObserver(observer) }
        observer = nil
        for timer in [nextProbe, retransmission].compactMap({ $0 }) { engine.loop.cancelTimer(timer) }
        nextProbe = nil
        retransmission = nil
        transaction = nil
    }

    private var now: STUNInstant {
        let (seconds, attoseconds) = (engine.loop.now - origin).components
        return STUNInstant(nanoseconds: seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    private func schedule() {
        nextProbe = engine.loop.scheduleTimer(after: interval()) { [weak self] in
            self?.nextProbe = nil
            self?.probe()
        }
    }

    private func probe() {
        var generator = engine.environment.random.generator
        var binding = STUNBindingTransaction(isReliable: false, timers: timers, generator: &generator)
        let actions = binding.start(at: now)
        transaction = binding
        probes += 1
        perform(actions)
    }

    private func receive(_ bytes: [UInt8], from source: SocketAddress) {
        guard source == destination, var binding = transaction else { return }
        let actions = binding.receive(bytes, at: now)
        transaction = binding
        perform(actions)
    }

    private func perform(_ actions: [STUNTransactionAction]) {
        for action in actions {
            switch action {
            case .send(let bytes):
                // A send that fails is a lost request: the retransmissions and the timeout still run.
                try? engine.transport.sendSTUN(bytes, to: destination)
            case .armTimer(let at):
                if let retransmission { engine.loop.cancelTimer(retransmission) }
                let delay = Duration.nanoseconds(max(0, at.nanoseconds - now.nanoseconds))
                retransmission = engine.loop.scheduleTimer(after: delay) { [weak self] in
                    guard let self, var binding = self.transaction else { return }
                    self.retransmission = nil
                    let actions = binding.timerFired(at: self.now)
                    self.transaction = binding
                    self.perform(actions)
                }
            case .finished(let outcome):
                if let retransmission { engine.loop.cancelTimer(retransmission) }
                retransmission = nil
                transaction = nil
                finished(outcome)
            }
        }
    }

    private func finished(_ outcome: STUNBindingOutcome) {
        switch outcome {
        case .success(let mapped, _):
            answers += 1
            if let known = mappedAddress, known != mapped {
                fail("the flow's mapped address changed from \(known) to \(mapped)")
                return
            }
            mappedAddress = mapped
            schedule()
        case .errorResponse(let code, let reason, _):
            fail("STUN keep-alive refused: \(code) \(reason)")
        case .timeout:
            fail("no answer to the STUN keep-alive")
        case .unusableResponse:
            fail("unusable answer to the STUN keep-alive")
        }
    }

    private func fail(_ reason: String) {
        stop()
        onFailure(reason)
    }
}
