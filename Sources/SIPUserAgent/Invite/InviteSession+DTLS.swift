import SDP

// A new DTLS association asked for from this side (RFC 8842 §5.2): a re-offer with a new a=tls-id.

extension InviteSession {
    /// Asks for a new DTLS-SRTP association (RFC 8842 §5.2): a re-offer, in the current hold state, whose
    /// `a=tls-id` is new and whose `a=setup` is `actpass`; the answer names the new association and the roles
    /// of its handshake. A refused or failed re-offer (`offerRejected`) leaves the association in force; a 491
    /// is retried as for every re-offer, with yet another tls-id.
    ///
    /// Unlike `hold(using:)`, it does not wait for its turn: it is refused while anything would delay it, so that
    /// the caller knows at once whether the re-offer went.
    /// - Parameter method: re-INVITE (default) or UPDATE.
    /// - Throws: `ReofferError.notConfirmed` before the call is up or after it ended;
    ///   `ReofferError.noDTLSAssociation` when the session is not keyed by DTLS; `ReofferError.offerInProgress`
    ///   while an offer or INVITE transaction is in progress, or another re-offer waits.
    public mutating func renewDTLSAssociation(using method: OfferMethod = .invite) throws(ReofferError)
        -> [SessionAction]
    {
        guard state == .confirmed else { throw .notConfirmed }
        guard offerAnswer.session?.dtls != nil else { throw .noDTLSAssociation }
        guard !isOfferBlocked, queuedOffer == nil, glareRetry == nil else { throw .offerInProgress }
        var actions: [SessionAction] = []
        sendOffer(LocalOffer(intent: .renewDTLS, method: method), into: &actions)
        finishIfDone(into: &actions)
        return actions
    }
}
