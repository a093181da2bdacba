public import SDP
public import SIPMessage

/// What a session tells its transaction user (the API layer): progress, media, requests received in the
/// dialog, the end.
public enum SessionEvent: Sendable {
    /// UAC: 100 Trying arrived.
    case trying
    /// UAC: a provisional response (180 Ringing, 181, 182, 183 Session Progress, ...) arrived; `dialog`
    /// names the early dialog when it carried a To tag (forks give several).
    case ringing(status: Int, reasonPhrase: String, dialog: DialogID?)
    /// Early media: an answer (or an offer answered in the PRACK) in a provisional response negotiated a
    /// session (UAC); or this side sent one (UAS, 183 with SDP).
    case earlyMedia(NegotiatedSession)
    /// UAC: a 3xx named these targets; the call ends with `redirected` and the driver may call them.
    case redirected([Contact])
    /// An offer that this side must answer: the initial INVITE's (answered by `answer()`), or a re-offer
    /// when offers are not answered automatically (answered by `answerOffer()` or `rejectOffer(status:)`).
    case offerReceived(SessionDescription)
    /// The call is confirmed: UAC on the 2xx, UAS on the ACK. `nil` when no media was negotiated.
    case connected(NegotiatedSession?)
    /// A re-INVITE or UPDATE changed the session (either side's offer); the hold flags are in the value.
    case mediaUpdated(NegotiatedSession)
    /// The other side put the call on hold (`true`) or took it off (`false`) with its offer.
    case remoteHoldChanged(isOnHold: Bool)
    /// This side's re-offer was refused (any final non-2xx other than 491, which is retried); the session
    /// goes on with the media it had.
    case offerRejected(status: Int, reasonPhrase: String)
    /// The session was refreshed by a re-offer that changed nothing, or the session timer by either side
    /// (RFC 4028); `interval` is the new session interval, 0 when no session timer is in force.
    case sessionRefreshed(interval: UInt32)
    /// An INFO arrived in the dialog and was answered 200 (an `application/dtmf-relay` body also gives
    /// `dtmfReceived`).
    indirect case infoReceived(SIPRequest)
    /// A DTMF digit arrived in an INFO (`application/dtmf-relay`).
    case dtmfReceived(DTMFRelay)
    /// A MESSAGE arrived in the dialog and was answered 200 (RFC 3428).
    indirect case messageReceived(SIPRequest)
    /// The outcome of an INFO, MESSAGE or other request this side sent in the dialog (2xx or failure; 408
    /// for a timeout, 503 for a transport error).
    case requestCompleted(method: SIPMethod, status: Int, reasonPhrase: String)
    /// The other side asks this side to call someone (RFC 3515): answer with `acceptRefer(_:)` or
    /// `rejectRefer(_:status:)`, then report progress with `notifyRefer(_:status:reasonPhrase:)`. Boxed: the
    /// largest payload by far, it would size every event and every `SessionAction` a call moves.
    indirect case referReceived(ReferRequest)
    /// This side's REFER was accepted (202) or refused (any other final status).
    case referAnswered(status: Int, reasonPhrase: String)
    /// A NOTIFY about this side's REFER reported the transferee's call (a `message/sipfrag` status line);
    /// `isFinal` when the subscription ended with it.
    case referProgress(status: Int, reasonPhrase: String, isFinal: Bool)
    /// The call ended; the session may still finish a transaction (a BYE, an ACK) before `finished`.
    case ended(EndReason)
}

/// A REFER received in the dialog (RFC 3515): where to call, and what to put in that call.
public struct ReferRequest: Sendable, Hashable {
    /// Names this referral in `acceptRefer`, `rejectRefer` and `notifyRefer`: the REFER's CSeq number, which
    /// is also the `id` of its NOTIFYs' Event (RFC 3515 §2.4.6).
    public var id: UInt32
    /// The Refer-To value as received.
    public var referTo: NameAddress
    /// The URI to send the INVITE to: Refer-To's URI without its headers.
    public var target: URI
    /// The Replaces the new INVITE must carry, from Refer-To's `?Replaces=` header (RFC 3891 §7, attended
    /// transfer).
    public var replaces: Replaces?
    /// Referred-By (RFC 3892), to copy into the new INVITE.
    public var referredBy: NameAddress?
    /// Whether the referrer asked for no NOTIFYs (`Refer-Sub: false`, RFC 4488).
    public var suppressesNotifications: Bool
}
