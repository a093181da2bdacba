import SDP
import SIPMessage

// Where the call stands, each stage carrying the data only it has, so that a UAS's unanswered INVITE cannot
// outlive its final response, nor a UAC's early dialogs the 2xx, nor an end reason exist before the end.

extension InviteSession {
    /// Where the call stands, with what only that stage needs; `state` is its public face.
    ///
    /// Large payloads are indirect: a case costs one pointer in the session, and a payload is boxed only while
    /// its stage lasts.
    enum Phase: Sendable {
        /// UAC: `start()` not called yet.
        indirect case idle(OutgoingCall)
        /// UAC: the INVITE is out and no provisional response above 100 arrived.
        case calling(OutgoingAttempt)
        /// UAS: the INVITE arrived and no response but 100 went out.
        case incoming(IncomingInviteBox)
        /// UAC: a provisional response above 100 arrived; `dialog` is the most recently active early dialog.
        case earlyOutgoing(OutgoingAttempt)
        /// UAS: a provisional response went out; `dialog` is the early dialog.
        case earlyIncoming(IncomingInviteBox)
        /// UAS: the 2xx to the INVITE went out; its ACK has not arrived.
        indirect case connecting(AwaitingACK)
        /// The call is up; a re-INVITE this side received may be in progress.
        case confirmed(ReceivedReinvite?)
        /// The call is over; a transaction or timer may still be finishing.
        indirect case terminated(Ending)
        /// The call is over and nothing is left to do: `finished` was said.
        indirect case finished(EndReason)
        /// Only while a payload is taken out to be changed in place, so that it is not shared (and copied on
        /// write); never seen outside the method that set it.
        case modifying
    }

    /// A re-INVITE received in the confirmed dialog and not done with (§14.2): its offer waits for the TU, or
    /// its 2xx for the ACK. Never both: another re-INVITE meanwhile gets 500.
    indirect enum ReceivedReinvite: Sendable {
        case awaitingAnswer(PendingRemoteOffer)
        case awaitingACK(AwaitingACK)
    }

    /// How the call ended.
    struct Ending: Sendable {
        var reason: EndReason
        /// A UAS that ended the call in `connecting` sends its BYE once the 2xx is ACKed or given up on (§15):
        /// the 2xx, still re-sent, and the Reason values of that BYE.
        var byeAfterACK: ByeAfterACK?
    }

    /// A BYE waiting for the ACK of the initial 2xx.
    struct ByeAfterACK: Sendable {
        var waiting: AwaitingACK
        var reasons: [Reason]
    }

    /// Where the call stands.
    public var state: State {
        switch phase {
        case .idle: .idle
        case .calling: .calling
        case .incoming: .incoming
        case .earlyOutgoing, .earlyIncoming: .early
        case .connecting: .connecting
        case .confirmed: .confirmed
        case .terminated, .finished, .modifying: .terminated
        }
    }

    /// Why the call ended, once it has.
    public var endReason: EndReason? {
        switch phase {
        case .terminated(let ending): ending.reason
        case .finished(let reason): reason
        default: nil
        }
    }

    /// Whether the call is over (`terminated`, finished or not).
    var isEnded: Bool {
        switch phase {
        case .terminated, .finished: true
        default: false
        }
    }

    /// UAC: whether no 2xx came yet (`calling` or `early`).
    var isOutgoingPending: Bool {
        switch phase {
        case .calling, .earlyOutgoing: true
        default: false
        }
    }

    /// UAS: the INVITE, while it has no final response.
    var incomingInvite: IncomingInvite? {
        switch phase {
        case .incoming(let box), .earlyIncoming(let box): box.invite
        default: nil
        }
    }

    /// UAS: the INVITE itself while it has no final response, read without copying the rest of its record.
    var incomingRequest: SIPRequest? {
        switch phase {
        case .incoming(let box), .earlyIncoming(let box): box.invite.request
        default: nil
        }
    }

    /// UAC: the early dialogs besides `dialog`.
    var forks: [EarlyDialog] {
        switch phase {
        case .calling(let attempt), .earlyOutgoing(let attempt): attempt.forks
        default: []
        }
    }

    /// The 2xx to an INVITE that waits for its ACK: the initial one, a re-INVITE's, or one a BYE waits behind.
    var awaitingACK: AwaitingACK? {
        switch phase {
        case .connecting(let waiting): waiting
        case .confirmed(.awaitingACK(let waiting)?): waiting
        case .terminated(let ending): ending.byeAfterACK?.waiting
        default: nil
        }
    }

    /// `awaitingACK?.sequenceNumber`, read without copying the rest (the 2xx) out of the phase.
    var awaitingACKSequenceNumber: UInt32? {
        switch phase {
        case .connecting(let waiting): waiting.sequenceNumber
        case .confirmed(.awaitingACK(let waiting)?): waiting.sequenceNumber
        case .terminated(let ending): ending.byeAfterACK?.waiting.sequenceNumber
        default: nil
        }
    }

    /// The re-offer of a re-INVITE that waits for the TU's `answerOffer()` or `rejectOffer()`.
    var pendingRemoteOffer: PendingRemoteOffer? {
        guard case .confirmed(.awaitingAnswer(let pending)?) = phase else { return nil }
        return pending
    }

    /// Takes the re-offer that waits for the TU out of the phase.
    mutating func takePendingRemoteOffer() -> PendingRemoteOffer? {
        guard case .confirmed(.awaitingAnswer(let pending)?) = phase else { return nil }
        phase = .confirmed(nil)
        return pending
    }

    /// Changes the UAS's unanswered INVITE in place; `nil` (and nothing done) when there is none.
    @discardableResult
    mutating func modifyIncomingInvite<Result>(_ body: (inout IncomingInvite) -> Result) -> Result? {
        let isEarly: Bool
        var box: IncomingInviteBox
        switch phase {
        case .incoming(let held): (box, isEarly) = (held, false)
        case .earlyIncoming(let held): (box, isEarly) = (held, true)
        default: return nil
        }
        phase = .modifying
        // Copy on write: a copy of the session shares the box until one of them changes it.
        if !isKnownUniquelyReferenced(&box) { box = IncomingInviteBox(box.invite) }
        let result = body(&box.invite)
        phase = isEarly ? .earlyIncoming(box) : .incoming(box)
        return result
    }

    /// The box of the UAS's unanswered INVITE, held by this session alone (a copy of the session that shared
    /// it keeps the old one), for changes in place; `nil` when there is none.
    mutating func ownedIncomingInviteBox() -> IncomingInviteBox? {
        switch phase {
        case .incoming(var box):
            phase = .modifying
            if !isKnownUniquelyReferenced(&box) { box = IncomingInviteBox(box.invite) }
            phase = .incoming(box)
            return box
        case .earlyIncoming(var box):
            phase = .modifying
            if !isKnownUniquelyReferenced(&box) { box = IncomingInviteBox(box.invite) }
            phase = .earlyIncoming(box)
            return box
        default:
            return nil
        }
    }

    /// Makes `invite` the UAS's unanswered INVITE, in `early` or `incoming`: written into the box the phase
    /// holds when no copy of the session shares it (no allocation), else into a new one.
    mutating func storeIncomingInvite(_ invite: IncomingInvite, early: Bool) {
        var box: IncomingInviteBox
        switch phase {
        case .incoming(let held), .earlyIncoming(let held): box = held
        default:
            phase = early ? .earlyIncoming(IncomingInviteBox(invite)) : .incoming(IncomingInviteBox(invite))
            return
        }
        phase = .modifying
        if isKnownUniquelyReferenced(&box) { box.invite = invite } else { box = IncomingInviteBox(invite) }
        phase = early ? .earlyIncoming(box) : .incoming(box)
    }

    /// Changes the UAC's attempt in place; `nil` (and nothing done) when no 2xx is awaited.
    @discardableResult
    mutating func modifyOutgoingAttempt<Result>(_ body: (inout OutgoingAttempt) -> Result) -> Result? {
        switch phase {
        case .calling(var attempt):
            phase = .modifying
            let result = body(&attempt)
            phase = .calling(attempt)
            return result
        case .earlyOutgoing(var attempt):
            phase = .modifying
            let result = body(&attempt)
            phase = .earlyOutgoing(attempt)
            return result
        default:
            return nil
        }
    }

    /// The UAC's attempt, taken out of the phase so that it changes in place (the phase is `.modifying` until
    /// `restoreOutgoingAttempt(_:isEarly:)` puts it back), and whether the call is early.
    mutating func takeOutgoingAttempt() -> (attempt: OutgoingAttempt, isEarly: Bool)? {
        switch phase {
        case .calling(let attempt):
            phase = .modifying
            return (attempt, false)
        case .earlyOutgoing(let attempt):
            phase = .modifying
            return (attempt, true)
        default:
            return nil
        }
    }

    mutating func restoreOutgoingAttempt(_ attempt: OutgoingAttempt, isEarly: Bool) {
        phase = isEarly ? .earlyOutgoing(attempt) : .calling(attempt)
    }

    /// Changes the 2xx awaiting its ACK in place, wherever it waits; `nil` when none does.
    @discardableResult
    mutating func modifyAwaitingACK<Result>(_ body: (inout AwaitingACK) -> Result) -> Result? {
        switch phase {
        case .connecting(var waiting):
            phase = .modifying
            let result = body(&waiting)
            phase = .connecting(waiting)
            return result
        case .confirmed(.awaitingACK(var waiting)?):
            phase = .modifying
            let result = body(&waiting)
            phase = .confirmed(.awaitingACK(waiting))
            return result
        case .terminated(var ending):
            guard var bye = ending.byeAfterACK else { return nil }
            phase = .modifying
            ending.byeAfterACK = nil
            let result = body(&bye.waiting)
            ending.byeAfterACK = bye
            phase = .terminated(ending)
            return result
        default:
            return nil
        }
    }

    /// Which 2xx an ACK wait was for.
    enum ACKWait {
        /// The initial INVITE's, in `connecting`.
        case initial
        /// A re-INVITE's, in `confirmed`.
        case reinvite
        /// The initial INVITE's, with a BYE (these Reason values) waiting behind it.
        case byeAfterACK([Reason])
    }

    /// Ends the wait for the ACK of a 2xx: the 2xx leaves the phase (`connecting` becomes `confirmed`), and
    /// what the ACK's handling needs of it is returned; the rest is dropped where it is, not copied out first.
    mutating func takeAwaitingACK() -> (expectsAnswer: Bool, wait: ACKWait)? {
        switch phase {
        case .connecting(let waiting):
            let expectsAnswer = waiting.expectsAnswer
            phase = .confirmed(nil)
            return (expectsAnswer, .initial)
        case .confirmed(.awaitingACK(let waiting)?):
            let expectsAnswer = waiting.expectsAnswer
            phase = .confirmed(nil)
            return (expectsAnswer, .reinvite)
        case .terminated(var ending):
            guard let bye = ending.byeAfterACK else { return nil }
            ending.byeAfterACK = nil
            phase = .terminated(ending)
            return (bye.waiting.expectsAnswer, .byeAfterACK(bye.reasons))
        default:
            return nil
        }
    }
}
