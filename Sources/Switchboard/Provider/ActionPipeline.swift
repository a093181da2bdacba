import Foundation
import SIPTransport

/// Carries out the app's call transactions CallKit's way: checks each one, hands its actions to the
/// delegate one at a time with the action timeout, and carries each out on the calls once fulfilled (or
/// undoes what a failed or timed-out one prepared). Loop-confined.
final class ActionPipeline: @unchecked Sendable {
    // @unchecked Sendable: loop-confined; the reference crosses threads only to post work back to the loop.

    private let engine: Engine
    private let calls: CallCoordinator
    private let timeout: Duration
    private let supportedHandleTypes: Set<Handle.HandleType>
    /// Whether the app's delegate performs actions: not without a delegate, nor with a relay that fulfils
    /// every action as it hears it. Actions no delegate performs are fulfilled and carried out at once.
    var delegatePerformsActions: () -> Bool = { false }

    init(engine: Engine, calls: CallCoordinator, configuration: CallProviderConfiguration) {
        self.engine = engine
        self.calls = calls
        timeout = configuration.actionTimeout
        supportedHandleTypes = configuration.supportedHandleTypes
    }

    /// Checks `transaction`, tells `completion` whether it was accepted, and then hands its actions over.
    func request(_ transaction: CallTransaction, completion: @escaping @Sendable (CallError?) -> Void) {
        let check = TransactionCheck(
            calls: calls.table, accounts: calls.accounts, admission: calls.admission,
            supportedHandleTypes: supportedHandleTypes)
        if let error = check.problem(with: transaction) {
            completion(error)
            return
        }
        for case let start as StartCallAction in transaction.actions { calls.prepareOutgoing(start) }
        completion(nil)
        deliver(transaction.actions[...])
    }

    /// Hands `actions.first` to the delegate (or fulfils it when there is none); the rest follow once it
    /// completes, so actions of one transaction never overlap (CallKit delivers DTMF the same way).
    private func deliver(_ actions: ArraySlice<CallAction>) {
        guard let action = actions.first else { return }
        let rest = actions.dropFirst()
        guard delegatePerformsActions() else {
            // No one to wait for: no timeout timer, and no trip through the loop's inbox to carry it out.
            calls.emit(.action(action))
            let outcome = CallAction.Outcome.fulfilled(Date())
            if action.complete(outcome) { perform(action, outcome) }
            deliver(rest)
            return
        }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let timer = engine.loop.scheduleTimer(after: timeout) { action.complete(.timedOut) }
        action.arm(timeout: engine.date.addingTimeInterval(seconds)) { [weak self, engine] outcome in
            engine.execute { [weak self] in
                guard let self else { return }
                self.engine.loop.cancelTimer(timer)
                self.perform(action, outcome)
                self.deliver(rest)
            }
        }
        calls.emit(.action(action))
    }

    /// Carries out a completed action.
    private func perform(_ action: CallAction, _ outcome: CallAction.Outcome) {
        if case .timedOut = outcome { calls.emit(.actionTimedOut(action)) }
        guard case .fulfilled = outcome else {
            rollBack(action)
            return
        }
        guard let record = calls.table[action.callUUID], record.state != .ended else { return }
        switch action {
        case let start as StartCallAction: calls.startSession(record, start)
        case let answer as AnswerCallAction: calls.answer(record, headers: answer.headers)
        case let ending as EndCallAction:
            calls.end(action.callUUID, rejectStatus: ending.rejectStatus, reason: .localEnded)
        case let hold as SetHeldCallAction: calls.hold(record, hold.isOnHold)
        case let mute as SetMutedCallAction: calls.mute(record, mute.isMuted)
        case let dtmf as PlayDTMFCallAction:
            calls.playDigits(dtmf.digits.filter { "0123456789*#ABCDabcd".contains($0) }, on: record)
        case let transfer as TransferCallAction: calls.transfer(record, transfer)
        default: break
        }
    }

    /// Undoes what a failed or timed-out action prepared.
    private func rollBack(_ action: CallAction) {
        guard let record = calls.table[action.callUUID] else { return }
        switch action {
        case is StartCallAction where record.session == nil:
            calls.finish(record, CallEndDetails(reason: .failed, reasonPhrase: "the start-call action failed"))
        case is AnswerCallAction:
            calls.refuseAnswer(record)
        default:
            break
        }
    }
}
