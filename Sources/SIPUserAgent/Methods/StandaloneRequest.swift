public import SIPMessage

/// Requests outside any dialog (RFC 3261 §8.1.1): OPTIONS for a qualify, MESSAGE, SUBSCRIBE.
public enum StandaloneRequest {
    /// A request with the header fields §8.1.1 requires: Request-URI, To (no tag), From (with `localTag`),
    /// Call-ID, CSeq, Max-Forwards 70, and Route for a pre-existing route set. Via is the driver's.
    /// - Parameters:
    ///   - method: the method.
    ///   - requestURI: the Request-URI (To's URI when `nil`).
    ///   - from: this side's address (no tag).
    ///   - to: the target's address.
    ///   - callID: a new Call-ID.
    ///   - localTag: a new tag.
    ///   - sequenceNumber: the CSeq number.
    ///   - routeSet: Route values, first hop first.
    ///   - contact: a Contact, for requests that need one (SUBSCRIBE, OPTIONS for a qualify).
    public static func make(
        _ method: SIPMethod, requestURI: URI? = nil, from: NameAddress, to: NameAddress, callID: String,
        localTag: String, sequenceNumber: UInt32 = 1, routeSet: [NameAddress] = [], contact: NameAddress? = nil
    ) -> SIPRequest {
        var fields = SIPFields()
        for hop in routeSet { fields.append(.route, hop) }
        fields.append(.maxForwards, 70)
        var tagged = from
        tagged.tag = localTag
        fields.append(.from, tagged)
        fields.append(.to, to)
        fields.append(.callID, callID)
        fields.append(.cseq, CSeq(min(sequenceNumber, CSeq.maximum), method))
        if let contact { fields.append(.contact, contact) }
        return SIPRequest(method: method, uri: requestURI ?? to.uri, headerFields: fields)
    }

    /// An OPTIONS request (§11.1) that asks for SDP capabilities (Accept: application/sdp); also the
    /// qualify that Asterisk and Kamailio send as a keep-alive.
    public static func options(
        requestURI: URI? = nil, from: NameAddress, to: NameAddress, callID: String, localTag: String,
        sequenceNumber: UInt32 = 1, routeSet: [NameAddress] = []
    ) -> SIPRequest {
        var request = make(
            .options, requestURI: requestURI, from: from, to: to, callID: callID, localTag: localTag,
            sequenceNumber: sequenceNumber, routeSet: routeSet)
        request.headerFields.append(.accept, MediaType.sdp)
        return request
    }
}

/// Instant messages outside a dialog (RFC 3428): the request and the answer.
public enum InstantMessage {
    /// A MESSAGE (RFC 3428 §4) carrying `body`; it creates no dialog, so it has no Contact.
    /// - Parameters:
    ///   - body: the message.
    ///   - contentType: its type (`text/plain` by default).
    ///   - from: this side's address (no tag).
    ///   - to: the recipient.
    ///   - requestURI: the Request-URI (To's URI when `nil`).
    ///   - callID: a new Call-ID.
    ///   - localTag: a new tag.
    ///   - sequenceNumber: the CSeq number.
    ///   - routeSet: Route values.
    public static func makeRequest(
        body: [UInt8], contentType: MediaType = .textPlain, from: NameAddress, to: NameAddress,
        requestURI: URI? = nil, callID: String, localTag: String, sequenceNumber: UInt32 = 1,
        routeSet: [NameAddress] = []
    ) -> SIPRequest {
        var request = StandaloneRequest.make(
            .message, requestURI: requestURI, from: from, to: to, callID: callID, localTag: localTag,
            sequenceNumber: sequenceNumber, routeSet: routeSet)
        request.headerFields.set(.contentType, contentType)
        request.body = body
        return request
    }

    /// The answer to a MESSAGE received (RFC 3428 §7): 200 OK without a body, or 415 with Accept when the
    /// body type is not one of `accepted` (a type matches by type and subtype; `*` ranges allowed).
    /// - Parameters:
    ///   - request: the MESSAGE.
    ///   - accepted: the body types taken.
    ///   - toTag: the tag for To (the MESSAGE came outside a dialog).
    public static func answer(_ request: SIPRequest, accepting accepted: [MediaType] = [.textPlain], toTag: String?)
        -> SIPResponse
    {
        let type = (try? request.contentType) ?? nil
        if let type, !accepted.contains(where: { $0.matches(type) }) {
            var refusal = SIPResponse(answering: request, status: 415, toTag: toTag)
            refusal.headerFields.append(.accept, accepted.map(\.wireForm).joined(separator: ", "))
            return refusal
        }
        return SIPResponse(answering: request, status: 200, toTag: toTag)
    }
}
