public import SIPMessage

/// What this user agent supports, as OPTIONS answers say it (RFC 3261 §11.2): Allow, Accept,
/// Accept-Encoding, Accept-Language and Supported.
public struct UserAgentCapabilities: Sendable, Hashable {
    /// Allow.
    public var allowedMethods: [SIPMethod]
    /// Accept: the body types taken in requests.
    public var acceptedBodyTypes: [MediaType]
    /// Supported option tags.
    public var supportedExtensions: [String]
    /// Accept-Encoding (`identity` only by default).
    public var acceptedEncodings: [String]
    /// Accept-Language.
    public var acceptedLanguages: [String]

    /// - Parameters:
    ///   - allowedMethods: Allow.
    ///   - acceptedBodyTypes: Accept (SDP, plain text, sipfrag, DTMF relay, message summary by default).
    ///   - supportedExtensions: Supported.
    ///   - acceptedEncodings: Accept-Encoding.
    ///   - acceptedLanguages: Accept-Language.
    public init(
        allowedMethods: [SIPMethod] = [
            .invite, .ack, .cancel, .bye, .options, .info, .update, .prack, .refer, .notify, .message,
        ],
        acceptedBodyTypes: [MediaType] = [.sdp, .textPlain, .sipfrag, .dtmfRelay, .messageSummary],
        supportedExtensions: [String] = ["100rel", "timer", "replaces", "norefersub"],
        acceptedEncodings: [String] = ["identity"], acceptedLanguages: [String] = ["en"]
    ) {
        self.allowedMethods = allowedMethods
        self.acceptedBodyTypes = acceptedBodyTypes
        self.supportedExtensions = supportedExtensions
        self.acceptedEncodings = acceptedEncodings
        self.acceptedLanguages = acceptedLanguages
    }

    /// The 200 OK to an OPTIONS request (§11.2): the capabilities in Allow, Accept, Accept-Encoding,
    /// Accept-Language and Supported.
    /// - Parameters:
    ///   - request: the OPTIONS.
    ///   - toTag: the To tag to add when the OPTIONS came outside a dialog.
    public func optionsResponse(to request: SIPRequest, toTag: String?) -> SIPResponse {
        var response = SIPResponse(answering: request, status: 200, toTag: toTag)
        add(to: &response.headerFields)
        return response
    }

    /// Writes Allow, Accept, Accept-Encoding, Accept-Language and Supported into `fields`.
    public func add(to fields: inout SIPFields) {
        fields.append(.allow, allowedMethods.headerValue)
        fields.append(.accept, acceptedBodyTypes.map(\.wireForm).joined(separator: ", "))
        fields.append(.acceptEncoding, acceptedEncodings.joined(separator: ", "))
        fields.append(.acceptLanguage, acceptedLanguages.joined(separator: ", "))
        fields.append(.supported, supportedExtensions.joined(separator: ", "))
    }
}
