import SDP
public import SIPMessage

// Requests received inside the dialog (RFC 3261 §12.2.2) and the ones this side sends besides offers:
// BYE both ways (§15), INFO, MESSAGE, OPTIONS and other methods.

extension InviteSession {
    /// A request received in one of the session's dialogs (the driver routed it by `DialogTable`), with
    /// the server transaction to answer it through. A request for an unknown dialog gets 481, one whose CSeq
    /// went backwards 500, a malformed one 400 (§12.2.2); ACKs go to `receiveACK(_:)`.
    public mutating func receiveRequest(_ request: SIPRequest, transaction: ServerTransactionToken)
        -> [SessionAction]
    {
        if request.method == .ack { return receiveACK(request) }
        var actions: [SessionAction] = []
        actions.reserveCapacity(8)  // a BYE: its 200, the timers cancelled, the ending events: one allocation
        dispatch(request, transaction: transaction, into: &actions)
        finishIfDone(into: &actions)
        return actions
    }

    private mutating func dispatch(
        _ request: SIPRequest, transaction: ServerTransactionToken, into actions: inout [SessionAction]
    ) {
        guard isForCurrentDialog(request) else {
            actions.append(.sendResponse(makeResponse(to: request, status: 481), transaction: transaction))
            return
        }
        if isEnded {
            // A BYE crossing ours still gets 200; anything else finds the dialog gone.
            let status = request.method == .bye ? 200 : 481
            actions.append(.sendResponse(makeResponse(to: request, status: status), transaction: transaction))
            return
        }
        do {
            try dialog?.receive(request)
        } catch {
            actions.append(
                .sendResponse(
                    makeResponse(to: request, status: error.status, reason: error.detail), transaction: transaction))
            return
        }
        switch request.method {
        case .bye: receiveBye(request, transaction: transaction, into: &actions)
        case .invite: receiveReinvite(request, transaction: transaction, into: &actions)
        case .update: receiveUpdate(request, transaction: transaction, into: &actions)
        case .prack where role == .uas: receivePRACK(request, transaction: transaction, into: &actions)
        case .info: receiveInfo(request, transaction: transaction, into: &actions)
        case .message:
            actions.append(.sendResponse(makeResponse(to: request, status: 200), transaction: transaction))
            actions.append(.event(.messageReceived(request)))
        case .refer: receiveRefer(request, transaction: transaction, into: &actions)
        case .notify: receiveNotify(request, transaction: transaction, into: &actions)
        case .options:
            let capabilities = UserAgentCapabilities(
                allowedMethods: configuration.allowedMethods, supportedExtensions: configuration.supportedExtensions)
            var response = capabilities.optionsResponse(to: request, toTag: localTag)
            if let userAgent = configuration.userAgent { response.headerFields.append(.server, userAgent) }
            actions.append(.sendResponse(response, transaction: transaction))
        default:
            // §8.2.1: a method this side knows but does not take here gets 405 with Allow; an unknown one 501.
            let status = request.method.isStandard ? 405 : 501
            var response = makeResponse(to: request, status: status)
            response.headerFields.append(.allow, configuration.allowedMethods.headerValue)
            actions.append(.sendResponse(response, transaction: transaction))
        }
    }

    /// Whether `request` belongs to the current dialog (§12.2.2), or to another early dialog of the UAC's,
    /// which then becomes the current one.
    private mutating func isForCurrentDialog(_ request: SIPRequest) -> Bool {
        // The usual request names the current dialog with plain tags: compared as bytes, no strings made.
        // The remote tag is compared as the bytes the dialog keeps: no string made of it, no copy of the id.
        // Call-ID, To and From found in one pass over the fields.
        if let remote = dialog?.id.remote {
            var callID = callID
            var localTag = localTag
            // The usual request spells To and From as the dialog's first messages did: compared whole, with no
            // scan for their tags. Whatever the scan would find in such values, the parse behind it finds the
            // dialog's two tags there, so any other answer would come to the same.
            let isSpelledAsKept = callID.withUTF8 { callID in
                localTag.withUTF8 { localTag in
                    TagScan.dialogValues(of: request.headerFields) { value, to, from in
                        DialogAddresses.same(value, callID)
                            && dialog?.addresses.spell(to: to, localTag: localTag, from: from) == true
                    }
                }
            }
            if isSpelledAsKept == true { return true }
            let isCurrent = callID.withUTF8 { callID in
                localTag.withUTF8 { localTag in
                    remote.withBytes {
                        TagScan.fields(request.headerFields, callID: callID, toTag: localTag, fromTag: $0)
                    }
                }
            }
            if isCurrent { return true }
        }
        guard let id = DialogID(receivedRequest: request), id.callID == callID, id.localTag == localTag else {
            return false
        }
        return makeCurrent(remoteTag: id.remoteTag)
    }

    /// §15.1.2: 200 to the BYE, 487 to what is still pending, and the call ends as `remoteEnded`.
    private mutating func receiveBye(
        _ request: SIPRequest, transaction: ServerTransactionToken, into actions: inout [SessionAction]
    ) {
        // `dispatch` found this side's tag in To (a non-empty tag equal to `localTag`): To is copied as it is,
        // as it would be with the tag to add, without looking for one in it again.
        actions.append(
            .sendResponse(
                InviteSession.response(
                    to: request, status: 200, localTag: localTag.isEmpty ? localTag : nil,
                    server: configuration.responseFields.server), transaction: transaction))
        let ending = EndReason(.remoteEnded, reasons: (try? request.reason) ?? [])
        refusePendingRemoteOffer(into: &actions)
        if let incoming = incomingInvite {
            rejectIncoming(makeResponse(to: incoming.request, status: 487), ending, into: &actions)
            return
        }
        if isOutgoingPending, outgoingInvite?.hasProvisional == true {
            outgoingInvite?.cancel = .sent
            sendCancel(into: &actions)
        }
        confirmByBye(into: &actions)
        end(ending, into: &actions)
    }

    /// A BYE overtook the ACK of the initial 2xx (a proxy with several workers can reorder them): the
    /// caller sends it only once the 2xx arrived (§15), so the call was up. With the answer already agreed
    /// it is `connected` before it ends, as the caller saw it; an answer still due in the ACK never came, so
    /// a call without agreed media just ends.
    private mutating func confirmByBye(into actions: inout [SessionAction]) {
        guard case .connecting(let waiting) = phase, !waiting.expectsAnswer,
            case (_, .initial)? = takeAwaitingACK()
        else { return }
        actions.append(.event(.connected(offerAnswer.session)))
    }

    private mutating func receiveInfo(
        _ request: SIPRequest, transaction: ServerTransactionToken, into actions: inout [SessionAction]
    ) {
        actions.append(.sendResponse(makeResponse(to: request, status: 200), transaction: transaction))
        if let type = (try? request.contentType) ?? nil, type.hasSameEssence(as: .dtmfRelay),
            let relay = DTMFRelay(parsing: request.bodyBytes)
        {
            actions.append(.event(.dtmfReceived(relay)))
        }
        actions.append(.event(.infoReceived(request)))
    }

    // MARK: Ending the call

    /// Ends the call from this side, whatever its state: CANCEL (UAC before the answer), 603 Decline (UAS
    /// before answering), BYE (after; a UAS waits for the ACK of its 2xx first, §15). The call ends as
    /// `localEnded` at once.
    /// - Parameter reason: a Reason header field for the CANCEL, BYE or response (RFC 3326).
    public mutating func hangUp(reason: Reason? = nil) -> [SessionAction] {
        endLocally(reasons: reason.map { [$0] } ?? [], kind: .localEnded)
    }

    /// Ends this call because an INVITE with Replaces took its place (RFC 3891 §3): BYE, or CANCEL for the
    /// UAC's early dialog. The call ends as `replaced`.
    public mutating func endReplaced() -> [SessionAction] {
        endLocally(reasons: [], kind: .replaced)
    }

    mutating func endLocally(reasons: [Reason], kind: EndReason.Kind) -> [SessionAction] {
        var actions: [SessionAction] = []
        switch (role, state) {
        case (_, .terminated):
            return []
        case (.uac, .idle):
            end(EndReason(kind, reasons: reasons), into: &actions)
        case (.uac, .calling), (.uac, .early):
            return cancelInvite(reasons: reasons, kind: kind)
        case (.uas, .incoming), (.uas, .early):
            guard let incoming = incomingInvite else { return [] }
            var response = makeResponse(to: incoming.request, status: kind == .replaced ? 487 : 603)
            for reason in reasons { response.headerFields.append(.reason, reason) }
            rejectIncoming(
                response, EndReason(kind, statusCode: response.statusCode, reasons: reasons), into: &actions)
        case (_, .connecting):
            end(EndReason(kind, reasons: reasons), byeAfterACK: reasons, into: &actions)
        default:
            sendBye(reasons: reasons, into: &actions)
            end(EndReason(kind, reasons: reasons), into: &actions)
        }
        finishIfDone(into: &actions)
        return actions
    }

    /// Sends BYE in the dialog (§15.1.1) and answers a re-offer still waiting for the TU with 487.
    mutating func sendBye(reasons: [Reason], into actions: inout [SessionAction]) {
        guard var request = makeInDialogRequest(.bye) else { return }
        for reason in reasons { request.headerFields.append(.reason, reason) }
        send(request, purpose: .bye, into: &actions)
        refusePendingRemoteOffer(into: &actions)
    }

    /// Answers a re-INVITE whose offer waits for the TU with 487: the call ends.
    private mutating func refusePendingRemoteOffer(into actions: inout [SessionAction]) {
        guard let pending = takePendingRemoteOffer() else { return }
        offerAnswer.cancelPendingOffer()
        actions.append(.sendResponse(makeResponse(to: pending.request, status: 487), transaction: pending.token))
    }

    // MARK: Other requests

    /// Sends a request in the dialog: INFO, MESSAGE, OPTIONS, NOTIFY or an extension method. Methods the
    /// session runs itself (INVITE, ACK, CANCEL, BYE, PRACK, UPDATE, REFER) are refused (no actions). The
    /// outcome comes as `requestCompleted`.
    /// - Parameters:
    ///   - method: the method.
    ///   - headers: extra header fields.
    ///   - body: the body.
    ///   - contentType: its type (required with a body).
    public mutating func sendRequest(
        _ method: SIPMethod, headers: [SIPField] = [], body: [UInt8] = [], contentType: SIPMessage.MediaType? = nil
    ) -> [SessionAction] {
        let managed: [SIPMethod] = [.invite, .ack, .cancel, .bye, .prack, .update, .refer]
        guard !managed.contains(method), state == .confirmed || state == .early || state == .connecting,
            var request = makeInDialogRequest(method)
        else { return [] }
        var actions: [SessionAction] = []
        for field in headers { request.headerFields.append(field) }
        if !body.isEmpty, let contentType {
            request.headerFields.set(.contentType, contentType)
            request.body = body
        }
        send(request, purpose: .request, into: &actions)
        return actions
    }

    /// Sends a DTMF digit in an INFO with an `application/dtmf-relay` body.
    public mutating func sendDTMF(_ relay: DTMFRelay) -> [SessionAction] {
        sendRequest(.info, body: relay.body, contentType: .dtmfRelay)
    }

    /// Sends a MESSAGE in the dialog (RFC 3428), `text/plain` by default.
    public mutating func sendMessage(_ body: [UInt8], contentType: SIPMessage.MediaType = .textPlain) -> [SessionAction]
    {
        sendRequest(.message, body: body, contentType: contentType)
    }

    /// A response to a BYE, INFO, MESSAGE or other request of the session.
    mutating func receiveOtherResponse(
        _ response: SIPResponse, at index: Int, into actions: inout [SessionAction]
    ) {
        guard response.statusCode >= 200 else { return }
        let transaction = transactions.remove(at: index)
        if response.statusCode == 401 || response.statusCode == 407,
            retry(transaction, after: response, into: &actions)
        {
            return
        }
        switch transaction.purpose {
        case .request:
            let method = transaction.request?.method ?? "INFO"
            actions.append(
                .event(
                    .requestCompleted(
                        method: method, status: response.statusCode, reasonPhrase: response.reasonPhrase)))
            // RFC 5057 §5.1: 481 to a request in the dialog means the dialog is gone.
            if response.statusCode == 481, state == .confirmed {
                end(EndReason(response: response), into: &actions)
            }
        case .refer:
            receiveReferResponse(response, into: &actions)
        case .notify(let id):
            if response.statusCode == 481 { referrals.incoming.removeAll { $0.id == id } }
        default:
            break
        }
    }
}
