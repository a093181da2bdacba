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
        fields.appendCopies(of: .from, from: invite)
        fields.appendCopies(of: .to, from: response.headerFields)
        fields.appendCopies(of: .callID, from: invite)
        if let cseq = try? invite.cseq {
            fields.append(.cseq, CSeq(cseq.sequenceNumber, .ack))
        }
        fields.appendCopies(of: .route, from: invite)
        return SIPRequest(method: .ack, uri: request.uri, headerFields: fields)
    }
}
