/// Anything that carries SIP header fields: requests, responses and `SIPFields` itself. The typed views
/// below parse the raw fields when asked; the raw fields stay the truth.
///
/// Single-valued views return `nil` when the field is absent and throw a `MessageError` naming the field
/// when it is malformed. List views return every value of every field, split at commas.
public protocol SIPHeaderFieldsContainer {
    var headerFields: SIPFields { get set }
}

extension SIPFields: SIPHeaderFieldsContainer {
    public var headerFields: SIPFields {
        get { self }
        set { self = newValue }
    }
}

extension SIPHeaderFieldsContainer {
    /// Every Via value, top first (RFC 3261 §20.42).
    public var via: [Via] { get throws(MessageError) { try headerFields.parseList(.via, as: Via.self) } }

    /// The top Via value only, without parsing the rest.
    public var topVia: Via? { get throws(MessageError) { try headerFields.parseFirst(.via, as: Via.self) } }

    /// From (RFC 3261 §20.20).
    public var from: NameAddress? {
        get throws(MessageError) { try headerFields.parseSingle(.from, as: NameAddress.self) }
    }

    /// To (RFC 3261 §20.39).
    public var to: NameAddress? {
        get throws(MessageError) { try headerFields.parseSingle(.to, as: NameAddress.self) }
    }

    /// Call-ID (RFC 3261 §20.8).
    public var callID: String? {
        get throws(MessageError) {
            guard let value = try headerFields.parseSingle(.callID, as: CallIDValue.self) else { return nil }
            switch value {
            case .value(let s): return s
            }
        }
    }

    /// CSeq (RFC 3261 §20.16).
    public var cseq: CSeq? { get throws(MessageError) { try headerFields.parseSingle(.cseq, as: CSeq.self) } }

    /// Max-Forwards, 0...255 (RFC 3261 §20.22).
    public var maxForwards: Int? {
        get throws(MessageError) { try headerFields.parseNumber(.maxForwards, limit: 255).map { Int($0) } }
    }

    /// Every Contact value (RFC 3261 §20.10).
    public var contacts: [Contact] {
        get throws(MessageError) { try headerFields.parseList(.contact, as: Contact.self) }
    }

    /// The first Contact value only.
    public var firstContact: Contact? {
        get throws(MessageError) { try headerFields.parseFirst(.contact, as: Contact.self) }
    }

    /// Route (RFC 3261 §20.34).
    public var route: [NameAddress] {
        get throws(MessageError) { try headerFields.parseList(.route, as: NameAddress.self) }
    }

    /// Record-Route (RFC 3261 §20.30).
    public var recordRoute: [NameAddress] {
        get throws(MessageError) { try headerFields.parseList(.recordRoute, as: NameAddress.self) }
    }

    /// Path (RFC 3327).
    public var path: [NameAddress] {
        get throws(MessageError) { try headerFields.parseList(.path, as: NameAddress.self) }
    }

    /// Service-Route (RFC 3608).
    public var serviceRoute: [NameAddress] {
        get throws(MessageError) { try headerFields.parseList(.serviceRoute, as: NameAddress.self) }
    }

    /// Content-Length as written (the serializer always writes the body's real length).
    public var contentLength: Int? {
        get throws(MessageError) {
            try headerFields.parseNumber(.contentLength, limit: UInt64(Int32.max)).map { Int($0) }
        }
    }

    /// Content-Type (RFC 3261 §20.15).
    public var contentType: MediaType? {
        get throws(MessageError) { try headerFields.parseSingle(.contentType, as: MediaType.self) }
    }

    /// Content-Encoding tokens (RFC 3261 §20.12).
    public var contentEncoding: [String] {
        get throws(MessageError) { try headerFields.parseList(.contentEncoding, as: TokenValue.self).map(\.value) }
    }

    /// Content-Disposition (RFC 3261 §20.11).
    public var contentDisposition: ContentDisposition? {
        get throws(MessageError) { try headerFields.parseSingle(.contentDisposition, as: TokenWithParameters.self) }
    }

    /// Expires in seconds (RFC 3261 §20.19).
    public var expires: UInt32? {
        get throws(MessageError) { try headerFields.parseNumber(.expires, limit: 0xFFFF_FFFF).map { UInt32($0) } }
    }

    /// Min-Expires in seconds (RFC 3261 §20.23).
    public var minExpires: UInt32? {
        get throws(MessageError) {
            try headerFields.parseNumber(.minExpires, limit: 0xFFFF_FFFF).map { UInt32($0) }
        }
    }

    /// Allow (RFC 3261 §20.5).
    public var allow: [SIPMethod] {
        get throws(MessageError) {
            try headerFields.parseList(.allow, as: TokenValue.self, allowEmpty: true).map {
                SIPMethod(unchecked: $0.value)
            }
        }
    }

    /// Supported option tags (RFC 3261 §20.37).
    public var supported: [String] {
        get throws(MessageError) {
            try headerFields.parseList(.supported, as: TokenValue.self, allowEmpty: true).map(\.value)
        }
    }

    /// Require option tags (RFC 3261 §20.32).
    public var require: [String] {
        get throws(MessageError) { try headerFields.parseList(.require, as: TokenValue.self).map(\.value) }
    }

    /// Proxy-Require option tags (RFC 3261 §20.29).
    public var proxyRequire: [String] {
        get throws(MessageError) { try headerFields.parseList(.proxyRequire, as: TokenValue.self).map(\.value) }
    }

    /// Unsupported option tags (RFC 3261 §20.40).
    public var unsupported: [String] {
        get throws(MessageError) { try headerFields.parseList(.unsupported, as: TokenValue.self).map(\.value) }
    }

    /// WWW-Authenticate challenges (RFC 3261 §20.44).
    public var wwwAuthenticate: [Challenge] {
        get throws(MessageError) {
            try headerFields.parseAuth(.wwwAuthenticate).map {
                Challenge(scheme: $0.0, parameters: $0.1, token68: $0.2)
            }
        }
    }

    /// Proxy-Authenticate challenges (RFC 3261 §20.27).
    public var proxyAuthenticate: [Challenge] {
        get throws(MessageError) {
            try headerFields.parseAuth(.proxyAuthenticate).map {
                Challenge(scheme: $0.0, parameters: $0.1, token68: $0.2)
            }
        }
    }

    /// Authorization credentials (RFC 3261 §20.7).
    public var authorization: [Credentials] {
        get throws(MessageError) {
            try headerFields.parseAuth(.authorization).map {
                Credentials(scheme: $0.0, parameters: $0.1, token68: $0.2)
            }
        }
    }

    /// Proxy-Authorization credentials (RFC 3261 §20.28).
    public var proxyAuthorization: [Credentials] {
        get throws(MessageError) {
            try headerFields.parseAuth(.proxyAuthorization).map {
                Credentials(scheme: $0.0, parameters: $0.1, token68: $0.2)
            }
        }
    }

    /// Authentication-Info (RFC 3261 §20.6).
    public var authenticationInfo: AuthenticationInfo? {
        get throws(MessageError) {
            guard let range = headerFields.firstValueRange(.authenticationInfo) else { return nil }
            return try ByteScanner.scan(headerFields.storage, range) {
                (scanner) throws(MessageError) -> AuthenticationInfo in
                var params = Parameters()
                let field: KnownHeader? = .authenticationInfo
                scanner.skipLWS()
                while !scanner.isAtEnd {
                    guard let name = scanner.readToken(), scanner.consumeSeparator(ASCII.equals) else {
                        throw .malformed(field, "expected name=value")
                    }
                    guard let value = scanner.readQuotedString() ?? scanner.readToken() else {
                        throw .malformed(field, "parameter without value")
                    }
                    params.append(Parameter(scanner.string(name), scanner.string(value)))
                    scanner.skipLWS()
                    guard scanner.consumeSeparator(ASCII.comma) || scanner.isAtEnd else {
                        throw .malformed(field, "expected ','")
                    }
                }
                return AuthenticationInfo(parameters: params)
            }
        }
    }

    /// RSeq (RFC 3262 §7.1).
    public var rseq: UInt32? {
        get throws(MessageError) { try headerFields.parseNumber(.rseq, limit: 0xFFFF_FFFF).map { UInt32($0) } }
    }

    /// RAck (RFC 3262 §7.2).
    public var rack: RAck? { get throws(MessageError) { try headerFields.parseSingle(.rack, as: RAck.self) } }

    /// Session-Expires (RFC 4028 §4).
    public var sessionExpires: SessionExpires? {
        get throws(MessageError) { try headerFields.parseSingle(.sessionExpires, as: SessionExpires.self) }
    }

    /// Min-SE in seconds (RFC 4028 §5).
    public var minSE: UInt32? {
        get throws(MessageError) { try headerFields.parseNumber(.minSE, limit: 0xFFFF_FFFF).map { UInt32($0) } }
    }

    /// Event (RFC 6665 §8.2.1).
    public var event: EventHeader? {
        get throws(MessageError) { try headerFields.parseSingle(.event, as: EventHeader.self) }
    }

    /// Allow-Events packages (RFC 6665 §8.2.2).
    public var allowEvents: [String] {
        get throws(MessageError) { try headerFields.parseList(.allowEvents, as: TokenValue.self).map(\.value) }
    }

    /// Subscription-State (RFC 6665 §8.2.3).
    public var subscriptionState: SubscriptionState? {
        get throws(MessageError) { try headerFields.parseSingle(.subscriptionState, as: SubscriptionState.self) }
    }

    /// Refer-To (RFC 3515 §2.1).
    public var referTo: NameAddress? {
        get throws(MessageError) { try headerFields.parseSingle(.referTo, as: NameAddress.self) }
    }

    /// Referred-By (RFC 3892).
    public var referredBy: NameAddress? {
        get throws(MessageError) { try headerFields.parseSingle(.referredBy, as: NameAddress.self) }
    }

    /// Replaces (RFC 3891).
    public var replaces: Replaces? {
        get throws(MessageError) { try headerFields.parseSingle(.replaces, as: Replaces.self) }
    }

    /// Reason values (RFC 3326).
    public var reason: [Reason] {
        get throws(MessageError) { try headerFields.parseList(.reason, as: Reason.self) }
    }

    /// Retry-After (RFC 3261 §20.33).
    public var retryAfter: RetryAfter? {
        get throws(MessageError) { try headerFields.parseSingle(.retryAfter, as: RetryAfter.self) }
    }

    /// P-Asserted-Identity values (RFC 3325).
    public var pAssertedIdentity: [NameAddress] {
        get throws(MessageError) { try headerFields.parseList(.pAssertedIdentity, as: NameAddress.self) }
    }

    /// Accept media ranges (RFC 3261 §20.1); an empty field is allowed and means "no body".
    public var accept: [MediaType] {
        get throws(MessageError) { try headerFields.parseList(.accept, as: MediaType.self, allowEmpty: true) }
    }

    /// User-Agent, as written (RFC 3261 §20.41).
    public var userAgent: String? { headerFields[.userAgent] }

    /// Server, as written (RFC 3261 §20.35).
    public var server: String? { headerFields[.server] }

    /// Subject, as written (RFC 3261 §20.36).
    public var subject: String? { headerFields[.subject] }

    /// Date (RFC 3261 §20.17).
    public var date: SIPDate? { get throws(MessageError) { try headerFields.parseSingle(.date, as: SIPDate.self) } }

    /// Timestamp (RFC 3261 §20.38).
    public var timestamp: Timestamp? {
        get throws(MessageError) { try headerFields.parseSingle(.timestamp, as: Timestamp.self) }
    }

    /// Warning values (RFC 3261 §20.43).
    public var warning: [Warning] {
        get throws(MessageError) { try headerFields.parseList(.warning, as: Warning.self) }
    }
}

extension SIPFields {
    func parseAuth(_ header: KnownHeader) throws(MessageError) -> [(String, Parameters, String?)] {
        var result: [(String, Parameters, String?)] = []
        for entry in entries where entry.id == header.rawValue {
            for item in try parseAuthField(storage, entry.valueRange, field: header) {
                result.append((item.scheme, item.parameters, item.token68))
            }
        }
        return result
    }
}
