import Dispatch
import Foundation
import Switchboard
import SwitchboardTesting
import Synchronization
import Testing

/// A delegate that records every callback and performs actions by a policy the test sets.
final class RecordingDelegate: CallProviderDelegate {
    /// What to do with an action.
    enum Policy: Sendable {
        case fulfil
        case fail
        case ignore
    }

    let events = Mutex<[CallProviderEvent]>([])
    let policy = Mutex<@Sendable (CallAction) -> Policy>({ _ in .fulfil })
    let queueKey = DispatchSpecificKey<String>()
    let queuesSeen = Mutex<Set<String>>([])
    /// The virtual world the delegate's provider runs in: waits move its clock instead of sleeping.
    let world: VirtualWorld?

    init(world: VirtualWorld? = nil) {
        self.world = world
    }

    private func record(_ event: CallProviderEvent) {
        let queue = DispatchQueue.getSpecific(key: queueKey) ?? "other"
        queuesSeen.withLock { _ = $0.insert(queue) }
        events.withLock { $0.append(event) }
    }

    private func act(_ action: CallAction) {
        record(.action(action))
        switch policy.withLock({ $0 })(action) {
        case .fulfil: action.fulfill()
        case .fail: action.fail()
        case .ignore: break
        }
    }

    func providerDidReset(_ provider: CallProvider) { record(.didReset) }
    func providerDidBegin(_ provider: CallProvider) { record(.didBegin) }
    func provider(_ provider: CallProvider, didReceive invite: CallInvite) { record(.invite(invite)) }
    func provider(_ provider: CallProvider, didCancel invite: CancelledCallInvite) { record(.inviteCancelled(invite)) }
    func provider(_ provider: CallProvider, inviteDidArrive invite: CallInvite) { record(.inviteArrived(invite)) }
    func provider(_ provider: CallProvider, perform action: StartCallAction) { act(action) }
    func provider(_ provider: CallProvider, perform action: AnswerCallAction) { act(action) }
    func provider(_ provider: CallProvider, perform action: EndCallAction) { act(action) }
    func provider(_ provider: CallProvider, perform action: SetHeldCallAction) { act(action) }
    func provider(_ provider: CallProvider, perform action: SetMutedCallAction) { act(action) }
    func provider(_ provider: CallProvider, perform action: PlayDTMFCallAction) { act(action) }
    func provider(_ provider: CallProvider, perform action: TransferCallAction) { act(action) }
    func provider(_ provider: CallProvider, timedOutPerforming action: CallAction) { record(.actionTimedOut(action)) }
    func provider(_ provider: CallProvider, didActivateAudioFor callUUID: UUID) { record(.audioActivated(callUUID)) }
    func provider(_ provider: CallProvider, didDeactivateAudioFor callUUID: UUID) {
        record(.audioDeactivated(callUUID))
    }
    func provider(_ provider: CallProvider, callDidStartConnecting call: Call) { record(.startedConnecting(call)) }
    func provider(_ provider: CallProvider, callDidStartRinging call: Call, statusCode: Int, hasEarlyMedia: Bool) {
        record(.ringing(call, statusCode: statusCode, hasEarlyMedia: hasEarlyMedia))
    }
    func provider(_ provider: CallProvider, callDidConnect call: Call) { record(.connected(call)) }
    func provider(_ provider: CallProvider, callIsReconnecting call: Call) { record(.reconnecting(call)) }
    func provider(_ provider: CallProvider, callDidReconnect call: Call) { record(.reconnected(call)) }
    func provider(_ provider: CallProvider, call: Call, didUpdate update: CallUpdate) {
        record(.updated(call, update))
    }
    func provider(_ provider: CallProvider, call: Call, didEndWith details: CallEndDetails) {
        record(.ended(call, details))
    }
    func provider(_ provider: CallProvider, call: Call, didReceiveDTMF digit: Character) {
        record(.dtmfReceived(call, digit: digit))
    }
    func provider(_ provider: CallProvider, call: Call, wasTransferredTo target: Handle, newCallUUID: UUID) {
        record(.transferred(call, to: target, newCallUUID: newCallUUID))
    }
    func provider(_ provider: CallProvider, account: String, didChange state: RegistrationState) {
        record(.registration(account: account, state: state))
    }
    func provider(_ provider: CallProvider, didReceive message: TextMessage) { record(.message(message)) }
    func provider(_ provider: CallProvider, account: String, didReceive summary: MessageSummary) {
        record(.messageSummary(account: account, summary: summary))
    }

    /// Waits (up to `seconds`: of virtual time in a virtual world) until an event matches and returns it.
    func wait<T>(seconds: Double = 10, _ match: (CallProviderEvent) -> T?) async -> T? {
        if let world {
            var found: T?
            world.run(
                until: {
                    found = events.withLock { $0 }.lazy.compactMap(match).first
                    return found != nil
                }, within: .milliseconds(Int(seconds * 1000)))
            return found
        }
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            let snapshot = events.withLock { $0 }
            if let found = snapshot.lazy.compactMap(match).first { return found }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    var invites: [CallInvite] { events.withLock { $0.filter { $0.kind == .invite }.compactMap(\.invite) } }

    func ended(_ uuid: UUID, seconds: Double = 10) async -> CallEndDetails? {
        await wait(seconds: seconds) {
            if let details = $0.endDetails, $0.callUUID == uuid { return details }
            return nil
        }
    }

    func connected(_ uuid: UUID? = nil, seconds: Double = 10) async -> Call? {
        await wait(seconds: seconds) {
            if $0.kind == .connected, let call = $0.call, uuid == nil || call.uuid == uuid { return call }
            return nil
        }
    }

    func invite(seconds: Double = 10) async -> CallInvite? {
        await wait(seconds: seconds) { $0.invite }
    }
}

/// Two providers with short timers, `alice` calling `bob`: in a virtual world (10.0.0.1 and 10.0.0.2,
/// in virtual time), or over loopback UDP sockets for what only sockets can show.
struct ProviderPair {
    let alice: CallProvider
    let bob: CallProvider
    let aliceDelegate: RecordingDelegate
    let bobDelegate: RecordingDelegate
    /// The virtual world, unless the pair runs on sockets.
    let world: VirtualWorld?
    let aliceController: CallController
    let bobController: CallController
    let bobAddress: String

    init(
        overSockets: Bool = false, seed: UInt64 = 1,
        aliceConfiguration: (inout CallProviderConfiguration) -> Void = { _ in },
        bobConfiguration: (inout CallProviderConfiguration) -> Void = { _ in }
    ) throws {
        let world = overSockets ? nil : VirtualWorld(seed: seed)
        self.world = world
        aliceDelegate = RecordingDelegate(world: world)
        bobDelegate = RecordingDelegate(world: world)
        var a = CallProviderConfiguration(
            accounts: [Account(addressOfRecord: "sip:alice@127.0.0.1")], listeners: [.init(.udp, "127.0.0.1:0")])
        a.t1 = .milliseconds(100)
        a.actionTimeout = .seconds(2)
        aliceConfiguration(&a)
        var b = CallProviderConfiguration(
            accounts: [Account(addressOfRecord: "sip:bob@127.0.0.1")], listeners: [.init(.udp, "127.0.0.1:0")])
        b.t1 = .milliseconds(100)
        b.actionTimeout = .seconds(2)
        bobConfiguration(&b)
        if let world {
            // Both on one address, as two processes on loopback are: the raw peers of the tests write it.
            alice = try world.makeProvider(configuration: a, host: "127.0.0.1")
            bob = try world.makeProvider(configuration: b, host: "127.0.0.1")
        } else {
            alice = try CallProvider(configuration: a)
            bob = try CallProvider(configuration: b)
        }
        alice.setDelegate(aliceDelegate, queue: nil)
        bob.setDelegate(bobDelegate, queue: nil)
        aliceController = CallController(provider: alice)
        bobController = CallController(provider: bob)
        let listener = bob.listeners.first { $0.transport == .udp }
        bobAddress = listener?.address ?? "127.0.0.1:5060"
    }

    var bobHandle: Handle { Handle(type: .generic, value: "sip:bob@\(bobAddress)") }

    /// Alice calls Bob and Bob answers; returns both UUIDs once both sides are connected.
    func connect() async throws -> (alice: UUID, bob: UUID) {
        let uuid = try await aliceController.startCall(to: bobHandle)
        let invite = try #require(await bobDelegate.invite())
        try await bobController.answerCall(invite.callUUID)
        _ = try #require(await aliceDelegate.connected(uuid))
        _ = try #require(await bobDelegate.connected(invite.callUUID))
        return (uuid, invite.callUUID)
    }

    /// Lets `duration` pass: virtual time in a virtual world, the wall clock over sockets.
    func pause(_ duration: Duration) async throws {
        if let world {
            world.advance(by: duration)
        } else {
            try await Task.sleep(for: duration)
        }
    }

    /// A raw UDP peer on the pair's network.
    func makePeer() throws -> SilentUDPPeer { try SilentUDPPeer(world: world) }

    func close() {
        alice.invalidate(timeout: .seconds(2))
        bob.invalidate(timeout: .seconds(2))
    }
}

/// Runs blocking work (a socket wait) on a thread of its own, so it never holds one of the few cooperative
/// threads that the tests' awaits (and the providers' event streams) need to make progress.
func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: work()) }
    }
}

extension CallProvider {
    /// Nothing of any call is left: no call record, session, transaction or media stream.
    var holdsNoCall: Bool {
        let figures = statistics
        return figures.liveCalls == 0 && figures.calls == 0 && figures.sessions == 0 && figures.transactions == 0
            && figures.mediaStreams == 0
    }
}
