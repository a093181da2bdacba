import Dispatch
import Foundation
import SIPTransport
import Synchronization

/// Hands provider events to the delegate on its queue and to every `events` stream, in the order they
/// happen. Thread-safe; the signalling loop only ever enqueues.
final class EventOutlet: Sendable {
    private struct State {
        weak var delegate: (any CallProviderDelegate)?
        /// The delegate again when it takes events as they are (`CallProviderEventRelay`).
        weak var relay: (any CallProviderEventRelay)?
        /// What the relay is not handed.
        var relayFilter = RelayFilter()
        var queue: DispatchQueue
        var streams: [UInt64: AsyncStream<CallProviderEvent>.Continuation] = [:]
        var traceStreams: [UInt64: AsyncStream<SIPTraceEvent>.Continuation] = [:]
        var nextStream: UInt64 = 0
        /// The provider was invalidated: a stream asked for now ends at once instead of waiting forever.
        var isFinished = false
    }

    private let state: Mutex<State>
    /// The loop that runs every callback itself, in order, when the provider runs in virtual time; nil
    /// to call the delegate on its queue.
    private let loop: (any EventLoopProtocol)?

    /// An outlet that calls the delegate on its queue, or on `loop` when given.
    init(loop: (any EventLoopProtocol)? = nil) {
        self.loop = loop
        state = Mutex(State(queue: DispatchQueue(label: "switchboard.provider.delegate")))
    }

    func setDelegate(_ delegate: (any CallProviderDelegate)?, queue: DispatchQueue?) {
        state.withLock {
            $0.delegate = delegate
            $0.relay = delegate as? any CallProviderEventRelay
            $0.relayFilter = RelayFilter(
                skipsActions: $0.relay?.fulfillsActions == true, kinds: $0.relay?.relayedKinds,
                onEmittingThread: $0.relay?.hearsOnEmittingThread == true)
            $0.queue = queue ?? DispatchQueue(label: "switchboard.provider.delegate")
        }
    }

    /// Whether a delegate is set (actions without one are fulfilled automatically).
    var hasDelegate: Bool { state.withLock { $0.delegate != nil } }

    /// Whether actions wait for the delegate: not without one, nor with a relay that fulfils each at once.
    var delegatePerformsActions: Bool { state.withLock { $0.delegate != nil && !$0.relayFilter.skipsActions } }

    /// Whether anyone listens to traces.
    var hasTraceStreams: Bool { state.withLock { !$0.traceStreams.isEmpty } }

    /// A new stream of every event from now on; it ends when the provider is invalidated.
    func makeStream() -> AsyncStream<CallProviderEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: CallProviderEvent.self, bufferingPolicy: .bufferingNewest(4_096))
        let key = state.withLock { state -> UInt64? in
            guard !state.isFinished else { return nil }
            state.nextStream += 1
            state.streams[state.nextStream] = continuation
            return state.nextStream
        }
        guard let key else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: key) }
        }
        return stream
    }

    /// A new stream of SIP trace events.
    func makeTraceStream() -> AsyncStream<SIPTraceEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: SIPTraceEvent.self, bufferingPolicy: .bufferingNewest(4_096))
        let key = state.withLock { state -> UInt64? in
            guard !state.isFinished else { return nil }
            state.nextStream += 1
            state.traceStreams[state.nextStream] = continuation
            return state.nextStream
        }
        guard let key else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.traceStreams.removeValue(forKey: key) }
        }
        return stream
    }

    func trace(_ event: SIPTraceEvent) {
        let streams = state.withLock { Array($0.traceStreams.values) }
        for stream in streams { stream.yield(event) }
    }

    /// Delivers `event` to the streams now and to the delegate on its queue.
    func emit(_ event: CallProviderEvent, from provider: CallProvider) {
        deliver([.event(event)], from: provider)
    }

    /// What the signalling loop hands over at the end of an iteration: an event for the delegate, or a
    /// block (a controller's completion) for a queue.
    enum Delivery: Sendable {
        case event(CallProviderEvent)
        case block(DispatchQueue, @Sendable () -> Void)

        fileprivate func queue(delegateQueue: DispatchQueue) -> DispatchQueue {
            switch self {
            case .event: delegateQueue
            case .block(let queue, _): queue
            }
        }
    }

    /// Delivers a batch in order: events to the streams now and to the delegate on its queue, blocks on
    /// theirs. Consecutive deliveries for one queue go in one `async` (one wake-up of the queue's thread per
    /// batch, not per event: a thread hop costs more than most callbacks).
    func deliver(_ batch: [Delivery], from provider: CallProvider?) {
        guard !batch.isEmpty else { return }
        let (delegate, relay, delegateQueue, streams, filter) = state.withLock {
            ($0.delegate, $0.relay, $0.queue, Array($0.streams.values), $0.relayFilter)
        }
        if let loop {
            deliverOnLoop(
                loop, batch, delegate: delegate, relay: relay, filter: filter, streams: streams, provider: provider)
            return
        }
        if filter.onEmittingThread {
            Self.handOver(batch, relay: relay, filter: filter, streams: streams, provider: provider)
            return
        }
        var run: [Delivery] = []
        run.reserveCapacity(batch.count)
        var runQueue: DispatchQueue?
        func flush() {
            guard let queue = runQueue, !run.isEmpty else { return }
            let items = run
            run = []
            queue.async { Self.perform(items, delegate: delegate, relay: relay, provider: provider) }
        }
        for item in batch {
            if case .event(let event) = item {
                for stream in streams { stream.yield(event) }
                guard delegate != nil, provider != nil, filter.passes(event) else { continue }
            }
            let queue = item.queue(delegateQueue: delegateQueue)
            if runQueue !== queue {
                flush()
                runQueue = queue
            }
            run.append(item)
        }
        flush()
    }

    /// Delivers a batch on `loop`, callbacks and completions alike, in order.
    private func deliverOnLoop(
        _ loop: any EventLoopProtocol, _ batch: [Delivery], delegate: (any CallProviderDelegate)?,
        relay: (any CallProviderEventRelay)?, filter: RelayFilter,
        streams: [AsyncStream<CallProviderEvent>.Continuation], provider: CallProvider?
    ) {
        // The batch goes as it is, and the filter with it: `perform` skips what the relay does not hear, instead
        // of a filtered copy of the batch per delivery.
        let work = CallbackBatch(items: batch, delegate: delegate, relay: relay, filter: filter, provider: provider)
        for item in batch {
            if case .event(let event) = item { for stream in streams { stream.yield(event) } }
        }
        if loop.inEventLoop {
            Self.perform(
                work.items, delegate: work.delegate, relay: work.relay, filter: work.filter,
                provider: work.provider)
        } else {
            loop.execute {
                Self.perform(
                    work.items, delegate: work.delegate, relay: work.relay, filter: work.filter,
                    provider: work.provider)
            }
        }
    }

    /// Hands a batch's events to a relay that hears them on the emitting thread, in order, there and then;
    /// blocks still go to their queues.
    private static func handOver(
        _ batch: [Delivery], relay: (any CallProviderEventRelay)?, filter: RelayFilter,
        streams: [AsyncStream<CallProviderEvent>.Continuation], provider: CallProvider?
    ) {
        for item in batch {
            switch item {
            case .event(let event):
                for stream in streams { stream.yield(event) }
                guard let relay, let provider, filter.passes(event) else { continue }
                relay.provider(provider, relay: event)
            case .block(let queue, let body):
                queue.async(execute: body)
            }
        }
    }

    /// Runs `items` in order; events `filter` holds back are skipped.
    private static func perform(
        _ items: [Delivery], delegate: (any CallProviderDelegate)?, relay: (any CallProviderEventRelay)?,
        filter: RelayFilter = RelayFilter(), provider: CallProvider?
    ) {
        for item in items {
            switch item {
            case .event(let event):
                guard let delegate, let provider, filter.isEmpty || filter.passes(event) else { continue }
                if let relay {
                    relay.provider(provider, relay: event)
                } else {
                    event.deliver(to: delegate, from: provider)
                }
            case .block(_, let body):
                body()
            }
        }
    }

    /// Waits, up to `timeout`, until the delegate queue has run every callback enqueued so far. Returns at
    /// once when the caller is the main thread and the delegate queue is the main queue (it could not run).
    func drain(timeout: DispatchTime) {
        guard loop == nil else { return }
        let queue = state.withLock { $0.queue }
        if queue === DispatchQueue.main, Thread.isMainThread { return }
        let done = DispatchSemaphore(value: 0)
        queue.async(flags: .barrier) { done.signal() }
        _ = done.wait(timeout: timeout)
    }

    /// Ends every stream.
    func finish() {
        let (streams, traces) = state.withLock { state in
            defer {
                state.streams = [:]
                state.traceStreams = [:]
                state.isFinished = true
            }
            return (Array(state.streams.values), Array(state.traceStreams.values))
        }
        for stream in streams { stream.finish() }
        for stream in traces { stream.finish() }
    }
}

/// The events a relay is not handed: actions when it fulfils every one as it hears it (the provider does
/// that itself, on the loop), and the kinds it does not name.
struct RelayFilter: Sendable {
    var skipsActions = false
    /// The kinds relayed, as their bits (`Kind.bit`): a test per event instead of hashing the kind's name.
    /// `nil`: every kind.
    var kinds: UInt64?
    /// The relay hears its events on the thread that emits them, not on its queue.
    var onEmittingThread = false

    init() {}

    init(skipsActions: Bool, kinds: Set<CallProviderEvent.Kind>?, onEmittingThread: Bool = false) {
        self.skipsActions = skipsActions
        self.kinds = kinds.map { $0.reduce(0) { $0 | $1.bit } }
        self.onEmittingThread = onEmittingThread
    }

    var isEmpty: Bool { !skipsActions && kinds == nil }

    func passes(_ event: CallProviderEvent) -> Bool {
        if skipsActions, event.isAction { return false }
        if let kinds, kinds & event.kind.bit == 0 { return false }
        return true
    }
}

extension CallProviderEvent.Kind {
    /// The kind's bit in a mask of kinds: one bit per code. A code is an enum without payloads, stored as its
    /// index in declaration order (one byte for up to 256 codes); the mask has room for 64.
    var bit: UInt64 {
        let index = withUnsafeBytes(of: code) { $0.first ?? 0 }
        return 1 << UInt64(index & 63)
    }
}

/// A batch of callbacks on its way to the loop.
private struct CallbackBatch: Sendable {
    var items: [EventOutlet.Delivery]
    var delegate: (any CallProviderDelegate)?
    var relay: (any CallProviderEventRelay)?
    var filter: RelayFilter
    var provider: CallProvider?
}

/// A delegate that takes each event as the provider made it, in one method, instead of the callback of its
/// kind: the command-line tool's, which turns callbacks back into events (the event is not rebuilt, nor a
/// second one allocated). It answers for what the callbacks would have done: an action must still end with
/// `fulfill()` or `fail()`. Within the package only.
package protocol CallProviderEventRelay: CallProviderDelegate {
    /// `event`, on the delegate's queue, in order with the others.
    func provider(_ provider: CallProvider, relay event: CallProviderEvent)

    /// Whether the relay fulfils every action as soon as it hears it (false by default). When true the
    /// provider fulfils and carries out each action at once on its loop and relays none: no round trip
    /// through the delegate's queue and back to the loop per action.
    var fulfillsActions: Bool { get }

    /// The kinds of event the relay hears (`nil`, the default: every kind). It is handed no other, so a
    /// batch of events it would ignore costs no trip to its queue.
    var relayedKinds: Set<CallProviderEvent.Kind>? { get }

    /// Whether the relay hears its events on the thread that emits them (the provider's loop, or the thread
    /// that invalidates the provider) instead of on its queue (false by default): for a relay that only
    /// records what it hears and never blocks, it saves a trip to the queue's thread per batch. Completion
    /// blocks still run on their queues.
    var hearsOnEmittingThread: Bool { get }
}

extension CallProviderEventRelay {
    /// Actions are relayed, for the relay to fulfil or fail.
    package var fulfillsActions: Bool { false }

    /// Every kind is relayed.
    package var relayedKinds: Set<CallProviderEvent.Kind>? { nil }

    /// Events go to the relay's queue.
    package var hearsOnEmittingThread: Bool { false }
}
