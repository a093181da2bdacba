/// A SIP request (RFC 3261 §7.1): a value.
public struct SIPRequest: Sendable, Hashable, SIPHeaderFieldsContainer, CustomStringConvertible {
    public var method: SIPMethod
    /// The Request-URI.
    public var uri: URI
    public var headerFields: SIPFields
    /// The body bytes; for a parsed message a view of the received bytes.
    public var bodyBytes: ArraySlice<UInt8>

    public init(method: SIPMethod, uri: URI, headerFields: SIPFields = [], body: [UInt8] = []) {
        self.method = method
        self.uri = uri
        self.headerFields = headerFields
        self.bodyBytes = ArraySlice(body)
    }

    /// A parsed request: the parts are moved in as they are.
    init(method: SIPMethod, uri: URI, headerFields: SIPFields, bodyBytes: ArraySlice<UInt8>) {
        self.method = method
        self.uri = uri
        self.headerFields = headerFields
        self.bodyBytes = bodyBytes
    }

    /// Parses one request from a datagram (RFC 3261 §18.3: octets after Content-Length are ignored).
    public init(parsing bytes: [UInt8], limits: ParserLimits = ParserLimits()) throws(MessageError) {
        guard case .request(let request) = try Message(parsing: bytes, limits: limits) else {
            throw MessageError(.malformedStartLine, status: nil, "Not a request")
        }
        self = request
    }

    /// The body as an array.
    public var body: [UInt8] {
        get { Array(bodyBytes) }
        set { bodyBytes = ArraySlice(newValue) }
    }

    /// The body decoded as UTF-8.
    public var bodyText: String { String(decoding: bodyBytes, as: UTF8.self) }

    public var description: String { String(decoding: serialized(), as: UTF8.self) }
}

/// A SIP response (RFC 3261 §7.2): a value.
public struct SIPResponse: Sendable, Hashable, SIPHeaderFieldsContainer, CustomStringConvertible {
    /// 100...699.
    public var statusCode: Int
    public var reasonPhrase: String
    public var headerFields: SIPFields
    public var bodyBytes: ArraySlice<UInt8>

    public init(statusCode: Int, reasonPhrase: String? = nil, headerFields: SIPFields = [], body: [UInt8] = []) {
        self.statusCode = statusCode
        self.reasonPhrase = reasonPhrase ?? SIPResponse.defaultReasonPhrase(for: statusCode)
        self.headerFields = headerFields
        self.bodyBytes = ArraySlice(body)
    }

    /// A parsed response: the parts are moved in as they are.
    init(statusCode: Int, reasonPhrase: String, headerFields: SIPFields, bodyBytes: ArraySlice<UInt8>) {
        self.statusCode = statusCode
        self.reasonPhrase = reasonPhrase
        self.headerFields = headerFields
        self.bodyBytes = bodyBytes
    }

    /// Parses one response from a datagram.
    public init(parsing bytes: [UInt8], limits: ParserLimits = ParserLimits()) throws(MessageError) {
        guard case .response(let response) = try Message(parsing: bytes, limits: limits) else {
            throw MessageError(.malformedStartLine, status: 400, "Not a response")
        }
        self = response
    }

    public var body: [UInt8] {
        get { Array(bodyBytes) }
        set { bodyBytes = ArraySlice(newValue) }
    }

    public var bodyText: String { String(decoding: bodyBytes, as: UTF8.self) }

    /// 1xx.
    public var isProvisional: Bool { statusCode < 200 }
    /// 2xx.
    public var isSuccess: Bool { (200..<300).contains(statusCode) }
    /// 200...699.
    public var isFinal: Bool { statusCode >= 200 }

    public var description: String { String(decoding: serialized(), as: UTF8.self) }

    /// The reason phrases of RFC 3261 §21 and later RFCs.
    public static func defaultReasonPhrase(for code: Int) -> String {
        switch code {
        case 100: "Trying"
        case 180: "Ringing"
        case 181: "Call Is Being Forwarded"
        case 182: "Queued"
        case 183: "Session Progress"
        case 199: "Early Dialog Terminated"
        case 200: "OK"
        case 202: "Accepted"
        case 204: "No Notification"
        case 300: "Multiple Choices"
        case 301: "Moved Permanently"
        case 302: "Moved Temporarily"
        case 305: "Use Proxy"
        case 380: "Alternative Service"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 402: "Payment Required"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 407: "Proxy Authentication Required"
        case 408: "Request Timeout"
        case 410: "Gone"
        case 412: "Conditional Request Failed"
        case 413: "Request Entity Too Large"
        case 414: "Request-URI Too Long"
        case 415: "Unsupported Media Type"
        case 416: "Unsupported URI Scheme"
        case 417: "Unknown Resource-Priority"
        case 420: "Bad Extension"
        case 421: "Extension Required"
        case 422: "Session Interval Too Small"
        case 423: "Interval Too Brief"
        case 428: "Use Identity Header"
        case 429: "Provide Referrer Identity"
        case 433: "Anonymity Disallowed"
        case 436: "Bad Identity-Info"
        case 437: "Unsupported Certificate"
        case 438: "Invalid Identity Header"
        case 439: "First Hop Lacks Outbound Support"
        case 440: "Max-Breadth Exceeded"
        case 469: "Bad Info Package"
        case 470: "Consent Needed"
        case 480: "Temporarily Unavailable"
        case 481: "Call/Transaction Does Not Exist"
        case 482: "Loop Detected"
        case 483: "Too Many Hops"
        case 484: "Address Incomplete"
        case 485: "Ambiguous"
        case 486: "Busy Here"
        case 487: "Request Terminated"
        case 488: "Not Acceptable Here"
        case 489: "Bad Event"
        case 491: "Request Pending"
        case 493: "Undecipherable"
        case 494: "Security Agreement Required"
        case 500: "Server Internal Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Server Time-out"
        case 505: "Version Not Supported"
        case 513: "Message Too Large"
        case 555: "Push Notification Service Not Supported"
        case 580: "Precondition Failure"
        case 600: "Busy Everywhere"
        case 603: "Decline"
        case 604: "Does Not Exist Anywhere"
        case 606: "Not Acceptable"
        case 607: "Unwanted"
        case 608: "Rejected"
        default: "Unknown"
        }
    }
}

/// A parsed SIP message: a request or a response.
public enum Message: Sendable, Hashable, CustomStringConvertible {
    case request(SIPRequest)
    case response(SIPResponse)

    /// Parses one message from a datagram (RFC 3261 §18.3): leading CRLFs are skipped, octets past
    /// Content-Length are ignored, and without Content-Length the body is the rest of the datagram
    /// (RFC 2543 compatibility).
    public init(parsing bytes: [UInt8], limits: ParserLimits = ParserLimits()) throws(MessageError) {
        self = try MessageParser.parseDatagram(bytes, limits: limits)
    }

    /// Parses one message from text.
    public init(parsing text: String, limits: ParserLimits = ParserLimits()) throws(MessageError) {
        try self.init(parsing: Array(text.utf8), limits: limits)
    }

    public var headerFields: SIPFields {
        switch self {
        case .request(let r): r.headerFields
        case .response(let r): r.headerFields
        }
    }

    public var bodyBytes: ArraySlice<UInt8> {
        switch self {
        case .request(let r): r.bodyBytes
        case .response(let r): r.bodyBytes
        }
    }

    public var request: SIPRequest? {
        if case .request(let r) = self { return r }
        return nil
    }

    public var response: SIPResponse? {
        if case .response(let r) = self { return r }
        return nil
    }

    public var description: String {
        switch self {
        case .request(let r): r.description
        case .response(let r): r.description
        }
    }

    /// The wire bytes.
    public func serialized() -> [UInt8] {
        switch self {
        case .request(let r): r.serialized()
        case .response(let r): r.serialized()
        }
    }
}

/// Limits that keep a peer from making the parser hold unbounded memory.
public struct ParserLimits: Sendable, Hashable {
    /// The largest message accepted, head and body (default 64 KiB). Larger requests get 513.
    public var maximumMessageSize: Int
    /// The most header field lines in one message (default 256).
    public var maximumHeaderFields: Int
    /// The longest Request-URI (default 8 KiB); longer ones get 414.
    public var maximumURILength: Int

    public init(maximumMessageSize: Int = 65_536, maximumHeaderFields: Int = 256, maximumURILength: Int = 8_192) {
        self.maximumMessageSize = maximumMessageSize
        self.maximumHeaderFields = maximumHeaderFields
        self.maximumURILength = maximumURILength
    }
}
