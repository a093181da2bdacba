public import SIPMessage

/// What a 2xx from a fork the finished session never saw gets (RFC 3261 §13.2.2.4): an ACK, kept like the
/// session's own for that 2xx's retransmissions, and a BYE at once, both in the dialog the 2xx made.
public struct ForkEnding: Sendable {
    /// The ACK, to keep with the transaction's other ACKs.
    public let ack: LingeringACK
    /// The BYE, sent in a transaction of its own to `ack.nextHop`.
    public let bye: SIPRequest
}

extension LingeringACK {
    /// The ACK and BYE for `response`, reported for `token`, when it is a 2xx of the same INVITE from another
    /// fork than the one this ACK acknowledges: a proxy forked the INVITE and a second callee answered after the
    /// call had ended (§13.2.2.4: the UAC ACKs every 2xx, and sends BYE to a dialog it does not want). The
    /// ACK carries this ACK's credentials (§22.1) but no body, so a 2xx offer is not answered: the BYE follows
    /// at once. `nil` for any other response, or a 2xx that makes no dialog (no To tag or Contact).
    /// - Parameters:
    ///   - response: the response the INVITE's client transaction passed up.
    ///   - token: the transaction it came for.
    public func endingAnotherFork(_ response: SIPResponse, for token: RequestToken) -> ForkEnding? {
        guard token == self.token, response.isSuccess, let tag = (try? response.to)??.tag, tag != remoteTag,
            let cseq = (try? request.cseq) ?? nil,
            var leg = try? Dialog(uac: request, response: response)
        else { return nil }
        var ack = leg.makeACK(sequenceNumber: cseq.sequenceNumber)
        for name in [SIPField.Name.authorization, .proxyAuthorization] {
            ack.headerFields.appendCopies(of: name, from: request.headerFields)
        }
        let bye = leg.makeRequest(.bye)
        return ForkEnding(
            ack: LingeringACK(token: token, remoteTag: tag, request: ack, nextHop: leg.nextHop), bye: bye)
    }
}
