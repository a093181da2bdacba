import SIPMessage
import Testing

/// Requests and responses for the tests, written as wire text so that what is tested reads like a trace.
enum Messages {
    struct RequestError: Error {}

    /// A request. `branch: nil` leaves the branch out (RFC 2543); `toTag: nil` leaves the To tag out.
    static func request(
        _ method: SIPMethod, branch: String? = "z9hG4bK-1", sentBy: String = "client.example:5060",
        transport: String = "UDP", uri: String = "sip:bob@example.org", callID: String = "call-1",
        fromTag: String = "from-1", toTag: String? = nil, cseq: UInt32 = 1, routes: [String] = [],
        extraVias: [String] = [], extra: [String] = []
    ) throws -> SIPRequest {
        var lines = ["\(method) \(uri) SIP/2.0"]
        lines.append("Via: SIP/2.0/\(transport) \(sentBy)" + (branch.map { ";branch=\($0)" } ?? ""))
        lines += extraVias.map { "Via: \($0)" }
        lines.append("Max-Forwards: 70")
        lines += routes.map { "Route: \($0)" }
        lines.append("From: \"Alice\" <sip:alice@example.com>;tag=\(fromTag)")
        lines.append("To: <\(uri)>" + (toTag.map { ";tag=\($0)" } ?? ""))
        lines.append("Call-ID: \(callID)")
        lines.append("CSeq: \(cseq) \(method)")
        lines.append("Contact: <sip:alice@client.example:5060>")
        lines += extra
        lines.append("Content-Length: 0")
        let text = lines.joined(separator: "\r\n") + "\r\n\r\n"
        return try SIPRequest(parsing: Array(text.utf8))
    }

    /// A response to `request`, built as a UAS would (§8.2.6.2): Vias, From, To (+ tag), Call-ID, CSeq.
    static func response(to request: SIPRequest, _ status: Int, toTag: String? = "to-1") throws -> SIPResponse {
        var fields = SIPFields()
        for field in request.headerFields[fields: .via] { fields.append(field) }
        for field in request.headerFields[fields: .from] { fields.append(field) }
        let to = try #require(try request.to)
        var tagged = to
        if let toTag, status > 100, to.tag == nil { tagged.tag = toTag }
        fields.append(.to, tagged)
        for field in request.headerFields[fields: .callID] { fields.append(field) }
        for field in request.headerFields[fields: .cseq] { fields.append(field) }
        return SIPResponse(statusCode: status, headerFields: fields)
    }

    /// The ACK a UAC core sends for a 2xx (§13.2.2.4): a new branch, the 2xx's To tag.
    static func ackFor2xx(_ invite: SIPRequest, branch: String = "z9hG4bK-ack2xx", toTag: String = "to-1") throws
        -> SIPRequest
    {
        let cseq = try #require(try invite.cseq)
        let callID = try #require(try invite.callID)
        let fromTag = try #require(try invite.from?.tag)
        return try request(
            .ack, branch: branch, uri: invite.uri.description, callID: callID, fromTag: fromTag, toTag: toTag,
            cseq: cseq.sequenceNumber)
    }
}
