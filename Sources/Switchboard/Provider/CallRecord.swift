import Foundation
import SIPMessage

/// A call as the provider tracks it on the loop: the snapshot it hands out, the session that carries it,
/// and what waits for its end.
final class CallRecord {
    var call: Call
    /// The SIP session, once the INVITE went out or came in.
    var session: SessionKey?
    /// Whether audio is active (media flows to and from the app).
    var isAudioActive = false
    /// The call's connection died and a re-INVITE is re-establishing it.
    var isReconnecting = false
    /// The app asked for audio (manual activation), perhaps before the call connected.
    var audioRequested = false
    /// How many 3xx redirections this call followed.
    var redirections = 0
    /// The target of an outgoing call (for redirection and logs).
    var target: URI?
    /// The Contact targets of a 3xx, tried in order.
    var redirectTargets: [URI] = []
    /// An outgoing call placed because of a REFER: the session and REFER id to NOTIFY with progress.
    var referral: (session: SessionKey, id: UInt32)?
    /// A transfer this call asked for, completed by a final NOTIFY: the call then ends.
    var isTransferring = false
    /// The status of the last provisional response.
    var lastProvisional = 0
    /// An early answer arrived with the provisional response about to be reported (its `ringing` says so).
    var hasNewEarlyMedia = false
    /// An early dialog's answer set up the stream before the call connected (outgoing calls).
    var hasEarlyMedia = false
    /// The stream plays and records early media (and sends nothing) until the answer.
    var isEarlyMediaPlaying = false
    /// The call's audio when the app set one (else the configuration's default).
    var audio: CallAudio?
    /// The session whose stream has `audio` (a redirection or a new `audio` makes it stale).
    var audioAppliedTo: SessionKey?
    /// The peer negotiated RFC 4733 telephone-events.
    var sendsTelephoneEvents = false
    /// Why this side ended the call, when it did (the session itself reports only "local").
    var localEndReason: CallEndedReason?
    /// A timer that rejects the invite when nobody answers it.
    var unansweredTimer: TimerHandleBox?
    /// Run once the call has ended and its session finished.
    var onFinished: [() -> Void] = []

    /// When the call began among the provider's calls (1, 2, ...): the order of `calls` snapshots.
    var sequence: UInt64 = 0

    init(call: Call) { self.call = call }

    var uuid: UUID { call.uuid }

    var state: Call.State {
        get { call.state }
        set { call.state = newValue }
    }
}

/// A loop timer handle that can be stored in a record.
struct TimerHandleBox {
    let cancel: () -> Void
}

/// Where an outgoing call goes: its target, and the Contacts of a 3xx still to try (at most `limit`
/// redirections are followed). Pure.
struct CallRouting {
    /// How many redirections a call follows.
    static let limit = 5

    /// The target of an outgoing call (for redirection and logs).
    var target: URI?
    /// The Contact targets of a 3xx, tried in order.
    private(set) var redirectTargets: [URI] = []
    /// How many 3xx redirections this call followed.
    private(set) var redirections = 0

    /// A 3xx named these Contacts.
    mutating func redirected(to targets: [URI]) { redirectTargets = targets }

    /// The next Contact to try after a 3xx, counted against the limit; nil when none is left or the limit
    /// is reached.
    mutating func nextRedirection() -> URI? {
        guard let next = redirectTargets.first, redirections < Self.limit else { return nil }
        redirections += 1
        redirectTargets.removeFirst()
        return next
    }
}

/// The transfers a call is part of (RFC 3515): the REFER that placed it, whose progress goes back in
/// NOTIFYs, and the transfer it asked for, which ends it once the final NOTIFY reports success. Pure.
struct TransferState {
    /// An outgoing call placed because of a REFER: the session and REFER id to NOTIFY with progress.
    var referral: (session: SessionKey, id: UInt32)?
    /// A transfer this call asked for, completed by a final NOTIFY: the call then ends.
    private(set) var isTransferring = false

    /// This call sent a REFER.
    mutating func startTransfer() { isTransferring = true }

    /// The REFER was answered: a refusal means there is no transfer to wait for.
    mutating func referAnswered(status: Int) {
        if !(200...299).contains(status) { isTransferring = false }
    }

    /// A NOTIFY reported the transferee's progress; returns whether the transfer is complete and the call
    /// should end (a final 2xx).
    mutating func referProgress(status: Int, isFinal: Bool) -> Bool {
        guard isFinal, isTransferring, (200...299).contains(status) else { return false }
        isTransferring = false
        return true
    }

    /// The call a REFER placed connected: the final NOTIFY (200) goes out now, once (RFC 3515 §2.4.5).
    mutating func takeReferral() -> (session: SessionKey, id: UInt32)? {
        defer { referral = nil }
        return referral
    }
}
