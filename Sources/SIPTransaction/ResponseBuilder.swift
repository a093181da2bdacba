import SIPMessage

/// The few responses the transaction layer writes itself: 100 Trying (§17.2.1), 482 for merged requests
/// (§8.2.2.2) and 503 when the transaction table is full (§21.5.4).
enum ResponseBuilder {
    /// A response to `request` built as §8.2.6.2 says: every Via in order, From, To, Call-ID and CSeq copied;
    /// a To tag added (unless there is one, or `toTag` is nil as 100 Trying allows); for 100 Trying the
    /// Timestamp copied too (§8.2.6.1).
    static func response(
        to request: SIPRequest, statusCode: Int, toTag: String?, extra: [SIPField] = []
    ) -> SIPResponse {
        var response = SIPResponse(answering: request, status: statusCode, toTag: toTag)
        for field in extra { response.headerFields.append(field) }
        return response
    }

    /// A To tag for a response the layer sends without the TU: the same request always gets the same tag
    /// (a retransmission is answered alike, as §8.2.7 asks of stateless answers), and `seed` keeps the tags
    /// of one deployment unguessable without the layer reading a random source itself (§19.3).
    static func tag(for request: SIPRequest, seed: UInt64) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
        func mix(_ text: String?) {
            guard let text else { return }
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01B3
            }
            hash ^= 0xFF
            hash &*= 0x0000_0100_0000_01B3
        }
        let fields = request.headerFields
        mix(fields[.callID])
        mix(fields[.from])
        mix(fields[.cseq])
        mix(fields[.via])
        return "sb" + String(hash, radix: 16)
    }
}
