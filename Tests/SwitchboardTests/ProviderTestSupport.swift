import Dispatch
import Foundation
import Switchboard
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

    /// Waits (up to `seconds`) until an event matches and returns it.
    func wait<T>(seconds: Double = 10, _ match: (CallProviderEvent) -> T?) async -> T? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            let snapshot = events.withLock { $0 }
            if let found = snapshot.lazy.compactMap(match).first { return found }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    var invites: [CallInvite] { events.withLock { $0.compactMap { if case .invite(let i) = $0 { i } else { nil } } } }

    func ended(_ uuid: UUID, seconds: Double = 10) async -> CallEndDetails? {
        await wait(seconds: seconds) {
            if case .ended(let call, let details) = $0, call.uuid == uuid { return details }
            return nil
        }
    }

    func connected(_ uuid: UUID? = nil, seconds: Double = 10) async -> Call? {
        await wait(seconds: seconds) {
            if case .connected(let call) = $0, uuid == nil || call.uuid == uuid { return call }
            return nil
        }
    }

    func invite(seconds: Double = 10) async -> CallInvite? {
        await wait(seconds: seconds) { if case .invite(let invite) = $0 { return invite } else { return nil } }
    }
}

/// Two providers on loopback UDP with short timers: `alice` calls `bob`.
struct ProviderPair {
    let alice: CallProvider
    let bob: CallProvider
    let aliceDelegate = RecordingDelegate()
    let bobDelegate = RecordingDelegate()
    let aliceController: CallController
    let bobController: CallController
    let bobAddress: String

    init(
        aliceConfiguration: (inout CallProviderConfiguration) -> Void = { _ in },
        bobConfiguration: (inout CallProviderConfiguration) -> Void = { _ in }
    ) throws {
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
        alice = try CallProvider(configuration: a)
        bob = try CallProvider(configuration: b)
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
