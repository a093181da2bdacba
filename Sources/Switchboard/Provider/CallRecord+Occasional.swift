/// The parts of a `CallRecord` that only some calls need, or only for a while: an outgoing call's routing,
/// its transfers, the unanswered-call timer, and why the call ended. Out of line, so that an established call
/// that uses none of them (most of them) holds one reference instead of all of them. Loop-confined values
/// that call nothing while accessed: no run-time exclusivity checks.
final class OccasionalCallState: OutOfLineState {
    @exclusivity(unchecked) var routing = CallRouting()
    @exclusivity(unchecked) var transfer = TransferState()
    @exclusivity(unchecked) var unansweredTimer: TimerHandleBox?
    var localEndReason: CallEndedReason?
    var mediaSecurityFailure: MediaSecurityFailure?

    /// Everything is at its default: the record can let the box go.
    /// The routing last: it is the largest to look at (checked after every change of any part).
    var isEmpty: Bool {
        unansweredTimer == nil && localEndReason == nil && mediaSecurityFailure == nil && transfer.isIdle
            && routing.isInitial
    }
}

extension CallRecord {
    /// Where an outgoing call goes, and the 3xx Contacts still to try.
    var routing: CallRouting {
        get { occasional?.routing ?? CallRouting() }
        set { updateOccasional { $0.routing = newValue } }
    }

    /// The transfers this call is part of.
    var transfer: TransferState {
        get { occasional?.transfer ?? TransferState() }
        set { updateOccasional { $0.transfer = newValue } }
    }

    /// A timer that rejects an incoming invite, or cancels an outgoing call, when nobody answers it.
    var unansweredTimer: TimerHandleBox? {
        get { occasional?.unansweredTimer }
        set { updateOccasional { $0.unansweredTimer = newValue } }
    }

    /// Why this side ended the call, when it did (the session itself reports only "local").
    var localEndReason: CallEndedReason? {
        get { occasional?.localEndReason }
        set { updateOccasional { $0.localEndReason = newValue } }
    }

    /// How DTLS-SRTP failed, when that ended the call.
    var mediaSecurityFailure: MediaSecurityFailure? {
        get { occasional?.mediaSecurityFailure }
        set { updateOccasional { $0.mediaSecurityFailure = newValue } }
    }

    private func updateOccasional(_ change: (OccasionalCallState) -> Void) {
        OccasionalCallState.update(&occasional, change)
    }
}
