public import Foundation

/// Everything the delegate hears, as values: `CallProvider.events` yields them for `for await` loops.
///
/// A struct over a kind and its payload rather than an enum, so a new event is not a breaking change
/// (STYLE.md "Errors that can grow"). Match on `kind` (a `switch` over it needs a `default:`) and read the
/// payload through the typed accessors, which are `nil` for the kinds that do not carry that value:
///
/// ```swift
/// for await event in provider.events {
///     switch event.kind {
///     case .connected: print("connected", event.call?.uuid as Any)
///     case .ended: print("ended", event.endDetails?.reason as Any)
///     default: break
///     }
/// }
/// ```
///
/// The factories are named after the delegate callbacks' moments (`.connected(call)`,
/// `.ended(call, details)`), so the events a test or a bridge builds read as they did.
public struct CallProviderEvent: Sendable, CustomStringConvertible {
    /// Which moment an event reports: a struct with static members, so a `switch` over it needs a
    /// `default:` and new kinds do not break it.
    public struct Kind: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The kinds this version knows; internal so the library's own switches stay exhaustive.
        enum Code: String, CaseIterable {
            case didBegin, didReset, invite, inviteCancelled, action, actionTimedOut, audioActivated
            case audioDeactivated, startedConnecting, ringing, connected, reconnecting, reconnected, updated
            case ended, dtmfReceived, transferred, registration, message, messageSummary, inviteArrived
        }

        /// The kind's code.
        let code: Code

        /// Wraps a known code.
        init(code: Code) { self.code = code }

        /// The provider is running (`providerDidBegin(_:)`); no payload.
        public static let didBegin = Kind(code: .didBegin)
        /// The provider stopped and every call is gone (`providerDidReset(_:)`); no payload.
        public static let didReset = Kind(code: .didReset)
        /// An INVITE arrived; `invite` is set.
        public static let invite = Kind(code: .invite)
        /// An invite ended before the answer; `cancelledInvite` is set.
        public static let inviteCancelled = Kind(code: .inviteCancelled)
        /// An action was handed to the delegate (or, with no delegate, fulfilled automatically); `action` is
        /// set.
        public static let action = Kind(code: .action)
        /// An action was neither fulfilled nor failed in time; `action` is set.
        public static let actionTimedOut = Kind(code: .actionTimedOut)
        /// Audio for a call is active; `callUUID` is set.
        public static let audioActivated = Kind(code: .audioActivated)
        /// Audio for a call stopped; `callUUID` is set.
        public static let audioDeactivated = Kind(code: .audioDeactivated)
        /// The INVITE of an outgoing call went out; `call` is set.
        public static let startedConnecting = Kind(code: .startedConnecting)
        /// The callee is alerted (18x); `call`, `statusCode` and `hasEarlyMedia` are set.
        public static let ringing = Kind(code: .ringing)
        /// The call is up; `call` is set.
        public static let connected = Kind(code: .connected)
        /// The call's flow broke and the stack is re-establishing it; `call` is set.
        public static let reconnecting = Kind(code: .reconnecting)
        /// The flow is back; `call` is set.
        public static let reconnected = Kind(code: .reconnected)
        /// Something about the call changed; `call` and `update` are set.
        public static let updated = Kind(code: .updated)
        /// The call ended; `call` and `endDetails` are set.
        public static let ended = Kind(code: .ended)
        /// The other side sent a DTMF digit; `call` and `digit` are set.
        public static let dtmfReceived = Kind(code: .dtmfReceived)
        /// The other side transferred the call (RFC 3515); `call`, `transferTarget` and `newCallUUID` are set.
        public static let transferred = Kind(code: .transferred)
        /// An account's registration changed; `account` and `registrationState` are set.
        public static let registration = Kind(code: .registration)
        /// A MESSAGE arrived (RFC 3428); `message` is set.
        public static let message = Kind(code: .message)
        /// A message-summary NOTIFY arrived for an account (RFC 3842); `account` and `messageSummary` are set.
        public static let messageSummary = Kind(code: .messageSummary)

        /// The INVITE of a call reported from a push arrived and is bound to that call; `invite` is set, with
        /// the same `callUUID` as the invite the push reported.
        public static let inviteArrived = Kind(code: .inviteArrived)

        /// Every kind this version knows, in declaration order.
        public static var allCases: [Kind] { Code.allCases.map(Kind.init(code:)) }

        /// The kind's name, spelt as its static member (`inviteCancelled`).
        public var description: String { code.rawValue }
    }

    /// What happened and the values that came with it; internal so the library's own switch (the
    /// delegate's callbacks) stays exhaustive.
    enum Payload: Sendable {
        case didBegin
        case didReset
        case invite(CallInvite)
        case inviteCancelled(CancelledCallInvite)
        case action(CallAction)
        case actionTimedOut(CallAction)
        case audioActivated(UUID)
        case audioDeactivated(UUID)
        case startedConnecting(Call)
        case ringing(Call, statusCode: Int, hasEarlyMedia: Bool)
        case connected(Call)
        case reconnecting(Call)
        case reconnected(Call)
        case updated(Call, CallUpdate)
        case ended(Call, CallEndDetails)
        case dtmfReceived(Call, digit: Character)
        case transferred(Call, to: Handle, newCallUUID: UUID)
        case registration(account: String, state: RegistrationState)
        case message(TextMessage)
        case messageSummary(account: String, summary: MessageSummary)
        case inviteArrived(CallInvite)
    }

    /// The payload in a box of its own: an event is copied several times between the loop that makes it
    /// and the delegate's queue (the outbox, the batch, each stream), and a `Call` snapshot is a few dozen
    /// words with a reference count each; the box makes every copy one retain.
    private final class Box: Sendable {
        let payload: Payload
        init(_ payload: Payload) { self.payload = payload }
    }

    private let box: Box

    /// The event's moment and values.
    var payload: Payload { box.payload }

    /// Whether the event hands over an action: matched in place, without copying the payload out.
    var isAction: Bool {
        switch box.payload {
        case .action: true
        default: false
        }
    }

    private init(_ payload: Payload) { box = Box(payload) }

    /// Which moment the event reports.
    public var kind: Kind {
        let code: Kind.Code =
            switch box.payload {
            case .didBegin: .didBegin
            case .didReset: .didReset
            case .invite: .invite
            case .inviteCancelled: .inviteCancelled
            case .action: .action
            case .actionTimedOut: .actionTimedOut
            case .audioActivated: .audioActivated
            case .audioDeactivated: .audioDeactivated
            case .startedConnecting: .startedConnecting
            case .ringing: .ringing
            case .connected: .connected
            case .reconnecting: .reconnecting
            case .reconnected: .reconnected
            case .updated: .updated
            case .ended: .ended
            case .dtmfReceived: .dtmfReceived
            case .transferred: .transferred
            case .registration: .registration
            case .message: .message
            case .messageSummary: .messageSummary
            case .inviteArrived: .inviteArrived
            }
        return Kind(code: code)
    }

    // MARK: Payload

    /// The call the event reports on, as it stood then: set for `startedConnecting`, `ringing`,
    /// `connected`, `reconnecting`, `reconnected`, `updated`, `ended`, `dtmfReceived` and `transferred`.
    public var call: Call? {
        switch payload {
        case .startedConnecting(let call), .connected(let call), .reconnecting(let call), .reconnected(let call),
            .ringing(let call, _, _), .updated(let call, _), .ended(let call, _), .dtmfReceived(let call, _),
            .transferred(let call, _, _):
            call
        default: nil
        }
    }

    /// The UUID of the call the event concerns, whatever its kind: the call's, the invite's, the action's,
    /// or the one whose audio changed (`audioActivated`, `audioDeactivated`). `nil` for provider and
    /// account events.
    public var callUUID: UUID? {
        switch payload {
        case .audioActivated(let uuid), .audioDeactivated(let uuid): uuid
        case .invite(let invite), .inviteArrived(let invite): invite.callUUID
        case .inviteCancelled(let invite): invite.callUUID
        case .action(let action), .actionTimedOut(let action): action.callUUID
        default: call?.uuid
        }
    }

    /// The incoming invite (`invite`), or the INVITE a pushed call waited for (`inviteArrived`).
    public var invite: CallInvite? {
        switch payload {
        case .invite(let invite), .inviteArrived(let invite): invite
        default: nil
        }
    }

    /// The invite that ended before the answer, with why (`inviteCancelled`).
    public var cancelledInvite: CancelledCallInvite? {
        if case .inviteCancelled(let invite) = payload { invite } else { nil }
    }

    /// The action handed to the delegate (`action`) or timed out (`actionTimedOut`).
    public var action: CallAction? {
        switch payload {
        case .action(let action), .actionTimedOut(let action): action
        default: nil
        }
    }

    /// The provisional status that alerted the callee, 180 or 183 say (`ringing`).
    public var statusCode: Int? {
        if case .ringing(_, let status, _) = payload { status } else { nil }
    }

    /// Whether the provisional response carried an answer, so early media plays (`ringing`); `false` for
    /// the other kinds.
    public var hasEarlyMedia: Bool {
        if case .ringing(_, _, let early) = payload { early } else { false }
    }

    /// What changed about the call (`updated`).
    public var update: CallUpdate? {
        if case .updated(_, let update) = payload { update } else { nil }
    }

    /// Why and how the call ended (`ended`).
    public var endDetails: CallEndDetails? {
        if case .ended(_, let details) = payload { details } else { nil }
    }

    /// The DTMF digit the other side sent (`dtmfReceived`).
    public var digit: Character? {
        if case .dtmfReceived(_, let digit) = payload { digit } else { nil }
    }

    /// Where the other side transferred the call: the REFER's Refer-To (`transferred`).
    public var transferTarget: Handle? {
        if case .transferred(_, let target, _) = payload { target } else { nil }
    }

    /// The outgoing call the stack placed to `transferTarget` (`transferred`).
    public var newCallUUID: UUID? {
        if case .transferred(_, _, let uuid) = payload { uuid } else { nil }
    }

    /// The account whose registration changed (`registration`) or whose mailbox summary arrived
    /// (`messageSummary`).
    public var account: String? {
        switch payload {
        case .registration(let account, _), .messageSummary(let account, _): account
        default: nil
        }
    }

    /// The account's new registration state (`registration`).
    public var registrationState: RegistrationState? {
        if case .registration(_, let state) = payload { state } else { nil }
    }

    /// The MESSAGE that arrived (`message`).
    public var message: TextMessage? {
        if case .message(let message) = payload { message } else { nil }
    }

    /// The account's message-waiting summary (`messageSummary`).
    public var messageSummary: MessageSummary? {
        if case .messageSummary(_, let summary) = payload { summary } else { nil }
    }

    /// The kind's name and the call it concerns, if any (`connected 6F9619FF-...`).
    public var description: String {
        if let uuid = callUUID { return "\(kind) \(uuid)" }
        if let account { return "\(kind) \(account)" }
        return kind.description
    }

    // MARK: Factories

    /// The provider is running: listeners are open and accounts are registering.
    public static let didBegin = CallProviderEvent(.didBegin)

    /// The provider stopped: every call is gone.
    public static let didReset = CallProviderEvent(.didReset)

    /// An INVITE arrived.
    /// - Parameter invite: the caller, the offer and the UUID to answer or reject it with.
    public static func invite(_ invite: CallInvite) -> CallProviderEvent { .init(.invite(invite)) }

    /// `provider(_:inviteDidArrive:)`.
    public static func inviteArrived(_ invite: CallInvite) -> CallProviderEvent { .init(.inviteArrived(invite)) }

    /// An invite ended before the answer (the caller cancelled, answered or declined elsewhere).
    /// - Parameter invite: the invite and why it ended.
    public static func inviteCancelled(_ invite: CancelledCallInvite) -> CallProviderEvent {
        .init(.inviteCancelled(invite))
    }

    /// An action was handed to the delegate (or, with no delegate, fulfilled automatically).
    /// - Parameter action: the action.
    public static func action(_ action: CallAction) -> CallProviderEvent { .init(.action(action)) }

    /// An action was neither fulfilled nor failed in time; it is treated as failed.
    /// - Parameter action: the action.
    public static func actionTimedOut(_ action: CallAction) -> CallProviderEvent {
        .init(.actionTimedOut(action))
    }

    /// Audio for a call is active: media flows (CallKit's `didActivate`).
    /// - Parameter callUUID: the call.
    public static func audioActivated(_ callUUID: UUID) -> CallProviderEvent {
        .init(.audioActivated(callUUID))
    }

    /// Audio for a call stopped.
    /// - Parameter callUUID: the call.
    public static func audioDeactivated(_ callUUID: UUID) -> CallProviderEvent {
        .init(.audioDeactivated(callUUID))
    }

    /// The INVITE of an outgoing call went out.
    /// - Parameter call: the call.
    public static func startedConnecting(_ call: Call) -> CallProviderEvent { .init(.startedConnecting(call)) }

    /// The callee is alerted (18x).
    /// - Parameters:
    ///   - call: the call.
    ///   - statusCode: the provisional status.
    ///   - hasEarlyMedia: whether it carried an answer.
    public static func ringing(_ call: Call, statusCode: Int, hasEarlyMedia: Bool) -> CallProviderEvent {
        .init(.ringing(call, statusCode: statusCode, hasEarlyMedia: hasEarlyMedia))
    }

    /// The call is up (UAC: 200 OK; UAS: ACK).
    /// - Parameter call: the call.
    public static func connected(_ call: Call) -> CallProviderEvent { .init(.connected(call)) }

    /// The call's flow broke and the stack is re-establishing it.
    /// - Parameter call: the call.
    public static func reconnecting(_ call: Call) -> CallProviderEvent { .init(.reconnecting(call)) }

    /// The flow is back.
    /// - Parameter call: the call.
    public static func reconnected(_ call: Call) -> CallProviderEvent { .init(.reconnected(call)) }

    /// Something about the call changed (remote hold, hold, media).
    /// - Parameters:
    ///   - call: the call, as it is now.
    ///   - update: what changed.
    public static func updated(_ call: Call, _ update: CallUpdate) -> CallProviderEvent {
        .init(.updated(call, update))
    }

    /// The call ended.
    /// - Parameters:
    ///   - call: the call, as it ended.
    ///   - details: the reason and the SIP facts behind it.
    public static func ended(_ call: Call, _ details: CallEndDetails) -> CallProviderEvent {
        .init(.ended(call, details))
    }

    /// The other side sent a DTMF digit (RFC 4733 or SIP INFO).
    /// - Parameters:
    ///   - call: the call.
    ///   - digit: the digit.
    public static func dtmfReceived(_ call: Call, digit: Character) -> CallProviderEvent {
        .init(.dtmfReceived(call, digit: digit))
    }

    /// The other side transferred the call to `target`; the stack placed `newCallUUID` there.
    /// - Parameters:
    ///   - call: the call that was transferred.
    ///   - target: the REFER's Refer-To.
    ///   - newCallUUID: the outgoing call placed to `target`.
    public static func transferred(_ call: Call, to target: Handle, newCallUUID: UUID) -> CallProviderEvent {
        .init(.transferred(call, to: target, newCallUUID: newCallUUID))
    }

    /// An account's registration changed.
    /// - Parameters:
    ///   - account: the account's identifier.
    ///   - state: its new state.
    public static func registration(account: String, state: RegistrationState) -> CallProviderEvent {
        .init(.registration(account: account, state: state))
    }

    /// A MESSAGE arrived (RFC 3428).
    /// - Parameter message: the message.
    public static func message(_ message: TextMessage) -> CallProviderEvent { .init(.message(message)) }

    /// A message-summary NOTIFY arrived for an account (RFC 3842).
    /// - Parameters:
    ///   - account: the account's identifier.
    ///   - summary: the summary.
    public static func messageSummary(account: String, summary: MessageSummary) -> CallProviderEvent {
        .init(.messageSummary(account: account, summary: summary))
    }
}
