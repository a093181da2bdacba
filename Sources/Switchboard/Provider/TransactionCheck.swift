import Foundation

/// Whether the calls may grow: `maximumCalls` live calls at most, and none once the provider winds down.
/// The one rule behind incoming INVITEs, start-call actions and REFERs. Pure.
struct CallAdmission {
    /// `CallProviderConfiguration.maximumCalls`.
    let maximumCalls: Int
    /// The provider is ending its calls: no new one is taken.
    var isWindingDown = false

    /// Whether an incoming INVITE may become a call (else it is refused with 486).
    func admitsIncoming(liveCalls: Int) -> Bool { !isWindingDown && liveCalls < maximumCalls }

    /// Whether a REFER may place a new call (else it is refused with 603).
    func admitsReferral(liveCalls: Int) -> Bool { liveCalls < maximumCalls }

    /// Whether one more outgoing call fits beside `liveCalls` and the `starting` ones of its transaction.
    func admitsOutgoing(liveCalls: Int, starting: Int) -> Bool { liveCalls + starting < maximumCalls }
}

/// Why a `CallTransaction` cannot be carried out, if it cannot: CallKit's request-transaction errors checked
/// against the calls, the accounts and the configuration before any action reaches the delegate. Pure.
struct TransactionCheck {
    let calls: CallTable
    let accounts: AccountBook
    let admission: CallAdmission
    /// `CallProviderConfiguration.supportedHandleTypes`.
    let supportedHandleTypes: Set<Handle.HandleType>

    /// The first reason `transaction` is refused, or nil when it may go ahead.
    func problem(with transaction: CallTransaction) -> CallError? {
        guard !transaction.actions.isEmpty else { return .emptyTransaction }
        guard !admission.isWindingDown else { return .providerUnavailable }
        var starting = Set<UUID>()
        let last = transaction.actions.count - 1
        for (index, action) in transaction.actions.enumerated() {
            if let start = action as? StartCallAction {
                if let error = problem(starting: start, besides: starting) { return error }
                // Only the actions after this one look at it: the usual one-action transaction fills no set.
                if index < last { starting.insert(start.callUUID) }
                continue
            }
            guard let record = calls[action.callUUID] else {
                if starting.contains(action.callUUID) { continue }
                return .unknownCallUUID
            }
            if let error = problem(with: action, on: record) { return error }
        }
        return nil
    }

    private func problem(starting start: StartCallAction, besides starting: Set<UUID>) -> CallError? {
        guard calls[start.callUUID] == nil, !starting.contains(start.callUUID) else { return .callUUIDAlreadyExists }
        guard admission.admitsOutgoing(liveCalls: calls.liveCount, starting: starting.count) else {
            return .maximumCallsReached
        }
        do throws(CallError) {
            _ = try accounts.target(start.handle, from: start.account)
        } catch {
            return error
        }
        guard supportedHandleTypes.contains(start.handle.type) else {
            return .invalidAction("handle type \(start.handle.type) is not supported")
        }
        return nil
    }

    private func problem(with action: CallAction, on record: CallRecord) -> CallError? {
        let state = record.state
        switch action {
        case is AnswerCallAction:
            guard record.call.direction == .incoming, state == .ringing else {
                return .invalidAction("only a ringing incoming call can be answered")
            }
        case is EndCallAction:
            guard state != .ended else { return .invalidAction("the call has ended") }
        case is SetHeldCallAction, is PlayDTMFCallAction:
            guard state == .connected else { return .invalidAction("the call is not connected") }
        case let transfer as TransferCallAction:
            guard state == .connected else { return .invalidAction("the call is not connected") }
            if let other = transfer.replacingCall {
                guard let target = calls[other], target.state == .connected else {
                    return .invalidAction("the call to replace is not connected")
                }
            }
        default:
            break
        }
        return nil
    }
}
