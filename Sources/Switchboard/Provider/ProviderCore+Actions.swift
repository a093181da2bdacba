import Foundation
import SIPMessage
import SIPUserAgent

/// The action pipeline: check a transaction, hand its actions to the delegate one after the other, and
/// carry each out once fulfilled (or roll it back when failed or timed out).
extension ProviderCore {
    func request(_ transaction: CallTransaction, completion: @escaping @Sendable (CallError?) -> Void) {
        if let error = check(transaction) {
            completion(error)
            return
        }
        for case let start as StartCallAction in transaction.actions {
            createOutgoingRecord(for: start)
        }
        completion(nil)
        deliver(transaction.actions[...])
    }

    /// Why a transaction cannot be carried out, if it cannot.
    private func check(_ transaction: CallTransaction) -> CallError? {
        guard !transaction.actions.isEmpty else { return .emptyTransaction }
        guard !isWindingDown else { return .providerUnavailable }
        var starting = Set<UUID>()
        for action in transaction.actions {
            if let start = action as? StartCallAction {
                guard calls[start.callUUID] == nil, !starting.contains(start.callUUID) else {
                    return .callUUIDAlreadyExists
                }
                guard liveCallCount + starting.count < configuration.maximumCalls else { return .maximumCallsReached }
                if let id = start.account, accounts[id] == nil { return .unknownAccount(id) }
                let entry = start.account.flatMap { accounts[$0] } ?? accountOrder.first.flatMap { accounts[$0] }
                do throws(CallError) {
                    _ = try start.handle.uri(defaultDomain: entry?.addressOfRecord.host.description)
                } catch {
                    return error
                }
                guard configuration.supportedHandleTypes.contains(start.handle.type) else {
                    return .invalidAction("handle type \(start.handle.type) is not supported")
                }
                starting.insert(start.callUUID)
                continue
            }
            guard let record = calls[action.callUUID] else {
                if starting.contains(action.callUUID) { continue }
                return .unknownCallUUID
            }
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
        }
        return nil
    }

    var liveCallCount: Int { liveCalls.count }

    /// Hands `actions.first` to the delegate (or fulfils it when there is none); the rest follow once it
    /// completes, so actions of one transaction never overlap (CallKit delivers DTMF the same way).
    private func deliver(_ actions: ArraySlice<CallAction>) {
        guard let action = actions.first else { return }
        let rest = actions.dropFirst()
        let timeout = configuration.actionTimeout
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
        emit(.action(action))
        if provider.provider?.outlet.hasDelegate != true { action.fulfill() }
    }

    /// Carries out a completed action.
    private func perform(_ action: CallAction, _ outcome: CallAction.Outcome) {
        if case .timedOut = outcome { emit(.actionTimedOut(action)) }
        guard case .fulfilled = outcome else {
            rollBack(action)
            return
        }
        guard let record = calls[action.callUUID], record.state != .ended else { return }
        switch action {
        case let start as StartCallAction:
            startSession(record, start)
        case let answer as AnswerCallAction:
            guard let key = record.session, record.state == .ringing else { return }
            cancelUnansweredTimer(record)
            record.state = .answering
            sessions.answer(key, headers: fields(answer.headers))
        case let ending as EndCallAction:
            end(action.callUUID, rejectStatus: ending.rejectStatus, reason: .localEnded)
        case let hold as SetHeldCallAction:
            guard let key = record.session, record.state == .connected else { return }
            record.call.isOnHold = hold.isOnHold
            if !hold.isOnHold { prepareMediaToReceive(record) }
            sessions.hold(key, hold.isOnHold)
        case let mute as SetMutedCallAction:
            record.call.isMuted = mute.isMuted
            setMediaMuted(record, mute.isMuted)
        case let dtmf as PlayDTMFCallAction:
            let digits = dtmf.digits.filter { "0123456789*#ABCDabcd".contains($0) }
            sendDigits(digits, on: record)
        case let transfer as TransferCallAction:
            guard let key = record.session else { return }
            if let other = transfer.replacingCall, let otherKey = calls[other]?.session {
                record.isTransferring = true
                sessions.refer(key, replacing: otherKey)
            } else if let target = transfer.target {
                let entry = record.call.account.flatMap { accounts[$0] }
                guard let uri = try? target.uri(defaultDomain: entry?.addressOfRecord.host.description) else {
                    return
                }
                record.isTransferring = true
                sessions.refer(key, to: uri)
            }
        default:
            break
        }
    }

    /// Undoes what a failed or timed-out action prepared.
    private func rollBack(_ action: CallAction) {
        guard let record = calls[action.callUUID] else { return }
        switch action {
        case is StartCallAction where record.session == nil:
            finishRecord(record, CallEndDetails(reason: .failed, reasonPhrase: "the start-call action failed"))
        case is AnswerCallAction:
            guard let key = record.session, record.state == .ringing || record.state == .answering else { return }
            sessions.reject(key, status: 480)
        default:
            break
        }
    }

    /// Header fields from the app's name/value pairs; names that are not tokens are skipped.
    func fields(_ headers: [(name: String, value: String)]) -> [SIPField] {
        headers.compactMap { header in
            guard let name = SIPField.Name(header.name),
                !header.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A })
            else { return nil }
            return SIPField(name: name, value: header.value)
        }
    }
}
