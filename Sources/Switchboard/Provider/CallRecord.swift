import Foundation
import SDP
import SIPMessage

/// A call as the provider tracks it on the loop: the snapshot it hands out, the session that carries it,
/// and what waits for its end.
///
/// Its state is read and written without run-time exclusivity checks (`@exclusivity(unchecked)`): it is
/// confined to the loop, and no access to it calls out while it lasts (plain values and their pure methods),
/// so no two accesses can overlap.
final class CallRecord {
    @exclusivity(unchecked) var call: Call
    /// The SIP session, once the INVITE went out or came in.
    @exclusivity(unchecked) var session: SessionKey?
    /// When the call began among the provider's calls (1, 2, ...): the order of `calls` snapshots.
    var sequence: UInt64 = 0
    /// Where the app wants the call's audio, and where its early media and activation stand.
    @exclusivity(unchecked) var media = CallMediaState()
    /// What only some calls need, or only for a while (`CallRecord+Occasional.swift`); `nil` while all of it
    /// is at its default.
    @exclusivity(unchecked) var occasional: OccasionalCallState?
    /// The call's connection died and a re-INVITE is re-establishing it.
    var isReconnecting = false
    /// Filed and not ended: it counts against the limit (`CallTable` keeps this).
    @exclusivity(unchecked) var isLive = false
    /// The `connected` event waits for DTLS-SRTP keys.
    var waitsForDTLS = false
    /// Run once the call has ended and its session finished.
    var onFinished: [() -> Void] = []

    init(call: Call) { self.call = call }

    var uuid: UUID { call.uuid }

    var state: Call.State {
        get { call.state }
        set { call.state = newValue }
    }

    // MARK: Changes

    /// Takes what a negotiated session says about the call: codec, SRTP, remote hold, telephone-events.
    func apply(_ session: NegotiatedSession) {
        media.sendsTelephoneEvents = session.telephoneEvent != nil
        call.codec = session.codec.encodingName
        call.isSecure = session.isSecure
        switch session.keying {
        case .some(.sdes):
            call.srtpKeying = .sdes
            call.srtpSuite = session.srtp.flatMap { SRTPSuite($0.suite) }
        case .some(.dtls):
            // A new association's suite is known once its keys come (`CallCoordinator+DTLS.swift`).
            if call.srtpKeying != .dtls { call.srtpSuite = nil }
            call.srtpKeying = .dtls
        default:
            call.srtpKeying = nil
            call.srtpSuite = nil
        }
        call.isRemoteHeld = session.isRemoteHold
    }

    /// A re-negotiation (a re-offer or its answer) took effect; returns the update to report when the remote
    /// hold or the codec changed.
    func mediaUpdated(_ session: NegotiatedSession) -> CallUpdate? {
        let before = (call.isRemoteHeld, call.codec)
        apply(session)
        guard before != (call.isRemoteHeld, call.codec) else { return nil }
        var update = CallUpdate()
        if before.0 != call.isRemoteHeld { update.isRemoteHeld = call.isRemoteHeld }
        return update
    }

    /// The other side held or resumed the call; returns the update to report when that changed anything.
    func remoteHoldChanged(_ held: Bool) -> CallUpdate? {
        guard call.isRemoteHeld != held else { return nil }
        call.isRemoteHeld = held
        var update = CallUpdate()
        update.isRemoteHeld = held
        return update
    }

    /// The call is up.
    func connected(at date: Date) {
        state = .connected
        call.connectedAt = date
    }

    /// Marks the call ended with `details`; returns the cancelled invite to report when it was an incoming
    /// call never answered that the other side (or a timer) ended, not this side or a failure.
    func end(_ details: CallEndDetails, at date: Date) -> CancelledCallInvite? {
        let wasRingingIncoming = call.direction == .incoming && call.connectedAt == nil
        state = .ended
        call.endedAt = date
        call.endDetails = details
        guard wasRingingIncoming, details.reason != .localEnded, details.reason != .failed else { return nil }
        return CancelledCallInvite(
            callUUID: uuid, callID: call.callID, from: call.remoteHandle, reason: details.reason, details: details)
    }

    /// Stops the timer that rejects an unanswered invite.
    func cancelUnansweredTimer() {
        unansweredTimer?.cancel()
        unansweredTimer = nil
    }

    /// A connected call lost its flow; returns whether a reconnection starts (none is under way).
    func startReconnecting() -> Bool {
        guard state == .connected, !isReconnecting else { return false }
        isReconnecting = true
        return true
    }

    /// A re-INVITE got its answer; returns whether that ended a reconnection.
    func finishReconnecting() -> Bool {
        defer { isReconnecting = false }
        return isReconnecting
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
    /// Whether the offer may use the WebRTC profile (when the provider's does); false once a peer refused it
    /// (488 or 606) and the call went out again with a plain offer.
    var offersWebRTCProfile = true

    /// Nothing was set: no target, no redirection, the WebRTC profile still allowed.
    var isInitial: Bool {
        // The target by its case: `== nil` would copy the URI out first.
        guard case .none = target else { return false }
        return redirectTargets.isEmpty && redirections == 0 && offersWebRTCProfile
    }

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

    /// No REFER placed the call and none is under way.
    var isIdle: Bool { referral == nil && !isTransferring }

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
