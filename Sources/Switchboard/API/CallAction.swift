public import Foundation
import Synchronization

/// Something the app asks the stack to do with a call, as CallKit's `CXCallAction`: the provider hands it to
/// the delegate, the delegate prepares (UI, audio) and calls `fulfill()` or `fail()`, and the stack then does
/// the SIP and media work (or rolls back). The first of `fulfill()` and `fail()` wins; later calls, and calls
/// after a timeout, have no effect. Both are safe from any thread.
public class CallAction: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: every stored property is a `let` of a Sendable type or lives inside `state`, a
    // Mutex; subclasses add only `let`s of Sendable types (and their own Mutex where they record a date).

    /// Identifies this action.
    public let uuid: UUID
    /// The call the action is about.
    public let callUUID: UUID

    struct State {
        var outcome: Outcome?
        var timeoutDate: Date = .distantFuture
        var onComplete: (@Sendable (Outcome) -> Void)?
    }

    enum Outcome: Sendable {
        case fulfilled(Date)
        case failed
        case timedOut
    }

    let state = Mutex(State())

    init(call: UUID) {
        self.uuid = RandomUUID.make()
        self.callUUID = call
    }

    /// Whether the action was fulfilled, failed or timed out.
    public var isComplete: Bool { state.withLock { $0.outcome != nil } }

    /// When the provider stops waiting and reports `provider(_:timedOutPerforming:)`; `distantFuture` until
    /// the action is handed to the delegate.
    public var timeoutDate: Date { state.withLock { $0.timeoutDate } }

    /// The delegate did what the action needs; the stack carries it out.
    public func fulfill() { complete(.fulfilled(Date())) }

    /// The delegate could not perform the action; the stack rolls back (an answer becomes a 480 to the
    /// caller, a start-call is abandoned).
    public func fail() { complete(.failed) }

    /// Records `outcome` and runs the armed handler with it; false (and nothing runs) when the action had
    /// an outcome already.
    @discardableResult
    func complete(_ outcome: Outcome) -> Bool {
        let (isFirst, handler) = state.withLock { state -> (Bool, (@Sendable (Outcome) -> Void)?) in
            guard state.outcome == nil else { return (false, nil) }
            state.outcome = outcome
            defer { state.onComplete = nil }
            return (true, state.onComplete)
        }
        handler?(outcome)
        return isFirst
    }

    /// Arms the action: `handler` runs once with the outcome. Called by the provider before the delegate
    /// sees the action.
    func arm(timeout: Date, _ handler: @escaping @Sendable (Outcome) -> Void) {
        state.withLock {
            $0.timeoutDate = timeout
            $0.onComplete = handler
        }
    }

    /// The outcome, once there is one.
    var outcome: Outcome? { state.withLock { $0.outcome } }

    var name: String { "action" }

    public var description: String { "\(name) \(uuid) call=\(callUUID)" }
}

/// Place a call (CallKit's `CXStartCallAction`).
public final class StartCallAction: CallAction, @unchecked Sendable {
    // @unchecked Sendable: only `let`s of Sendable types are added.

    /// Whom to call.
    public let handle: Handle
    /// The app's contact identifier for the callee, if any.
    public let contactIdentifier: String?
    /// Always false: Switchboard places audio calls.
    public let isVideo: Bool
    /// The account the call is placed from (its `id`); `nil` for the first account.
    public let account: String?
    /// Extra header fields for the INVITE (`X-Tenant: 42`, ...), in order.
    public let headers: [(name: String, value: String)]

    /// A start-call action for the call `call` to `handle`.
    /// - Parameters:
    ///   - call: the new call's UUID.
    ///   - handle: whom to call.
    ///   - account: the account to call from; `nil` for the first.
    ///   - contactIdentifier: the app's identifier for the callee.
    ///   - headers: extra INVITE header fields.
    public init(
        call: UUID, handle: Handle, account: String? = nil, contactIdentifier: String? = nil,
        headers: [(name: String, value: String)] = []
    ) {
        self.handle = handle
        self.account = account
        self.contactIdentifier = contactIdentifier
        self.isVideo = false
        self.headers = headers
        super.init(call: call)
    }

    /// Fulfils the action, saying when the call started (CallKit's `fulfill(withDateStarted:)`).
    public func fulfill(withDateStarted date: Date) { complete(.fulfilled(date)) }

    override var name: String { "start-call" }
}

/// Answer an incoming call (CallKit's `CXAnswerCallAction`).
public final class AnswerCallAction: CallAction, @unchecked Sendable {
    // @unchecked Sendable: only `let`s of Sendable types are added.

    /// Extra header fields for the 200 OK.
    public let headers: [(name: String, value: String)]

    /// An answer action for `call`, with extra 200 OK header fields.
    public init(call: UUID, headers: [(name: String, value: String)] = []) {
        self.headers = headers
        super.init(call: call)
    }

    /// Fulfils the action, saying when the call connected (CallKit's `fulfill(withDateConnected:)`).
    public func fulfill(withDateConnected date: Date) { complete(.fulfilled(date)) }

    override var name: String { "answer-call" }
}

/// End a call (CallKit's `CXEndCallAction`): BYE when connected, CANCEL before the answer, and a rejection
/// (`rejectStatus`, 603 Decline by default) for an incoming call not answered yet.
public final class EndCallAction: CallAction, @unchecked Sendable {
    // @unchecked Sendable: only `let`s of Sendable types are added.

    /// The status an unanswered incoming call is rejected with (486 Busy Here, 603 Decline, ...).
    public let rejectStatus: Int

    /// An end action for `call`; `rejectStatus` applies only to an unanswered incoming call.
    public init(call: UUID, rejectStatus: Int = 603) {
        self.rejectStatus = (400...699).contains(rejectStatus) ? rejectStatus : 603
        super.init(call: call)
    }

    /// Fulfils the action, saying when the call ended (CallKit's `fulfill(withDateEnded:)`).
    public func fulfill(withDateEnded date: Date) { complete(.fulfilled(date)) }

    override var name: String { "end-call" }
}

/// Hold or resume a call by re-INVITE (CallKit's `CXSetHeldCallAction`): `a=sendonly` to hold, `sendrecv`
/// to resume.
public final class SetHeldCallAction: CallAction, @unchecked Sendable {
    // @unchecked Sendable: only `let`s of Sendable types are added.

    /// Hold (`true`) or resume (`false`).
    public let isOnHold: Bool

    /// A hold (`onHold: true`) or resume action for `call`.
    public init(call: UUID, onHold: Bool) {
        self.isOnHold = onHold
        super.init(call: call)
    }

    override var name: String { isOnHold ? "hold" : "resume" }
}

/// Mute or unmute this side's audio (CallKit's `CXSetMutedCallAction`); no signalling.
public final class SetMutedCallAction: CallAction, @unchecked Sendable {
    // @unchecked Sendable: only `let`s of Sendable types are added.

    /// Mute (`true`) or unmute (`false`).
    public let isMuted: Bool

    /// A mute (`muted: true`) or unmute action for `call`.
    public init(call: UUID, muted: Bool) {
        self.isMuted = muted
        super.init(call: call)
    }

    override var name: String { isMuted ? "mute" : "unmute" }
}

/// Send DTMF digits (CallKit's `CXPlayDTMFCallAction`): RFC 4733 telephone-events when negotiated, SIP INFO
/// (`application/dtmf-relay`) otherwise.
public final class PlayDTMFCallAction: CallAction, @unchecked Sendable {
    // @unchecked Sendable: only `let`s of Sendable types are added.

    /// How the digits are played, as CallKit's `CXPlayDTMFCallActionType`.
    public enum ToneType: Sendable, Hashable {
        /// Each digit is a separate tone.
        case singleTone
        /// A soft pause (`,`: two seconds) is allowed in the digits.
        case softPause
        /// A hard pause (`;`: wait) is allowed in the digits.
        case hardPause
    }

    /// The digits: `0`-`9`, `*`, `#`, `A`-`D`, and the pauses of `type`.
    public let digits: String
    /// How they are played.
    public let type: ToneType

    /// A DTMF action for `call`.
    public init(call: UUID, digits: String, type: ToneType = .singleTone) {
        self.digits = digits
        self.type = type
        super.init(call: call)
    }

    override var name: String { "play-dtmf" }
}

/// Transfer a call with REFER (RFC 3515): blind to `target`, or attended by replacing another call
/// (`Refer-To` with `Replaces`, RFC 3891). Beyond CallKit.
public final class TransferCallAction: CallAction, @unchecked Sendable {
    // @unchecked Sendable: only `let`s of Sendable types are added.

    /// Where to send the other party (blind transfer).
    public let target: Handle?
    /// The call to connect the other party to (attended transfer): its remote party becomes the target
    /// and its dialog is replaced.
    public let replacingCall: UUID?

    /// A blind transfer of `call` to `target`.
    public init(call: UUID, to target: Handle) {
        self.target = target
        self.replacingCall = nil
        super.init(call: call)
    }

    /// An attended transfer: the other party of `call` is connected to the other party of `other`.
    public init(call: UUID, replacing other: UUID) {
        self.target = nil
        self.replacingCall = other
        super.init(call: call)
    }

    override var name: String { "transfer" }
}

/// A group of actions requested together (CallKit's `CXTransaction`).
public struct CallTransaction: Sendable, CustomStringConvertible {
    /// Identifies the transaction.
    public let uuid: UUID
    /// The actions, performed in order.
    public private(set) var actions: [CallAction]

    /// A transaction of one action.
    public init(action: CallAction) { self.init(actions: [action]) }

    /// A transaction of several actions.
    public init(actions: [CallAction]) {
        self.uuid = RandomUUID.make()
        self.actions = actions
    }

    /// Whether every action completed.
    public var isComplete: Bool { actions.allSatisfy(\.isComplete) }

    /// Adds an action at the end.
    public mutating func addAction(_ action: CallAction) { actions.append(action) }

    public var description: String { "transaction \(uuid) [\(actions.map(\.name).joined(separator: ", "))]" }
}
