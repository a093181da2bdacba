public import SIPMessage

// REFER inside the dialog (RFC 3515): blind and attended transfer (RFC 3891 §7) with Referred-By
// (RFC 3892), and the implicit subscription whose NOTIFYs carry `message/sipfrag` progress, in both roles.

/// The referrals of a dialog, both ways.
struct Referrals: Sendable, Hashable {
    /// A REFER this side sent, until its subscription ends.
    struct Outgoing: Sendable, Hashable {
        var id: UInt32
    }

    /// A REFER this side received, until its last NOTIFY.
    struct Incoming: Sendable, Hashable {
        var id: UInt32
        /// Set until the TU accepts or rejects it.
        var token: ServerTransactionToken?
        var request: SIPRequest?
        var notifies: Bool
        var isFirstInDialog: Bool
    }

    var outgoing: [Outgoing] = []
    var incoming: [Incoming] = []
    var received: UInt32 = 0
}

extension InviteSession {
    /// Asks the other side to call `target` (RFC 3515): a blind transfer, or with `replaces` an attended one
    /// (the target replaces that dialog, RFC 3891 §7). The answer comes as `referAnswered`, the transferee's
    /// progress as `referProgress`.
    /// - Parameters:
    ///   - target: where the other side should send its INVITE.
    ///   - replaces: the dialog the INVITE replaces (attended transfer).
    ///   - referredBy: Referred-By (RFC 3892), normally this side's address.
    ///   - headers: extra header fields.
    public mutating func refer(
        to target: URI, replaces: Replaces? = nil, referredBy: NameAddress? = nil, headers: [SIPField] = []
    ) -> [SessionAction] {
        guard state == .confirmed, var request = makeInDialogRequest(.refer) else { return [] }
        var actions: [SessionAction] = []
        request.headerFields.append(.referTo, ReferTo.address(target: target, replaces: replaces))
        if let referredBy { request.headerFields.append(.referredBy, referredBy) }
        for field in headers { request.headerFields.append(field) }
        let number = (try? request.cseq)??.sequenceNumber ?? 0
        send(request, purpose: .refer, into: &actions)
        referrals.outgoing.append(Referrals.Outgoing(id: number))
        return actions
    }

    mutating func receiveReferResponse(_ response: SIPResponse, into actions: inout [SessionAction]) {
        let number = (try? response.cseq)??.sequenceNumber
        actions.append(.event(.referAnswered(status: response.statusCode, reasonPhrase: response.reasonPhrase)))
        if !response.isSuccess { referrals.outgoing.removeAll { $0.id == number } }
    }

    mutating func receiveRefer(
        _ request: SIPRequest, transaction: ServerTransactionToken, into actions: inout [SessionAction]
    ) {
        guard request.headerFields[values: .referTo].count == 1, let referTo = (try? request.referTo) ?? nil,
            let number = (try? request.cseq)??.sequenceNumber
        else {
            actions.append(
                .sendResponse(makeResponse(to: request, status: 400, reason: "Bad Refer-To"), transaction: transaction))
            return
        }
        let (target, replaces) = ReferTo.split(referTo)
        let suppresses = request.headerFields[.referSub]?.lowercased().hasPrefix("false") ?? false
        referrals.incoming.append(
            Referrals.Incoming(
                id: number, token: transaction, request: request, notifies: !suppresses,
                isFirstInDialog: referrals.received == 0))
        referrals.received &+= 1
        actions.append(
            .event(
                .referReceived(
                    ReferRequest(
                        id: number, referTo: referTo.compacted, target: target.compacted, replaces: replaces,
                        referredBy: ((try? request.referredBy) ?? nil)?.compacted, suppressesNotifications: suppresses))
            ))
    }

    /// Accepts a REFER with 202 and sends the first NOTIFY (`SIP/2.0 100 Trying`, RFC 3515 §2.4.4), unless
    /// the referrer asked for none (RFC 4488).
    public mutating func acceptRefer(_ id: UInt32) -> [SessionAction] {
        guard let index = referrals.incoming.firstIndex(where: { $0.id == id }),
            let token = referrals.incoming[index].token, let request = referrals.incoming[index].request
        else { return [] }
        var actions: [SessionAction] = []
        var response = makeResponse(to: request, status: 202)
        response.headerFields.append(.contact, configuration.contact)
        if !referrals.incoming[index].notifies { response.headerFields.append(.referSub, "false") }
        actions.append(.sendResponse(response, transaction: token))
        referrals.incoming[index].token = nil
        referrals.incoming[index].request = nil
        if referrals.incoming[index].notifies {
            sendReferNotify(at: index, status: SipFragmentStatus(statusCode: 100), into: &actions)
        } else {
            referrals.incoming.remove(at: index)
        }
        return actions
    }

    /// Refuses a REFER (603 Decline by default).
    public mutating func rejectRefer(_ id: UInt32, status: Int = 603) -> [SessionAction] {
        guard let index = referrals.incoming.firstIndex(where: { $0.id == id }),
            let token = referrals.incoming[index].token, let request = referrals.incoming[index].request,
            (300...699).contains(status)
        else { return [] }
        referrals.incoming.remove(at: index)
        return [.sendResponse(makeResponse(to: request, status: status), transaction: token)]
    }

    /// Reports the progress of the call a REFER asked for, as the status line of that call's latest response
    /// (`180 Ringing`, `200 OK`, `486 Busy Here`, ...); a final status (200 or above) ends the subscription.
    /// - Parameters:
    ///   - id: the referral (`ReferRequest.id`).
    ///   - status: the status of the new call's latest response.
    ///   - reasonPhrase: its reason phrase.
    public mutating func notifyRefer(_ id: UInt32, status: Int, reasonPhrase: String? = nil) -> [SessionAction] {
        guard let index = referrals.incoming.firstIndex(where: { $0.id == id }),
            referrals.incoming[index].token == nil, state == .confirmed
        else { return [] }
        var actions: [SessionAction] = []
        sendReferNotify(
            at: index, status: SipFragmentStatus(statusCode: status, reasonPhrase: reasonPhrase), into: &actions)
        return actions
    }

    private mutating func sendReferNotify(
        at index: Int, status: SipFragmentStatus, into actions: inout [SessionAction]
    ) {
        let referral = referrals.incoming[index]
        guard var request = makeInDialogRequest(.notify) else { return }
        request.headerFields.append(
            .event, EventHeader(package: "refer", id: referral.isFirstInDialog ? nil : String(referral.id)))
        let isFinal = status.statusCode >= 200
        let subscription =
            isFinal
            ? SubscriptionState(state: "terminated", parameters: [Parameter("reason", "noresource")])
            : SubscriptionState(state: "active", parameters: [Parameter("expires", "60")])
        request.headerFields.append(.subscriptionState, subscription)
        request.headerFields.set(.contentType, SipFragmentStatus.mediaType)
        request.body = status.body
        send(request, purpose: .notify(referral.id), keepingRequest: false, into: &actions)
        if isFinal { referrals.incoming.remove(at: index) }
        if isFinal, (200...299).contains(status.statusCode) {
            timers.start(.transferHangUp, after: Self.transferHangUpDelay, into: &actions)
        }
    }

    /// How long the transferee waits, after the final NOTIFY of a successful transfer, for the transferor's
    /// BYE before it sends its own. RFC 5589 §6 has the transferor end the old dialog once it hears the
    /// transfer worked; a PBX that does not would leave a dead call up (no media comes on it). 4 s covers
    /// that NOTIFY's own retransmissions over UDP (T1 = 500 ms: 0.5 + 1 + 2 s) and a transferor that waits
    /// for its 200 before hanging up, and is short enough that the user sees the old call end promptly.
    public static let transferHangUpDelay: Duration = .seconds(4)

    /// The transferor sent no BYE in time after a successful transfer: BYE (`Reason: Q.850;cause=16;
    /// text="transferred"`, normal clearing) and the call ends as `transferred`.
    mutating func transferHangUpDue(into actions: inout [SessionAction]) {
        guard state == .confirmed else { return }
        let reason = Reason(protocol: "Q.850", cause: 16, text: "transferred")
        actions.append(contentsOf: endLocally(reasons: [reason], kind: .transferred))
    }

    /// A NOTIFY in the dialog: progress of this side's REFER (Event `refer`), or 481/489 (RFC 6665 §4.1.3).
    mutating func receiveNotify(
        _ request: SIPRequest, transaction: ServerTransactionToken, into actions: inout [SessionAction]
    ) {
        guard let event = (try? request.event) ?? nil, event.package.lowercased() == "refer" else {
            actions.append(.sendResponse(makeResponse(to: request, status: 489), transaction: transaction))
            return
        }
        let id = event.id.flatMap { UInt32($0) } ?? referrals.outgoing.first?.id
        guard let index = referrals.outgoing.firstIndex(where: { $0.id == id }) else {
            actions.append(.sendResponse(makeResponse(to: request, status: 481), transaction: transaction))
            return
        }
        actions.append(.sendResponse(makeResponse(to: request, status: 200), transaction: transaction))
        let isFinal = ((try? request.subscriptionState) ?? nil)?.isTerminated ?? false
        if let status = SipFragmentStatus(parsing: request.bodyBytes) {
            actions.append(
                .event(.referProgress(status: status.statusCode, reasonPhrase: status.reasonPhrase, isFinal: isFinal)))
        }
        if isFinal { referrals.outgoing.remove(at: index) }
    }
}
