import SDP
public import SIPMessage

/// How a re-offer travels (RFC 3311 §5.1: UPDATE changes the session without touching the dialog's INVITE
/// state; RFC 3261 §14: re-INVITE).
public enum OfferMethod: Sendable, Hashable {
    /// A re-INVITE.
    case invite
    /// An UPDATE.
    case update
}

/// A re-offer this side wants to make: what for, and how.
struct LocalOffer: Sendable, Hashable {
    enum Intent: Sendable, Hashable {
        /// sendonly (or inactive).
        case hold
        /// sendrecv (or recvonly).
        case resume
        /// The current hold state with the current configuration (a media change).
        case renegotiate
        /// A session refresh (RFC 4028): the same SDP in a re-INVITE, or an UPDATE without SDP.
        case refresh
        /// A new DTLS association (RFC 8842 §5.2): a new tls-id, the current hold state.
        case renewDTLS
    }

    var intent: Intent
    var method: OfferMethod
}

/// The UAC's initial INVITE while its client transaction lives: from `start()` until the transaction ends.
/// It outlasts the call's early phases, as a 2xx from another fork or one crossing the CANCEL still has to be
/// ACKed from it (§13.2.2.4).
struct OutgoingInvite: Sendable {
    enum CancelState: Sendable {
        case none
        /// Asked for before any provisional response: sent when one arrives (§9.1).
        case pending
        case sent
    }

    var token: RequestToken
    /// Where the INVITE went: the first pre-existing route, or the Request-URI.
    var nextHop: URI
    /// The INVITE as sent (for CANCEL, retries and the ACKs of its 2xx).
    var request: SIPRequest
    /// The offer/answer state right after the INVITE went out: each new fork starts from a copy.
    var template: OfferAnswer
    var cancel: CancelState = .none
    /// The Reason values of the CANCEL, also put in the BYE of a 2xx that crosses it.
    var cancelReasons: [Reason] = []
    var hasProvisional = false

    var isCancelRequested: Bool {
        if case .none = cancel { return false }
        return true
    }
}

/// What the UAC knows while no 2xx has come (states `calling` and `early`): its early dialogs besides the
/// current one, and the reliable provisional responses of the current one.
struct OutgoingAttempt: Sendable {
    /// The early dialogs other than `dialog` (a forked INVITE), each with its own offer/answer state.
    var forks: [EarlyDialog] = []
    /// The RSeq of the last reliable provisional response PRACKed in `dialog` (RFC 3262 §4).
    var remoteRSeq: UInt32?
    /// How many times the INVITE went again after a 401, 407 or 422.
    var retries: UInt8 = 0
}

/// The phase's `IncomingInvite`, changed in place from `incoming` to `early` and on: a UAS call's start and
/// first provisional response need no new box each.
///
/// `@unchecked Sendable`: `invite` changes only inside `InviteSession`'s mutating methods, and only after
/// `isKnownUniquelyReferenced` found the box held by that one session (a copied session gets a box of its own
/// first), so no box that changes is ever shared between sessions or threads.
final class IncomingInviteBox: @unchecked Sendable {
    /// Without run-time exclusivity checks: its one owner, a session in a mutating method, reads and writes it
    /// through the box it just found unique, never in two overlapping accesses.
    @exclusivity(unchecked) var invite: IncomingInvite

    init(_ invite: IncomingInvite) {
        self.invite = invite
    }
}

/// The UAS's initial INVITE until its final response (states `incoming` and `early`).
struct IncomingInvite: Sendable {
    enum AnswerDelivery: Sendable {
        case none
        case unreliable
        case reliable
    }

    var request: SIPRequest
    var token: ServerTransactionToken
    /// The request's CSeq number, once the dialog has read it (`startIncoming`).
    var sequenceNumber: UInt32?
    var hasOffer = false
    var answerDelivery = AnswerDelivery.none
    /// `answer()` waits for the PRACK of a reliable 1xx that carried SDP (RFC 3262 §3).
    var deferredAnswerHeaders: [SIPField]?
    var peerSupports100rel = false
    var peerRequires100rel = false
    var peerSupportsTimer = false
    /// Session-Expires and `Require: timer` for the 2xx, decided when the INVITE arrived.
    var sessionExpires: SessionExpires?
    /// The refresher `sessionExpires` names.
    var sessionRefresher: SessionExpires.Refresher?
    var requiresTimer = false
    /// Via, From, To with this side's tag, Call-ID, CSeq (RFC 3261 §8.2.6.2), Server, Record-Route and
    /// Contact (§12.1.1) of the responses above 100 to it: the same for each, made once.
    var responseFields: SharedResponseFields?
    /// The reliable provisional responses, once `start()` accepted the INVITE.
    var reliable: ReliableProvisionals?

    init(request: SIPRequest, token: ServerTransactionToken) {
        self.request = request
        self.token = token
    }

    /// The RAck a PRACK must carry: the pending reliable provisional response's RSeq and the INVITE's CSeq
    /// (RFC 3262 §7.2); `nil` when no reliable provisional response awaits its PRACK.
    var awaitedRAck: RAck? {
        guard let pending = reliable?.pending, let cseq = (try? request.cseq) ?? nil else { return nil }
        return RAck(responseNumber: pending.rseq, cseqNumber: cseq.sequenceNumber, method: .invite)
    }
}

/// The header fields the responses to an INVITE share, and the configuration they were made with
/// (`InviteSession.configurationGeneration`): a changed Contact or User-Agent applies to the next response.
struct SharedResponseFields: Sendable {
    var fields: SIPFields
    var generation: UInt32
}

/// A UAC early dialog other than the current one.
struct EarlyDialog: Sendable {
    var dialog: Dialog
    var offerAnswer: OfferAnswer
    var remoteRSeq: UInt32?
}

/// A client transaction the session started.
struct ClientTransaction: Sendable {
    enum Purpose: Sendable, Hashable {
        case invite
        case reinvite(LocalOffer)
        case update(LocalOffer)
        case prack
        case bye
        case cancel
        /// The BYE for an extra 2xx of a forked INVITE.
        case forkBye
        case refer
        /// A NOTIFY about the referral with this id.
        case notify(UInt32)
        /// INFO, MESSAGE or another request whose outcome the TU hears.
        case request
    }

    var token: RequestToken
    var purpose: Purpose
    var sequenceNumber: UInt32
    var nextHop: URI
    /// The request as sent, kept for 401/407/422 retries until the final response.
    var request: SIPRequest?
    /// A final response arrived (an INVITE stays for its 2xx retransmissions until the transaction ends).
    var isCompleted = false
    var retries: UInt8 = 0
}

/// The ACK of a 2xx to an INVITE whose client transaction outlives the session (`InviteSession.lingeringACKs`):
/// each retransmission of that 2xx, reported for `token` with `remoteTag` in its To, gets `request` again,
/// sent to `nextHop` (§13.2.2.4).
public struct LingeringACK: Sendable {
    /// The INVITE's (or re-INVITE's) client transaction.
    public let token: RequestToken
    /// The To tag of the 2xx the ACK acknowledges.
    public let remoteTag: String
    /// The ACK as first sent (without its Via).
    public let request: SIPRequest
    /// Where it went.
    public let nextHop: URI

    /// Whether `response`, reported for `token`, is a retransmission of the 2xx this ACK acknowledges.
    public func acknowledges(_ response: SIPResponse, for token: RequestToken) -> Bool {
        token == self.token && response.isSuccess && (try? response.to)??.tag == remoteTag
    }
}

/// An ACK sent for a 2xx, re-sent on each retransmission of that 2xx (§13.2.2.4).
struct SentACK: Sendable {
    var remoteTag: String
    var sequenceNumber: UInt32
    var request: SIPRequest
    var nextHop: URI
}

/// A 2xx to an INVITE, re-sent until its ACK arrives (§13.3.1.4): the initial INVITE's in state `connecting`,
/// a re-INVITE's in `confirmed`.
struct AwaitingACK: Sendable {
    var token: ServerTransactionToken
    var response: SIPResponse
    var sequenceNumber: UInt32
    var interval: Duration
    /// The 2xx carried an offer: the ACK carries the answer.
    var expectsAnswer: Bool
}

/// The UAS's reliable provisional responses (RFC 3262 §3).
struct ReliableProvisionals: Sendable {
    struct Pending: Sendable {
        var response: SIPResponse
        var rseq: UInt32
        var interval: Duration
        var carriesSDP: Bool
    }

    var nextRSeq: UInt32
    var pending: Pending?
    /// Reliable provisional responses waiting for the PRACK of the pending one (one at a time).
    var queued: [SIPResponse] = []
}

/// A re-INVITE or UPDATE received and not yet answered with a final response.
struct PendingRemoteOffer: Sendable {
    var token: ServerTransactionToken
    var request: SIPRequest
    var offer: SessionDescription?
    var sessionExpires: SessionExpires?
    var requiresTimer: Bool
}

/// The session timer in force (RFC 4028).
struct ActiveSessionTimer: Sendable, Hashable {
    var interval: UInt32
    var isLocalRefresher: Bool
}

/// What the other side said it supports.
struct PeerCapabilities: Sendable, Hashable {
    var allowsUpdate = false
    var supportsTimer = false
}
