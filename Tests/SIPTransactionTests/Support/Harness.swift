import SIPMessage
import SIPTransaction

typealias Layer = TransactionLayer<String>

/// One transaction layer driven in virtual time, the way the real driver will drive it: every action is
/// carried out (sends recorded, timers armed in a `VirtualScheduler`, events recorded), and advancing time
/// feeds expired timers back with `timerFired`.
///
/// It also checks two properties of every action stream: the layer never cancels a timer that is not
/// armed, and no timer of a transaction is left armed when the transaction terminates.
struct Harness {
    struct Sent {
        var time: Duration
        var message: Message
        var to: String
        var transaction: TransactionID?
    }

    struct Delivered {
        var time: Duration
        var event: Layer.Event
    }

    var layer: Layer
    var scheduler = VirtualScheduler()
    var sent: [Sent] = []
    var events: [Delivered] = []
    /// Timer cancellations for timers that were not armed.
    var unarmedCancels: [TimerID] = []
    /// Timers still armed when their transaction terminated.
    var danglingTimers: [TimerID] = []

    static let t1 = Duration.milliseconds(100)
    static let timers = TransactionTimers(t1: t1, t2: .milliseconds(400), t4: .milliseconds(500))

    init(configuration: TransactionConfiguration = TransactionConfiguration(timers: Harness.timers)) {
        layer = Layer(configuration: configuration)
    }

    var now: Duration { scheduler.now }

    mutating func apply(_ actions: [Layer.Action]) {
        for action in actions {
            switch action {
            case .send(let message, let to, let transaction):
                sent.append(Sent(time: now, message: message, to: to, transaction: transaction))
            case .startTimer(let timer, let delay):
                scheduler.arm(timer, after: delay)
            case .cancelTimer(let timer):
                if !scheduler.cancel(timer) { unarmedCancels.append(timer) }
            case .deliver(let event):
                if case .terminated(let id) = event {
                    danglingTimers += scheduler.armed.filter { $0.transaction == id }
                }
                events.append(Delivered(time: now, event: event))
            }
        }
    }

    /// Starts a client transaction and carries out its actions.
    @discardableResult
    mutating func send(_ request: SIPRequest, to: String = "server", isReliable: Bool = false) throws
        -> TransactionID
    {
        let (id, actions) = try layer.sendRequest(request, to: to, isReliable: isReliable)
        apply(actions)
        return id
    }

    /// Sends a TU response through a server transaction.
    mutating func respond(_ response: SIPResponse, in id: TransactionID) throws {
        apply(try layer.sendResponse(response, in: id))
    }

    mutating func receive(_ request: SIPRequest, from: String = "client", isReliable: Bool = false) {
        apply(layer.receive(request, from: from, isReliable: isReliable))
    }

    mutating func receive(_ response: SIPResponse, from: String = "server") {
        apply(layer.receive(response, from: from))
    }

    mutating func transportError(_ id: TransactionID) {
        apply(layer.transportError(id))
    }

    /// Moves virtual time forward by `delay`, firing every timer that falls due on the way.
    mutating func advance(by delay: Duration) {
        advance(to: now + delay)
    }

    mutating func advance(to time: Duration) {
        while let timer = scheduler.popDue(until: time) {
            apply(layer.timerFired(timer))
        }
    }

    // MARK: Reading the record

    /// The times at which requests with this method were sent.
    func sendTimes(of method: SIPMethod) -> [Duration] {
        sent.compactMap { $0.message.request?.method == method ? $0.time : nil }
    }

    /// The times at which responses with this status were sent.
    func sendTimes(status: Int) -> [Duration] {
        sent.compactMap { $0.message.response?.statusCode == status ? $0.time : nil }
    }

    var sentRequests: [SIPRequest] { sent.compactMap { $0.message.request } }
    var sentResponses: [SIPResponse] { sent.compactMap { $0.message.response } }

    /// Responses delivered to the TU for client transaction `id`.
    func deliveredResponses(_ id: TransactionID) -> [Int] {
        events.compactMap {
            if case .response(let response, let t) = $0.event, t == id { return response.statusCode }
            return nil
        }
    }

    func terminationTime(_ id: TransactionID) -> Duration? {
        events.first { $0.event == .terminated(id) }?.time
    }

    func timedOut(_ id: TransactionID) -> Duration? {
        events.first { $0.event == .timeout(id) }?.time
    }

    func isTerminated(_ id: TransactionID) -> Bool { terminationTime(id) != nil }

    /// The server transactions created for new requests, in order.
    var newRequests: [(request: SIPRequest, id: TransactionID)] {
        events.compactMap {
            if case .request(let request, let id, _) = $0.event { return (request, id) }
            return nil
        }
    }

    var strayResponses: [SIPResponse] {
        events.compactMap {
            if case .strayResponse(let response, _) = $0.event { return response }
            return nil
        }
    }

    var acks: [(request: SIPRequest, transaction: TransactionID?)] {
        events.compactMap {
            if case .ack(let request, let id, _) = $0.event { return (request, id) }
            return nil
        }
    }

    /// Whether every action so far respected the two timer properties.
    var timersAreClean: Bool { unarmedCancels.isEmpty && danglingTimers.isEmpty }
}
