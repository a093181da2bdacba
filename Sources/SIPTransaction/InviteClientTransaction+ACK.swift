import SIPMessage

extension InviteClientTransaction {
    /// The ACK for a non-2xx final response (§17.1.1.3): the INVITE's Request-URI, Call-ID, From, CSeq
    /// number and top Via (as the only Via), the response's To (with its tag), the INVITE's Route header
    /// fields, and Max-Forwards (mandatory in every request, §8.1.1.6) taken from the INVITE.
    func makeACK(for response: SIPResponse) -> SIPRequest {
        let invite = request.headerFields
        var fields = SIPFields()
        if let via = try? invite.topVia {
            fields.append(.via, via)
        } else if let first = invite[fields: .via].first {
            fields.append(first)
        }
        let maxForwards = (try? invite.maxForwards) ?? nil
        fields.append(.maxForwards, maxForwards ?? 70)
        for field in invite[fields: .from] { fields.append(field) }
        for field in response.headerFields[fields: .to] { fields.append(field) }
        for field in invite[fields: .callID] { fields.append(field) }
        if let cseq = try? invite.cseq {
            fields.append(.cseq, CSeq(cseq.sequenceNumber, .ack))
        }
        for field in invite[fields: .route] { fields.append(field) }
        return SIPRequest(method: .ack, uri: request.uri, headerFields: fields)
    }
}
