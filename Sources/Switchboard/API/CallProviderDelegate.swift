public import Foundation

/// What the provider tells the app, on the delegate's queue (never on the signalling loop). Only
/// `providerDidReset(_:)` is required. Every `provider(_:perform:)` must end with the action's `fulfill()`
/// or `fail()`; the defaults fulfil.
public protocol CallProviderDelegate: AnyObject, Sendable {
    /// The provider stopped: every call is gone. Drop call state.
    func providerDidReset(_ provider: CallProvider)
    /// The provider is running: listeners are open and accounts are registering.
    func providerDidBegin(_ provider: CallProvider)

    /// An INVITE arrived: answer or reject it through the `CallController` with `invite.callUUID`.
    func provider(_ provider: CallProvider, didReceive invite: CallInvite)
    /// An invite ended before the answer (the caller cancelled, answered or declined elsewhere).
    func provider(_ provider: CallProvider, didCancel invite: CancelledCallInvite)
    /// The INVITE of a call reported from a push (`CallProvider.reportPushPayload(_:)`) arrived: `invite`
    /// has its codecs and header fields, under the call UUID the push reported. No second `didReceive`.
    func provider(_ provider: CallProvider, inviteDidArrive invite: CallInvite)

    /// Prepare an outgoing call, then fulfil: the INVITE goes out.
    func provider(_ provider: CallProvider, perform action: StartCallAction)
    /// Prepare to answer, then fulfil: the 200 OK goes out.
    func provider(_ provider: CallProvider, perform action: AnswerCallAction)
    /// Fulfil to end the call (BYE, CANCEL or rejection).
    func provider(_ provider: CallProvider, perform action: EndCallAction)
    /// Fulfil to hold or resume (re-INVITE).
    func provider(_ provider: CallProvider, perform action: SetHeldCallAction)
    /// Fulfil to mute or unmute this side's audio.
    func provider(_ provider: CallProvider, perform action: SetMutedCallAction)
    /// Fulfil to send the digits.
    func provider(_ provider: CallProvider, perform action: PlayDTMFCallAction)
    /// Fulfil to transfer the call (REFER).
    func provider(_ provider: CallProvider, perform action: TransferCallAction)
    /// The action was neither fulfilled nor failed in time; it is treated as failed.
    func provider(_ provider: CallProvider, timedOutPerforming action: CallAction)

    /// Audio for the call is active: media flows (CallKit's `didActivate`).
    func provider(_ provider: CallProvider, didActivateAudioFor callUUID: UUID)
    /// Audio for the call stopped.
    func provider(_ provider: CallProvider, didDeactivateAudioFor callUUID: UUID)

    /// The INVITE of an outgoing call went out.
    func provider(_ provider: CallProvider, callDidStartConnecting call: Call)
    /// The callee is alerted (18x); `statusCode` is the provisional status, `hasEarlyMedia` when it carried
    /// an answer.
    func provider(_ provider: CallProvider, callDidStartRinging call: Call, statusCode: Int, hasEarlyMedia: Bool)
    /// The call is up (UAC: 200 OK; UAS: ACK).
    func provider(_ provider: CallProvider, callDidConnect call: Call)
    /// The call's flow broke and the stack is re-establishing it.
    func provider(_ provider: CallProvider, callIsReconnecting call: Call)
    /// The flow is back.
    func provider(_ provider: CallProvider, callDidReconnect call: Call)
    /// Something about the call changed (remote identity, remote hold, hold, media).
    func provider(_ provider: CallProvider, call: Call, didUpdate update: CallUpdate)
    /// The call ended.
    func provider(_ provider: CallProvider, call: Call, didEndWith details: CallEndDetails)
    /// The other side sent a DTMF digit (RFC 4733 or SIP INFO).
    func provider(_ provider: CallProvider, call: Call, didReceiveDTMF digit: Character)
    /// The other side transferred the call (RFC 3515 REFER, blind or attended): the stack accepted it and is
    /// placing `newCallUUID`, an outgoing call to `target` whose progress comes like any other's (report it
    /// to CallKit as a new outgoing call). `call` ends soon after, normally on the transferor's BYE once the
    /// new call is answered (RFC 5589); if none comes within 4 s of the final NOTIFY, the stack sends its own
    /// BYE and `call` ends as `remoteEnded` with the phrase "transferred". Told before the new call's first
    /// event.
    /// - Parameters:
    ///   - provider: the provider.
    ///   - call: the call that was transferred.
    ///   - target: where it was transferred to (the REFER's Refer-To).
    ///   - newCallUUID: the call placed to `target`.
    func provider(_ provider: CallProvider, call: Call, wasTransferredTo target: Handle, newCallUUID: UUID)

    /// An account's registration changed.
    func provider(_ provider: CallProvider, account: String, didChange state: RegistrationState)
    /// A MESSAGE arrived (RFC 3428).
    func provider(_ provider: CallProvider, didReceive message: TextMessage)
    /// A message-summary NOTIFY arrived for an account (RFC 3842).
    func provider(_ provider: CallProvider, account: String, didReceive summary: MessageSummary)
}

extension CallProviderDelegate {
    public func providerDidBegin(_ provider: CallProvider) {}
    public func provider(_ provider: CallProvider, didReceive invite: CallInvite) {}
    public func provider(_ provider: CallProvider, didCancel invite: CancelledCallInvite) {}
    public func provider(_ provider: CallProvider, inviteDidArrive invite: CallInvite) {}
    public func provider(_ provider: CallProvider, perform action: StartCallAction) { action.fulfill() }
    public func provider(_ provider: CallProvider, perform action: AnswerCallAction) { action.fulfill() }
    public func provider(_ provider: CallProvider, perform action: EndCallAction) { action.fulfill() }
    public func provider(_ provider: CallProvider, perform action: SetHeldCallAction) { action.fulfill() }
    public func provider(_ provider: CallProvider, perform action: SetMutedCallAction) { action.fulfill() }
    public func provider(_ provider: CallProvider, perform action: PlayDTMFCallAction) { action.fulfill() }
    public func provider(_ provider: CallProvider, perform action: TransferCallAction) { action.fulfill() }
    public func provider(_ provider: CallProvider, timedOutPerforming action: CallAction) {}
    public func provider(_ provider: CallProvider, didActivateAudioFor callUUID: UUID) {}
    public func provider(_ provider: CallProvider, didDeactivateAudioFor callUUID: UUID) {}
    public func provider(_ provider: CallProvider, callDidStartConnecting call: Call) {}
    public func provider(
        _ provider: CallProvider, callDidStartRinging call: Call, statusCode: Int, hasEarlyMedia: Bool
    ) {}
    public func provider(_ provider: CallProvider, callDidConnect call: Call) {}
    public func provider(_ provider: CallProvider, callIsReconnecting call: Call) {}
    public func provider(_ provider: CallProvider, callDidReconnect call: Call) {}
    public func provider(_ provider: CallProvider, call: Call, didUpdate update: CallUpdate) {}
    public func provider(_ provider: CallProvider, call: Call, didEndWith details: CallEndDetails) {}
    public func provider(_ provider: CallProvider, call: Call, didReceiveDTMF digit: Character) {}
    public func provider(_ provider: CallProvider, call: Call, wasTransferredTo target: Handle, newCallUUID: UUID) {}
    public func provider(_ provider: CallProvider, account: String, didChange state: RegistrationState) {}
    public func provider(_ provider: CallProvider, didReceive message: TextMessage) {}
    public func provider(_ provider: CallProvider, account: String, didReceive summary: MessageSummary) {}
}

/// A MESSAGE (RFC 3428), received or to send.
public struct TextMessage: Sendable, Hashable {
    /// The sender.
    public var from: Handle
    /// The recipient.
    public var to: Handle
    /// The body's media type (`text/plain`).
    public var contentType: String
    /// The body.
    public var body: [UInt8]
    /// The account it arrived on, if it matched one.
    public var account: String?

    /// A message with a body of `contentType`.
    public init(from: Handle, to: Handle, contentType: String = "text/plain", body: [UInt8], account: String? = nil) {
        self.from = from
        self.to = to
        self.contentType = contentType
        self.body = body
        self.account = account
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// A message-waiting summary (RFC 3842): whether messages wait, and how many.
public struct MessageSummary: Sendable, Hashable {
    /// `Messages-Waiting: yes`.
    public var messagesWaiting: Bool
    /// The voice-message account URI, if given.
    public var messageAccount: String?
    /// New voice messages.
    public var newMessages: Int
    /// Old voice messages.
    public var oldMessages: Int

    /// A summary from its parts.
    public init(messagesWaiting: Bool, messageAccount: String? = nil, newMessages: Int = 0, oldMessages: Int = 0) {
        self.messagesWaiting = messagesWaiting
        self.messageAccount = messageAccount
        self.newMessages = newMessages
        self.oldMessages = oldMessages
    }
}

/// One SIP message in or out, for traces, pcaps and call-flow views.
public struct SIPTraceEvent: Sendable {
    /// In or out.
    public enum Direction: String, Sendable, Hashable {
        case received, sent
    }

    /// In or out.
    public var direction: Direction
    /// The transport.
    public var transport: SIPTransportKind
    /// This side's address (`127.0.0.1:5060`).
    public var localAddress: String
    /// The other side's address.
    public var remoteAddress: String
    /// When, as wall-clock time.
    public var date: Date
    /// The message bytes, credentials already redacted (Authorization and Proxy-Authorization values).
    public var bytes: [UInt8]
}
