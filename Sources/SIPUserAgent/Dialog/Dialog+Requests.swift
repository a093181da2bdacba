public import SIPMessage

extension Dialog {
    /// The Request-URI and Route values of a request in this dialog (RFC 3261 §12.2.1.1).
    ///
    /// With an empty route set the request goes to the remote target. When the first route is a loose router
    /// (`;lr`) the Request-URI is the remote target and the route set goes in Route as it is. Otherwise the
    /// first route is a strict router: it becomes the Request-URI (without the parameters a Request-URI may
    /// not carry), the rest of the route set follows in Route and the remote target is appended last.
    public var routing: (requestURI: URI, route: [NameAddress]) {
        guard let first = routeSet.first else { return (remoteTarget, []) }
        if first.uri.sipURI?.isLooseRouter ?? false { return (remoteTarget, routeSet) }
        var route = Array(routeSet.dropFirst())
        route.append(NameAddress(uri: remoteTarget))
        return (first.uri.strippedForRequestURI, route)
    }

    /// Where requests of the dialog go first (RFC 3261 §8.1.2, §12.2.1.1): the first route (a loose router,
    /// or the strict router that is also the Request-URI), or the remote target when the route set is empty.
    /// The driver resolves it (RFC 3263) unless an outbound proxy or an existing flow decides.
    public var nextHop: URI { routeSet.first?.uri ?? remoteTarget }

    /// The Replaces value that names this dialog to the other side (RFC 3891 §6.1): its `to-tag` is the
    /// other side's tag (the tag of whoever receives the INVITE that carries it), its `from-tag` this side's.
    /// Put it in a Refer-To for an attended transfer.
    public var replaces: Replaces {
        Replaces(callID: id.callID, toTag: id.remoteTag, fromTag: id.localTag)
    }

    /// A request in the dialog with the headers §12.2.1.1 prescribes: Request-URI and Route from the route
    /// set, To with the remote tag, From with the local tag, Call-ID, CSeq one above the last one sent (1 for
    /// the first), Max-Forwards 70. Contact, Via and the rest are the caller's.
    ///
    /// ACK and CANCEL take the CSeq of the request they belong to: use `makeACK(sequenceNumber:)` and the
    /// session's CANCEL.
    public mutating func makeRequest(_ method: SIPMethod) -> SIPRequest {
        let next = (localSequence ?? 0) &+ 1
        localSequence = next
        return makeRequest(method, sequenceNumber: next)
    }

    /// The ACK for a 2xx to the INVITE with CSeq `sequenceNumber` (§13.2.2.4): the dialog's Request-URI,
    /// Route, From, To and Call-ID, CSeq `sequenceNumber ACK`.
    public func makeACK(sequenceNumber: UInt32) -> SIPRequest {
        makeRequest(.ack, sequenceNumber: sequenceNumber)
    }

    func makeRequest(_ method: SIPMethod, sequenceNumber: UInt32) -> SIPRequest {
        let (uri, route) = routing
        var fields = SIPFields()
        for hop in route { fields.append(.route, hop) }
        fields.append(.maxForwards, 70)
        // A kept address is a whole value without tag, so setting a token tag on it appends `;tag=` and the
        // tag to its bytes: written so, without parsing the address back. Any other tag the general way.
        if let from = TaggedAddress(addresses.localBytes, tag: id.localTag) {
            fields.append(.from, from)
        } else {
            var from = localAddress
            from.tag = id.localTag
            fields.append(.from, from)
        }
        if let to = TaggedAddress(addresses.remoteBytes, tag: id.remoteTag, optional: true) {
            fields.append(.to, to)
        } else {
            var to = remoteAddress
            if !id.remoteTag.isEmpty { to.tag = id.remoteTag }
            fields.append(.to, to)
        }
        fields.append(.callID, id.callID)
        fields.append(.cseq, CSeq(sequenceNumber, method))
        return SIPRequest(method: method, uri: uri, headerFields: fields)
    }
}

/// A dialog's address as its kept bytes followed by `;tag=` and a tag: what `NameAddress.tag`'s setter
/// writes for such an address when the tag is a non-empty token.
struct TaggedAddress: SIPHeaderEncodable {
    let address: ArraySlice<UInt8>
    let tag: String

    /// `nil` when the tag is not a token (or empty, unless `optional`: then the address goes alone), or the
    /// bytes do not look like a whole value (white space at either end): those take the general way.
    init?(_ address: ArraySlice<UInt8>, tag: String, optional: Bool = false) {
        guard let first = address.first, let last = address.last, !Self.isSpace(first), !Self.isSpace(last),
            tag.isEmpty ? optional : Self.isToken(tag)
        else { return nil }
        self.address = address
        self.tag = tag
    }

    func serialize(into buffer: inout [UInt8]) {
        buffer.append(contentsOf: address)
        guard !tag.isEmpty else { return }
        buffer.append(contentsOf: ";tag=".utf8)
        if tag.utf8.withContiguousStorageIfAvailable({ buffer.append(contentsOf: $0) }) == nil {
            buffer.append(contentsOf: tag.utf8)
        }
    }

    private static func isToken(_ tag: String) -> Bool {
        tag.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where !isTokenByte(byte) { return false }
            return true
        } ?? tag.utf8.allSatisfy(isTokenByte)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// RFC 3261 `token`: alphanumerics and `-.!%*_+`'~`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "!"), UInt8(ascii: "%"), UInt8(ascii: "*"),
            UInt8(ascii: "_"), UInt8(ascii: "+"), UInt8(ascii: "`"), UInt8(ascii: "'"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}

extension URI {
    /// The URI without the parts a Request-URI may not carry (RFC 3261 §19.1.1 table 1: `method`, headers).
    var strippedForRequestURI: URI {
        guard case .sip(var sip) = self else { return self }
        if !sip.headers.isEmpty { sip.headers = [] }
        if sip.parameters.contains("method") {
            var parameters = sip.parameters
            parameters.remove("method")
            sip.parameters = parameters
        }
        return .sip(sip)
    }
}
