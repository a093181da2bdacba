import SDP
import SIPMessage

extension SIPHeaderFieldsContainer {
    /// Whether the message carries a body of type `application/sdp`.
    var hasSDP: Bool {
        // The usual value as bytes: what the parse below makes of it, without the parse.
        if headerFields.firstValue(of: .contentType, isLowercased: "application/sdp") { return true }
        guard let type = try? headerFields.contentType else { return false }
        return type.hasSameEssence(as: .sdp)
    }

    /// Whether `tag` is in Supported or Require.
    func supportsOption(_ tag: String) -> Bool {
        requiresOption(tag) || ((try? headerFields.supported) ?? []).contains { $0.lowercased() == tag }
    }

    /// Whether `tag` is in Require.
    func requiresOption(_ tag: String) -> Bool {
        ((try? headerFields.require) ?? []).contains { $0.lowercased() == tag }
    }

    /// Whether Allow lists `method`; `nil` when there is no Allow.
    func allows(_ method: SIPMethod) -> Bool? {
        guard headerFields.contains(.allow) else { return nil }
        return headerFields.tokenList(.allow, allowEmpty: true, contains: method.rawValue)
    }
}

extension SIPRequest {
    /// The SDP body, `nil` when there is none.
    /// - Throws: `SDPError` (400) when it does not parse.
    func sessionDescription() throws(SDPError) -> SessionDescription? {
        guard hasSDP, !bodyBytes.isEmpty else { return nil }
        return try SessionDescription(parsing: body)
    }

    mutating func setBody(_ description: SessionDescription) {
        headerFields.setSDPContentType()
        body = description.serialized()
    }
}

extension SIPFields {
    /// `set(.contentType, MediaType.sdp)`, appending at once when there is no Content-Type yet (the usual case:
    /// no search and no rebuilt field list).
    mutating func setSDPContentType() {
        if contains(.contentType) {
            set(.contentType, MediaType.sdp)
        } else {
            // `MediaType.sdp` as it writes itself.
            append(.contentType, "application/sdp")
        }
    }
}

extension SIPResponse {
    /// The SDP body, `nil` when there is none.
    func sessionDescription() throws(SDPError) -> SessionDescription? {
        guard hasSDP, !bodyBytes.isEmpty else { return nil }
        return try SessionDescription(parsing: body)
    }

    mutating func setBody(_ description: SessionDescription) {
        headerFields.setSDPContentType()
        body = description.serialized()
    }

    /// A 400, 488 or 500 naming an SDP fault, with a Warning (RFC 3261 §20.43: 399 miscellaneous).
    static func refusing(_ request: SIPRequest, _ error: SDPError, toTag: String?) -> SIPResponse {
        var response = SIPResponse(
            answering: request, status: error.status, reason: error.reasonPhrase, toTag: toTag)
        if error.status == 488 {
            response.headerFields.append(.warning, Warning(code: 304, agent: "-", text: error.detail))
        }
        return response
    }
}

extension Array where Element == SIPMethod {
    var headerValue: String {
        // The default list (one shared array: compared by identity first) has its value joined once.
        if self == InviteSessionConfiguration.defaultAllowedMethods {
            return InviteSessionConfiguration.defaultAllowHeaderValue
        }
        return map(\.rawValue).joined(separator: ", ")
    }
}
