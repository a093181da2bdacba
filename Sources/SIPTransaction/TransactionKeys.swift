import SIPMessage

/// §17.1.3: a response belongs to the client transaction whose request had the same top Via branch and
/// the same CSeq method (a CANCEL shares its INVITE's branch).
struct ClientKey: Hashable, Sendable {
    var branch: String
    var method: SIPMethod

    /// The branch alone tells transactions apart but for a CANCEL and its INVITE: hashing it alone halves
    /// the cost; `==` still compares both.
    func hash(into hasher: inout Hasher) { hasher.combine(branch) }
}

/// §17.2.3 for requests whose branch carries the `z9hG4bK` cookie: branch, sent-by and method, with ACK
/// standing for the INVITE it acknowledges.
struct ServerKey: Hashable, Sendable {
    var branch: String
    var host: String
    var port: UInt16?
    var method: SIPMethod

    /// Hashes the branch alone (see `ClientKey`); `==` compares every part.
    func hash(into hasher: inout Hasher) { hasher.combine(branch) }
}

/// §17.2.3 for RFC 2543 requests (no cookie): the hashable part of the fallback match. Request-URI, top
/// Via, To tag and method are compared on the candidates this key finds.
struct LegacyKey: Hashable, Sendable {
    var callID: String
    var cseqNumber: UInt32
    var fromTag: String?
}

/// §8.2.2.2: Call-ID and CSeq of a request that created a server transaction. A new request without a To
/// tag that finds a live transaction here, and has its From tag, was merged (a fork that came back). The
/// From tags are compared only then, so the common case parses neither From nor To.
struct MergeKey: Hashable, Sendable {
    var callID: String
    var cseqNumber: UInt32
    var method: SIPMethod

    func hash(into hasher: inout Hasher) {
        hasher.combine(callID)
        hasher.combine(cseqNumber)
    }
}

/// What the layer reads from an incoming request to match it, read once. `nil` means the request cannot
/// be matched at all (no usable top Via or CSeq) and is dropped. It keeps no copy of the request: the
/// readers of other fields take it as an argument.
struct RequestSummary {
    var method: SIPMethod
    /// The top Via's branch and sent-by, read without building a `Via`; RFC 2543 matching, which compares
    /// whole Vias, parses the top Via itself.
    var topVia: TopViaSummary
    /// CSeq's number; its method is `method` (a request whose CSeq names another has no summary).
    var cseqNumber: UInt32
    /// The branch when it carries the RFC 3261 cookie; `nil` selects the RFC 2543 rules.
    var branch: String? { topVia.hasMagicCookie ? topVia.branch : nil }

    /// Borrows the request: an initializer's parameters are owned by default, which would copy it. `topVia`
    /// is the summary the transport read on arrival, used when it was read from this request's Via bytes.
    init?(_ request: borrowing SIPRequest, topVia: TopViaSummary? = nil) {
        // A CSeq naming another method would match the wrong transaction (§8.2 answers it with 400).
        guard let via = request.headerFields.topViaSummary(reusing: topVia),
            let number = (try? request.headerFields.cseqNumber(ifMethodIs: request.method)) ?? nil
        else { return nil }
        self.method = request.method
        self.topVia = via
        self.cseqNumber = number
    }

    /// The method transactions are matched by: ACK matches the INVITE (§17.2.3).
    var matchingMethod: SIPMethod { method == .ack ? .invite : method }

    func serverKey(method: SIPMethod) -> ServerKey? {
        guard let branch else { return nil }
        let name = topVia.hostKind == .hostname ? topVia.host.lowercased() : topVia.host
        return ServerKey(branch: branch, host: name, port: topVia.port, method: method)
    }

    static func callID(of request: SIPRequest) -> String? { (try? request.callID) ?? nil }
    static func fromTag(of request: SIPRequest) -> String? { ((try? request.from) ?? nil)?.tag }

    /// `nil` when the To header field is missing or malformed; `.some(nil)` when it has no tag.
    static func toTag(of request: SIPRequest) -> String?? {
        guard let to = (try? request.to) ?? nil else { return nil }
        return .some(to.tag)
    }

    func legacyKey(callID: String?, request: SIPRequest) -> LegacyKey? {
        guard let callID else { return nil }
        return LegacyKey(callID: callID, cseqNumber: cseqNumber, fromTag: Self.fromTag(of: request))
    }

    func mergeKey(callID: String?) -> MergeKey? {
        guard let callID else { return nil }
        return MergeKey(callID: callID, cseqNumber: cseqNumber, method: method)
    }
}
