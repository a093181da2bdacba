public import Dispatch
public import Foundation

/// Requests actions from the provider, as CallKit's `CXCallController`: each transaction is checked and,
/// when it fits, its actions go to the delegate to perform. The completion says whether the request was
/// accepted, not how the call went (the delegate hears that).
public final class CallController: Sendable {
    private let provider: CallProvider
    private let queue: DispatchQueue

    /// A controller for `provider`; completions run on `queue` (a private serial queue when `nil`).
    public init(provider: CallProvider, queue: DispatchQueue? = nil) {
        self.provider = provider
        self.queue = queue ?? DispatchQueue(label: "switchboard.controller")
    }

    /// Requests `transaction`; `completion` gets `nil` when it was accepted, else the reason.
    public func request(_ transaction: CallTransaction, completion: @escaping @Sendable (CallError?) -> Void) {
        provider.request(transaction, completionQueue: queue, completion: completion)
    }

    /// Requests `transaction` and returns once it was accepted.
    /// - Throws: `CallError` naming why it was refused.
    /// Requests `transaction` and calls `completion` on the provider's loop rather than on the queue: for a
    /// completion that only records the outcome and never blocks, it saves a hop to the queue per request.
    /// Within the package only (the command-line tool).
    package func requestCompletingOnLoop(
        _ transaction: CallTransaction, completion: @escaping @Sendable (CallError?) -> Void
    ) {
        provider.request(transaction, completion: completion)
    }

    public func request(_ transaction: CallTransaction) async throws(CallError) {
        let error: CallError? = await withCheckedContinuation { continuation in
            provider.request(transaction) { continuation.resume(returning: $0) }
        }
        if let error { throw error }
    }

    /// Requests a transaction of one action.
    public func requestTransaction(with action: CallAction, completion: @escaping @Sendable (CallError?) -> Void) {
        request(CallTransaction(action: action), completion: completion)
    }

    /// Requests a transaction of several actions.
    public func requestTransaction(
        with actions: [CallAction], completion: @escaping @Sendable (CallError?) -> Void
    ) {
        request(CallTransaction(actions: actions), completion: completion)
    }

    // MARK: Async conveniences

    /// Places a call to `handle` and returns its UUID once the request was accepted; progress arrives at
    /// the delegate and on `provider.events`.
    @discardableResult
    public func startCall(
        to handle: Handle, from account: String? = nil, headers: [(name: String, value: String)] = []
    ) async throws(CallError) -> UUID {
        let uuid = provider.engine.environment.random.uuid()
        try await request(
            CallTransaction(action: StartCallAction(call: uuid, handle: handle, account: account, headers: headers)))
        return uuid
    }

    /// Answers the incoming call `call`.
    public func answerCall(_ call: UUID, headers: [(name: String, value: String)] = []) async throws(CallError) {
        try await request(CallTransaction(action: AnswerCallAction(call: call, headers: headers)))
    }

    /// Ends `call` (rejecting it with `rejectStatus` when it is an unanswered incoming call).
    public func endCall(_ call: UUID, rejectStatus: Int = 603) async throws(CallError) {
        try await request(CallTransaction(action: EndCallAction(call: call, rejectStatus: rejectStatus)))
    }

    /// Holds or resumes `call`.
    public func setHeld(_ call: UUID, _ onHold: Bool) async throws(CallError) {
        try await request(CallTransaction(action: SetHeldCallAction(call: call, onHold: onHold)))
    }

    /// Mutes or unmutes `call`.
    public func setMuted(_ call: UUID, _ muted: Bool) async throws(CallError) {
        try await request(CallTransaction(action: SetMutedCallAction(call: call, muted: muted)))
    }

    /// Sends DTMF digits on `call`.
    public func playDTMF(_ call: UUID, digits: String) async throws(CallError) {
        try await request(CallTransaction(action: PlayDTMFCallAction(call: call, digits: digits)))
    }

    /// Transfers `call` to `target` (blind transfer).
    public func transfer(_ call: UUID, to target: Handle) async throws(CallError) {
        try await request(CallTransaction(action: TransferCallAction(call: call, to: target)))
    }
}
