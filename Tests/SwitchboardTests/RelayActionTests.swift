import Foundation
import SwitchboardTesting
import Synchronization
import Testing

@testable import Switchboard

/// The name of the queue a test's code runs on, where it set one.
private let queueName = DispatchSpecificKey<String>()

/// A relay that says it fulfils every action, and records what it hears without fulfilling anything.
private final class FulfillingRelay: CallProviderEventRelay {
    let relayed = Mutex<[CallProviderEvent]>([])
    let kinds: Set<CallProviderEvent.Kind>?

    let onEmittingThread: Bool
    /// The threads the events were heard on.
    let threads = Mutex<[String]>([])

    init(kinds: Set<CallProviderEvent.Kind>? = nil, onEmittingThread: Bool = false) {
        self.kinds = kinds
        self.onEmittingThread = onEmittingThread
    }

    var fulfillsActions: Bool { true }
    var relayedKinds: Set<CallProviderEvent.Kind>? { kinds }
    var hearsOnEmittingThread: Bool { onEmittingThread }

    func provider(_ provider: CallProvider, relay event: CallProviderEvent) {
        relayed.withLock { $0.append(event) }
        threads.withLock { $0.append(DispatchQueue.getSpecific(key: queueName) ?? "?") }
    }
    func providerDidReset(_ provider: CallProvider) {}

    var invite: CallInvite? { relayed.withLock { $0.lazy.compactMap(\.invite).first } }
}

@Suite("Relays that fulfil actions")
struct RelayActionTests {
    /// Bob's relay fulfils every action by saying so: the provider carries the answer out at once, without
    /// handing the action over (and waiting for it), and the call connects.
    @Test func theProviderFulfilsTheActionsOfARelayThatSaysItWould() async throws {
        let pair = try ProviderPair()
        defer { pair.close() }
        let world = try #require(pair.world)
        let relay = FulfillingRelay()
        pair.bob.setDelegate(relay, queue: nil)
        let alice = try await pair.aliceController.startCall(to: pair.bobHandle)
        _ = world.run(until: { relay.invite != nil }, within: .seconds(5))
        let invite = try #require(relay.invite)
        let answer = AnswerCallAction(call: invite.callUUID)
        try await pair.bobController.request(CallTransaction(action: answer))
        #expect(answer.isComplete)
        _ = try #require(await pair.aliceDelegate.connected(alice))
        _ = world.run(until: { relay.relayed.withLock { $0.contains { $0.kind == .connected } } }, within: .seconds(5))
        let kinds = relay.relayed.withLock { $0.map(\.kind) }
        #expect(!kinds.contains(.action))
        #expect(!kinds.contains(.actionTimedOut))
        #expect(kinds.contains(.connected))
    }

    /// A relay that names the kinds it hears is handed only those.
    /// The filter keeps the named kinds as bits: every kind has a bit of its own, and a filter passes exactly
    /// the kinds it was given.
    @Test func everyKindHasABitOfItsOwn() {
        let kinds = CallProviderEvent.Kind.allCases
        #expect(Set(kinds.map(\.bit)).count == kinds.count)
        #expect(kinds.allSatisfy { $0.bit.nonzeroBitCount == 1 })
        let named: Set<CallProviderEvent.Kind> = [.connected, .ended, .registration]
        let filter = RelayFilter(skipsActions: false, kinds: named)
        for kind in kinds { #expect(((filter.kinds ?? 0) & kind.bit != 0) == named.contains(kind), "\(kind)") }
        #expect(RelayFilter(skipsActions: false, kinds: nil).isEmpty)
    }

    @Test func aRelayHearsOnlyTheKindsItNames() async throws {
        let pair = try ProviderPair()
        defer { pair.close() }
        let world = try #require(pair.world)
        let relay = FulfillingRelay(kinds: [.invite, .ended])
        pair.bob.setDelegate(relay, queue: nil)
        let alice = try await pair.aliceController.startCall(to: pair.bobHandle)
        _ = world.run(until: { relay.invite != nil }, within: .seconds(5))
        let invite = try #require(relay.invite)
        try await pair.bobController.answerCall(invite.callUUID)
        _ = try #require(await pair.aliceDelegate.connected(alice))
        try await pair.aliceController.endCall(alice)
        _ = world.run(until: { relay.relayed.withLock { $0.contains { $0.kind == .ended } } }, within: .seconds(5))
        #expect(relay.relayed.withLock { $0.map(\.kind) } == [.invite, .ended])
    }

    /// On the delegate's queue (not a virtual world's loop) each run of a batch goes to its queue in order,
    /// blocks and events alike, and the events the relay does not name are skipped.
    @Test func onQueuesARelayHearsItsKindsInOrderWithTheBlocks() throws {
        let pair = try ProviderPair()
        defer { pair.close() }
        let outlet = EventOutlet()
        let relay = FulfillingRelay(kinds: [.didBegin])
        let delegateQueue = DispatchQueue(label: "relay-test.delegate")
        let otherQueue = DispatchQueue(label: "relay-test.other")
        outlet.setDelegate(relay, queue: delegateQueue)
        let order = Mutex<[String]>([])
        let batch: [EventOutlet.Delivery] = [
            .event(.didReset), .event(.didBegin), .block(delegateQueue) { order.withLock { $0.append("same") } },
            .event(.didReset), .block(otherQueue) { order.withLock { $0.append("other") } },
            .event(.didReset), .event(.didBegin),
        ]
        outlet.deliver(batch, from: pair.bob)
        outlet.drain(timeout: .now() + 5)
        otherQueue.sync {}
        #expect(relay.relayed.withLock { $0.map(\.kind) } == [.didBegin, .didBegin])
        #expect(order.withLock { $0 }.sorted() == ["other", "same"])
        // Nothing but skipped events: no trip to the queue at all, and nothing heard.
        outlet.deliver([.event(.didReset)], from: pair.bob)
        outlet.drain(timeout: .now() + 5)
        #expect(relay.relayed.withLock { $0.count } == 2)
    }

    /// A relay that hears on the emitting thread is handed its kinds there and then, in order, before
    /// `deliver` returns; blocks still go to their queues.
    @Test func aRelayOnTheEmittingThreadHearsItsKindsBeforeDeliverReturns() throws {
        let pair = try ProviderPair()
        defer { pair.close() }
        let outlet = EventOutlet()
        let relay = FulfillingRelay(kinds: [.didBegin], onEmittingThread: true)
        let delegateQueue = DispatchQueue(label: "relay-test.delegate")
        outlet.setDelegate(relay, queue: delegateQueue)
        let ran = Mutex(false)
        let emitter = DispatchQueue(label: "relay-test.emitter")
        emitter.setSpecific(key: queueName, value: "emitter")
        delegateQueue.setSpecific(key: queueName, value: "delegate")
        emitter.sync {
            outlet.deliver(
                [
                    .event(.didReset), .event(.didBegin), .block(delegateQueue) { ran.withLock { $0 = true } },
                    .event(.didBegin),
                ],
                from: pair.bob)
            // Heard already, on this thread, without the delegate queue.
            #expect(relay.relayed.withLock { $0.map(\.kind) } == [.didBegin, .didBegin])
        }
        #expect(relay.threads.withLock { $0 } == ["emitter", "emitter"])
        delegateQueue.sync {}
        #expect(ran.withLock { $0 })
    }
}
