/// Why a SIP message was refused, and what to do about it.
///
/// A request that fails gets the response RFC 3261 prescribes (`status`, with `reasonPhrase` naming the
/// fault). A response that fails is dropped (`status == nil`): there is no one to answer.
public struct MessageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; grows over time, so match with `==` against the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let raw: UInt8
        let name: String

        public var description: String { name }

        public static let malformedStartLine = Code(raw: 1, name: "malformed start line")
        public static let unsupportedVersion = Code(raw: 2, name: "unsupported SIP version")
        public static let malformedHeader = Code(raw: 3, name: "malformed header field")
        public static let missingHeader = Code(raw: 4, name: "missing header field")
        public static let multipleValues = Code(raw: 5, name: "several values in a single-valued header field")
        public static let methodMismatch = Code(raw: 6, name: "CSeq method differs from the request method")
        public static let badContentLength = Code(raw: 7, name: "bad Content-Length")
        public static let incompleteHeaders = Code(raw: 8, name: "header section not terminated")
        public static let messageTooLarge = Code(raw: 9, name: "message too large")
        public static let tooManyHeaders = Code(raw: 10, name: "too many header fields")
        public static let malformedURI = Code(raw: 11, name: "malformed URI")
        public static let unsupportedURIScheme = Code(raw: 12, name: "unsupported URI scheme")
        public static let badExtension = Code(raw: 13, name: "unsupported extension required")
        public static let unsupportedMediaType = Code(raw: 14, name: "unsupported media type")
        public static let notAcceptable = Code(raw: 15, name: "no acceptable response body type")
        public static let statusOutOfRange = Code(raw: 16, name: "status code out of range")
        public static let uriTooLong = Code(raw: 17, name: "Request-URI too long")
        public static let methodNotImplemented = Code(raw: 18, name: "method not implemented")
        public static let invalidValue = Code(raw: 19, name: "invalid value")

        public static func == (a: Code, b: Code) -> Bool { a.raw == b.raw }
        public func hash(into hasher: inout Hasher) { hasher.combine(raw) }
    }

    /// What went wrong.
    public let code: Code
    /// The response status for a request (400, 413, 414, 415, 416, 420, 501, 505, ...); `nil` means drop.
    public let status: Int?
    /// A reason phrase naming the fault, fit for the status line of the response.
    public let reasonPhrase: String
    /// The header field at fault, when there is one (its canonical name).
    public let fieldName: String?
    /// Extra detail: for `badExtension` the option tags that are not supported.
    public let detail: [String]

    init(_ code: Code, status: Int?, _ reasonPhrase: String, field: String? = nil, detail: [String] = []) {
        self.code = code
        self.status = status
        self.reasonPhrase = reasonPhrase
        self.fieldName = field
        self.detail = detail
    }

    /// True when the message must be silently discarded (a bad response, or garbage with no start line).
    public var isDrop: Bool { status == nil }

    public var description: String {
        if let status { return "reject \(status) \(reasonPhrase)" }
        return "drop \(reasonPhrase)"
    }

    /// The same fault, as a drop: used when the message turns out to be a response.
    var asDrop: MessageError {
        MessageError(code, status: nil, reasonPhrase, field: fieldName, detail: detail)
    }

    // MARK: Constructors used across the module

    static func malformed(_ field: KnownHeader?, _ what: String = "") -> MessageError {
        let display = field.map { "\($0.displayName) header" } ?? "value"
        let phrase = what.isEmpty ? "Malformed \(display)" : "Malformed \(display): \(what)"
        return MessageError(.malformedHeader, status: 400, phrase, field: field?.canonicalName)
    }

    static func malformedURI(_ what: String) -> MessageError {
        MessageError(.malformedURI, status: 400, "Malformed URI: \(what)", detail: [what])
    }

    /// For a URI error: what was wrong with the URI, without the "Malformed URI" prefix.
    var uriProblem: String { detail.first ?? reasonPhrase }

    static func badValue(_ what: String) -> MessageError {
        MessageError(.invalidValue, status: 400, "Invalid value: \(what)")
    }
}
