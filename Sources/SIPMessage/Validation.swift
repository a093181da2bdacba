/// What a user agent supports, for the purely syntactic checks of RFC 3261 §8.2.2 and §8.2.3 that answer
/// 416, 420, 415 and 406.
public struct Capabilities: Sendable, Hashable {
    /// URI schemes accepted in the Request-URI (lower case).
    public var uriSchemes: [String]
    /// Option tags this element supports (RFC 3261 §8.2.2.3).
    public var extensions: [String]
    /// Body types accepted in requests; an empty list accepts any (§8.2.3).
    public var acceptedBodyTypes: [MediaType]
    /// Content codings accepted; `identity` is always accepted.
    public var acceptedEncodings: [String]
    /// The body type this element answers INVITE with, checked against the request's Accept (§8.2.2.1... 406).
    public var answerBodyType: MediaType?

    public init(
        uriSchemes: [String] = ["sip", "sips", "tel"],
        extensions: [String] = [],
        acceptedBodyTypes: [MediaType] = Capabilities.defaultBodyTypes,
        acceptedEncodings: [String] = [],
        answerBodyType: MediaType? = .sdp
    ) {
        self.uriSchemes = uriSchemes
        self.extensions = extensions
        self.acceptedBodyTypes = acceptedBodyTypes
        self.acceptedEncodings = acceptedEncodings
        self.answerBodyType = answerBodyType
    }

    /// SDP for sessions, plain text and multipart for MESSAGE, sipfrag for REFER progress, DTMF relay for
    /// INFO, message-summary for MWI.
    public static let defaultBodyTypes: [MediaType] = [
        .sdp, .textPlain, .multipartMixed, .sipfrag, .dtmfRelay, .messageSummary,
    ]
}

extension SIPRequest {
    /// The checks a UAS makes before the transaction layer (RFC 3261 §8.2, §18.3): mandatory and
    /// single-valued header fields, the syntax of the fields the stack reads, CSeq against the method,
    /// Content-Length against the body; then, given `capabilities`, the URI scheme (416), required
    /// extensions (420), body type and encoding (415) and Accept (406).
    ///
    /// Throws the error whose `status` the response must carry.
    public func validate(capabilities: Capabilities? = nil) throws(MessageError) {
        // CSeq and Content-Type as the common checks parsed them: not parsed again below.
        let parsed = try headerFields.validateCommon(isRequest: true)

        // CSeq method must equal the request method (§8.2 / RFC 4475 §3.1.2.17-18).
        if let cseq = parsed.cseq, cseq.method != method {
            if method.isStandard {
                throw MessageError(.methodMismatch, status: 400, "CSeq method does not match the request method")
            }
            throw MessageError(
                .methodNotImplemented, status: 501, "Not Implemented (and the CSeq method does not match)")
        }
        if case .sip(let sip) = uri, !sip.headers.isEmpty {
            throw MessageError(.malformedURI, status: 400, "Request-URI must not carry headers")
        }
        if !bodyBytes.isEmpty, !headerFields.contains(.contentType) {
            throw MessageError(.missingHeader, status: 400, "Missing Content-Type for a body", field: "content-type")
        }

        guard let capabilities else { return }

        if !capabilities.uriSchemes.contains(uri.scheme) {
            throw MessageError(.unsupportedURIScheme, status: 416, "Unsupported URI Scheme: \(uri.scheme)")
        }
        if method != .ack, method != .cancel {
            let unknown = try require.filter { tag in
                !capabilities.extensions.contains { $0.equalsCaseInsensitive(tag) }
            }
            if !unknown.isEmpty {
                throw MessageError(
                    .badExtension, status: 420, "Bad Extension: \(unknown.joined(separator: ", "))", field: "require",
                    detail: unknown)
            }
        }
        if !bodyBytes.isEmpty, let type = parsed.contentType {
            if !capabilities.acceptedBodyTypes.isEmpty,
                !capabilities.acceptedBodyTypes.contains(where: { $0.matches(type) })
            {
                throw MessageError(
                    .unsupportedMediaType, status: 415, "Unsupported Media Type: \(type.type)/\(type.subtype)",
                    field: "content-type")
            }
            let unknownCodings = try contentEncoding.filter { coding in
                !coding.equalsCaseInsensitive("identity")
                    && !capabilities.acceptedEncodings.contains { $0.equalsCaseInsensitive(coding) }
            }
            if !unknownCodings.isEmpty {
                throw MessageError(
                    .unsupportedMediaType, status: 415, "Unsupported Content-Encoding: \(unknownCodings[0])",
                    field: "content-encoding")
            }
        }
        if method == .invite, let answerType = capabilities.answerBodyType, headerFields.contains(.accept) {
            let ranges = try accept
            if !ranges.contains(where: { $0.matches(answerType) }) {
                throw MessageError(
                    .notAcceptable, status: 406,
                    "Not Acceptable: Accept excludes \(answerType.type)/\(answerType.subtype)",
                    field: "accept")
            }
        }
    }
}

extension SIPResponse {
    /// The checks a UAC makes on a response before the transaction layer (RFC 3261 §8.1.3); a failure means
    /// drop. The fields every response carries (§8.1.1) are there, once each where the grammar allows one,
    /// and those read to match and route it parse: To (its tag names the dialog), Call-ID, CSeq, and the
    /// optional fields present. Not parsed here: the Vias (the transaction layer reads the top one through
    /// `topViaSummary`, which parses it exactly as `topVia` does, and drops a response whose top Via does not
    /// parse; a UAC reads no other), From (a UAC reads its own from the request) and Contact (read by whoever
    /// needs it, which copes with one that does not parse).
    public func validate() throws(MessageError) {
        do {
            try headerFields.validateCommon(isRequest: false)
        } catch {
            throw error.asDrop
        }
    }
}

extension Message {
    /// Validates a request (see `SIPRequest.validate(capabilities:)`) or a response (failures are drops).
    public func validate(capabilities: Capabilities? = nil) throws(MessageError) {
        switch self {
        case .request(let request): try request.validate(capabilities: capabilities)
        case .response(let response): try response.validate()
        }
    }
}

extension SIPFields {
    /// Header fields that must appear at most once (their grammar has no comma-separated list).
    static let singleValued: [KnownHeader] = [
        .callID, .cseq, .from, .to, .maxForwards, .contentType, .expires, .minExpires, .rseq, .rack,
        .sessionExpires, .minSE, .event, .subscriptionState, .referTo, .replaces,
    ]

    /// The fields of `validateCommon(isRequest:)` a request's own checks read next, as it parsed them.
    struct CommonFields {
        var cseq: CSeq?
        var contentType: MediaType?
    }

    @discardableResult
    func validateCommon(isRequest: Bool) throws(MessageError) -> CommonFields {
        // One pass over the fields says which known headers are there, and which more than once; only those
        // present are parsed below (in the same order as before, so the first fault named stays the same).
        let presence = KnownHeaderPresence(entries)
        for header in SIPFields.mandatory where !presence.contains(header) {
            throw MessageError(
                .missingHeader, status: 400, "Missing \(header.displayName) header", field: header.canonicalName)
        }
        for header in SIPFields.singleValued where presence.isRepeated(header) {
            throw MessageError(
                .multipleValues, status: 400, "Multiple \(header.displayName) header fields",
                field: header.canonicalName)
        }
        // The fields the stack itself reads must parse; a malformed one is named in the reason phrase. A UAC
        // reads no Via but the top one, which the transaction layer checks, nor From, nor (here) Contact.
        // Lists are parsed value by value and each value dropped (`checkList`): the same parse, no array.
        if isRequest {
            try checkList(.via, as: Via.self)
            _ = try from
        }
        _ = try to
        // The value checked as the `callID` getter checks it, without making the string.
        _ = try callIDValue
        let cseq = try cseq
        if presence.contains(.maxForwards) { _ = try maxForwards }
        if isRequest, presence.contains(.contact) { try checkList(.contact, as: Contact.self) }
        if presence.contains(.route) { try checkList(.route, as: NameAddress.self) }
        if presence.contains(.recordRoute) { try checkList(.recordRoute, as: NameAddress.self) }
        let contentType = presence.contains(.contentType) ? try contentType : nil
        if presence.contains(.expires) { _ = try expires }
        if presence.contains(.minExpires) { _ = try minExpires }
        if presence.contains(.require) { try checkList(.require, as: TokenValue.self) }
        if presence.contains(.proxyRequire) { try checkList(.proxyRequire, as: TokenValue.self) }
        if presence.contains(.supported) { try checkList(.supported, as: TokenValue.self, allowEmpty: true) }
        if presence.contains(.rseq) { _ = try rseq }
        if presence.contains(.rack) { _ = try rack }
        if presence.contains(.sessionExpires) { _ = try sessionExpires }
        if presence.contains(.minSE) { _ = try minSE }
        if presence.contains(.event) { _ = try event }
        if presence.contains(.subscriptionState) { _ = try subscriptionState }
        if presence.contains(.referTo) { _ = try referTo }
        if presence.contains(.replaces) { _ = try replaces }
        if !isRequest {
            if presence.contains(.retryAfter) { _ = try retryAfter }
            if presence.contains(.unsupported) { try checkList(.unsupported, as: TokenValue.self) }
        }
        return CommonFields(cseq: cseq, contentType: contentType)
    }

    /// What `parseList(_:as:allowEmpty:)` checks, keeping nothing: every value of every field of `header`
    /// parsed and dropped, with the same errors, where the typed accessor built an array (and, for token
    /// lists, a second one of strings) only for validation to drop it.
    private func checkList<T: ScannerParsable>(
        _ header: KnownHeader, as type: T.Type, allowEmpty: Bool = false
    ) throws(MessageError) {
        try forEachListValue(header, as: type, allowEmpty: allowEmpty) { _ in }
    }

    /// The headers every request and response carries (RFC 3261 §8.1.1).
    static let mandatory: [KnownHeader] = [.via, .from, .to, .callID, .cseq]

}

/// Which known headers a field collection holds, and which of them more than once: a bit per `KnownHeader`
/// raw value (all below 128), from one pass over the fields.
struct KnownHeaderPresence {
    private var seen: (UInt64, UInt64) = (0, 0)
    private var repeated: (UInt64, UInt64) = (0, 0)

    init(_ entries: [SIPFields.Entry]) {
        for entry in entries where entry.id != 0 {
            let bit = UInt64(1) << UInt64(entry.id & 63)
            if entry.id < 64 {
                if seen.0 & bit != 0 { repeated.0 |= bit }
                seen.0 |= bit
            } else if entry.id < 128 {
                if seen.1 & bit != 0 { repeated.1 |= bit }
                seen.1 |= bit
            }
        }
    }

    /// Whether a field of `header` is there (`true` for a raw value past the bits: parse it to know).
    func contains(_ header: KnownHeader) -> Bool { Self.test(seen, header, beyond: true) }

    /// Whether more than one field of `header` is there.
    func isRepeated(_ header: KnownHeader) -> Bool { Self.test(repeated, header, beyond: false) }

    private static func test(_ mask: (UInt64, UInt64), _ header: KnownHeader, beyond: Bool) -> Bool {
        let id = header.rawValue
        let bit = UInt64(1) << UInt64(id & 63)
        return id < 64 ? mask.0 & bit != 0 : (id < 128 ? mask.1 & bit != 0 : beyond)
    }
}
