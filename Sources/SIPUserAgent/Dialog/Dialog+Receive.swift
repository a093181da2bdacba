public import SIPMessage

extension Dialog {
    /// Checks a request received in this dialog and takes its CSeq (RFC 3261 §12.2.2): a CSeq lower than the
    /// last one received is refused with 500; ACK and CANCEL carry the CSeq of their INVITE and are not
    /// checked. A target-refresh request (INVITE, UPDATE, SUBSCRIBE, NOTIFY) with a Contact replaces the
    /// remote target; a re-INVITE or UPDATE without one is refused with 400.
    /// - Throws: `DialogError` with the status to answer; the dialog is then unchanged.
    public mutating func receive(_ request: SIPRequest) throws(DialogError) {
        guard request.method != .ack, request.method != .cancel else { return }
        let sequenceNumber: UInt32
        do {
            guard let value = try request.headerFields.cseqNumber else { throw DialogError.missing("CSeq") }
            sequenceNumber = value
        } catch let error as DialogError {
            throw error
        } catch {
            throw DialogError(.malformedHeader, status: 400, "Malformed CSeq")
        }
        if let remoteSequence, sequenceNumber < remoteSequence {
            throw DialogError(.sequenceOutOfOrder, status: 500, "CSeq out of order")
        }
        var newTarget: URI?
        if Dialog.targetRefreshMethods.contains(request.method) {
            let contact: Contact?
            do {
                contact = try request.firstContact
            } catch {
                throw .malformed("Contact", error)
            }
            newTarget = contact?.uri
            if newTarget == nil, request.method == .invite || request.method == .update {
                throw DialogError(.missingContact, status: 400, "Missing Contact")
            }
        }
        remoteSequence = sequenceNumber
        if let newTarget { remoteTarget = newTarget.compacted }
    }

    /// Takes the Contact of a 2xx to a target-refresh request this side sent (§12.2.1.2), and confirms an
    /// early dialog. Responses without a Contact leave the target as it is.
    public mutating func receiveSuccess(_ response: SIPResponse, to method: SIPMethod) {
        if Dialog.targetRefreshMethods.contains(method), let uri = (try? response.firstContact)??.uri {
            remoteTarget = uri.compacted
        }
        if method == .invite, state == .early { state = .confirmed }
    }

    /// Confirms an early UAC dialog with the 2xx to its INVITE (§13.2.2.4): the route set is recomputed from
    /// the 2xx's Record-Route and the remote target taken from its Contact.
    public mutating func confirm(with response: SIPResponse) {
        if let recordRoute = try? response.recordRoute { routeSet = recordRoute.reversed().map(\.compacted) }
        receiveSuccess(response, to: .invite)
        state = .confirmed
    }
}
