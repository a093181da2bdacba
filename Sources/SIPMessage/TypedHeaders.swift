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

// The typed views are members of `SIPFields`, so that reading them from fields in hand costs no copy of the
// fields; requests and responses (and any other container) forward to them.
extension SIPHeaderFieldsContainer {
    /// Every Via value, top first (RFC 3261 §20.42).
    public var via: [Via] { get throws(MessageError) { try headerFields.via } }

    /// The top Via value only, without parsing the rest.
    public var topVia: Via? { get throws(MessageError) { try headerFields.topVia } }

    /// From (RFC 3261 §20.20).
    public var from: NameAddress? { get throws(MessageError) { try headerFields.from } }

    /// To (RFC 3261 §20.39).
    public var to: NameAddress? { get throws(MessageError) { try headerFields.to } }

    /// Call-ID (RFC 3261 §20.8).
    public var callID: String? { get throws(MessageError) { try headerFields.callID } }

    /// The bytes of `callID`, read in place from the message: no string is made.
    public var callIDBytes: SIPBytes? { get throws(MessageError) { try headerFields.callIDBytes } }

    /// CSeq (RFC 3261 §20.16).
    public var cseq: CSeq? { get throws(MessageError) { try headerFields.cseq } }

    /// Max-Forwards, 0...255 (RFC 3261 §20.22).
    public var maxForwards: Int? { get throws(MessageError) { try headerFields.maxForwards } }

    /// Every Contact value (RFC 3261 §20.10).
    public var contacts: [Contact] { get throws(MessageError) { try headerFields.contacts } }

    /// The first Contact value only.
    public var firstContact: Contact? { get throws(MessageError) { try headerFields.firstContact } }

    /// Route (RFC 3261 §20.34).
    public var route: [NameAddress] { get throws(MessageError) { try headerFields.route } }

    /// Record-Route (RFC 3261 §20.30).
    public var recordRoute: [NameAddress] { get throws(MessageError) { try headerFields.recordRoute } }

    /// Path (RFC 3327).
    public var path: [NameAddress] { get throws(MessageError) { try headerFields.path } }

    /// Service-Route (RFC 3608).
    public var serviceRoute: [NameAddress] { get throws(MessageError) { try headerFields.serviceRoute } }

    /// Content-Length as written (the serializer always writes the body's real length).
    public var contentLength: Int? { get throws(MessageError) { try headerFields.contentLength } }

    /// Content-Type (RFC 3261 §20.15).
    public var contentType: MediaType? { get throws(MessageError) { try headerFields.contentType } }

    /// Content-Encoding tokens (RFC 3261 §20.12).
    public var contentEncoding: [String] { get throws(MessageError) { try headerFields.contentEncoding } }

    /// Content-Disposition (RFC 3261 §20.11).
    public var contentDisposition: ContentDisposition? {
        get throws(MessageError) { try headerFields.contentDisposition }
    }

    /// Expires in seconds (RFC 3261 §20.19).
    public var expires: UInt32? { get throws(MessageError) { try headerFields.expires } }

    /// Min-Expires in seconds (RFC 3261 §20.23).
    public var minExpires: UInt32? { get throws(MessageError) { try headerFields.minExpires } }

    /// Allow (RFC 3261 §20.5).
    public var allow: [SIPMethod] { get throws(MessageError) { try headerFields.allow } }

    /// Supported option tags (RFC 3261 §20.37).
    public var supported: [String] { get throws(MessageError) { try headerFields.supported } }

    /// Require option tags (RFC 3261 §20.32).
    public var require: [String] { get throws(MessageError) { try headerFields.require } }

    /// Proxy-Require option tags (RFC 3261 §20.29).
    public var proxyRequire: [String] { get throws(MessageError) { try headerFields.proxyRequire } }

    /// Unsupported option tags (RFC 3261 §20.40).
    public var unsupported: [String] { get throws(MessageError) { try headerFields.unsupported } }

    /// WWW-Authenticate challenges (RFC 3261 §20.44).
    public var wwwAuthenticate: [Challenge] { get throws(MessageError) { try headerFields.wwwAuthenticate } }

    /// Proxy-Authenticate challenges (RFC 3261 §20.27).
    public var proxyAuthenticate: [Challenge] { get throws(MessageError) { try headerFields.proxyAuthenticate } }

    /// Authorization credentials (RFC 3261 §20.7).
    public var authorization: [Credentials] { get throws(MessageError) { try headerFields.authorization } }

    /// Proxy-Authorization credentials (RFC 3261 §20.28).
    public var proxyAuthorization: [Credentials] { get throws(MessageError) { try headerFields.proxyAuthorization } }

    /// Authentication-Info (RFC 3261 §20.6).
    public var authenticationInfo: AuthenticationInfo? {
        get throws(MessageError) { try headerFields.authenticationInfo }
    }

    /// RSeq (RFC 3262 §7.1).
    public var rseq: UInt32? { get throws(MessageError) { try headerFields.rseq } }

    /// RAck (RFC 3262 §7.2).
    public var rack: RAck? { get throws(MessageError) { try headerFields.rack } }

    /// Session-Expires (RFC 4028 §4).
    public var sessionExpires: SessionExpires? { get throws(MessageError) { try headerFields.sessionExpires } }

    /// Min-SE in seconds (RFC 4028 §5).
    public var minSE: UInt32? { get throws(MessageError) { try headerFields.minSE } }

    /// Event (RFC 6665 §8.2.1).
    public var event: EventHeader? { get throws(MessageError) { try headerFields.event } }

    /// Allow-Events packages (RFC 6665 §8.2.2).
    public var allowEvents: [String] { get throws(MessageError) { try headerFields.allowEvents } }

    /// Subscription-State (RFC 6665 §8.2.3).
    public var subscriptionState: SubscriptionState? { get throws(MessageError) { try headerFields.subscriptionState } }

    /// Refer-To (RFC 3515 §2.1).
    public var referTo: NameAddress? { get throws(MessageError) { try headerFields.referTo } }

    /// Referred-By (RFC 3892).
    public var referredBy: NameAddress? { get throws(MessageError) { try headerFields.referredBy } }

    /// Replaces (RFC 3891).
    public var replaces: Replaces? { get throws(MessageError) { try headerFields.replaces } }

    /// Reason values (RFC 3326).
    public var reason: [Reason] { get throws(MessageError) { try headerFields.reason } }

    /// Retry-After (RFC 3261 §20.33).
    public var retryAfter: RetryAfter? { get throws(MessageError) { try headerFields.retryAfter } }

    /// P-Asserted-Identity values (RFC 3325).
    public var pAssertedIdentity: [NameAddress] { get throws(MessageError) { try headerFields.pAssertedIdentity } }

    /// Accept media ranges (RFC 3261 §20.1); an empty field is allowed and means "no body".
    public var accept: [MediaType] { get throws(MessageError) { try headerFields.accept } }

    /// User-Agent, as written (RFC 3261 §20.41).
    public var userAgent: String? { headerFields.userAgent }

    /// Server, as written (RFC 3261 §20.35).
    public var server: String? { headerFields.server }

    /// Subject, as written (RFC 3261 §20.36).
    public var subject: String? { headerFields.subject }

    /// Date (RFC 3261 §20.17).
    public var date: SIPDate? { get throws(MessageError) { try headerFields.date } }

    /// Timestamp (RFC 3261 §20.38).
    public var timestamp: Timestamp? { get throws(MessageError) { try headerFields.timestamp } }

    /// Warning values (RFC 3261 §20.43).
    public var warning: [Warning] { get throws(MessageError) { try headerFields.warning } }
}

extension SIPFields {
    /// Every Via value, top first (RFC 3261 §20.42).
    public var via: [Via] { get throws(MessageError) { try self.parseList(.via, as: Via.self) } }

    /// The top Via value only, without parsing the rest.
    public var topVia: Via? {
        get throws(MessageError) {
            guard let entry = firstEntry(.via) else { return nil }
            if let via = try readWhole(entry, Via.parseFast) { return via }
            return try self.parseFirst(.via, as: Via.self)
        }
    }

    /// From (RFC 3261 §20.20).
    public var from: NameAddress? {
        get throws(MessageError) { try self.singleAddress(.from) }
    }

    /// To (RFC 3261 §20.39).
    public var to: NameAddress? {
        get throws(MessageError) { try self.singleAddress(.to) }
    }

    /// Call-ID (RFC 3261 §20.8).
    public var callID: String? {
        get throws(MessageError) {
            guard let value = try self.callIDValue else { return nil }
            return storage.string(value.range)
        }
    }

    /// The bytes of `callID`, read in place from the message: no string is made.
    public var callIDBytes: SIPBytes? {
        get throws(MessageError) {
            guard let value = try self.callIDValue else { return nil }
            return storage.view(value.range)
        }
    }

    /// CSeq (RFC 3261 §20.16).
    public var cseq: CSeq? {
        get throws(MessageError) {
            guard let entry = firstEntry(.cseq) else { return nil }
            if let cseq = try readWhole(entry, CSeq.parseFast) { return cseq }
            return try self.parseSingle(.cseq, as: CSeq.self)
        }
    }

    /// Max-Forwards, 0...255 (RFC 3261 §20.22).
    public var maxForwards: Int? {
        get throws(MessageError) { try self.parseNumber(.maxForwards, limit: 255).map { Int($0) } }
    }

    /// Every Contact value (RFC 3261 §20.10).
    public var contacts: [Contact] {
        get throws(MessageError) { try self.parseList(.contact, as: Contact.self) }
    }

    /// The first Contact value only.
    public var firstContact: Contact? {
        get throws(MessageError) {
            guard let entry = firstEntry(.contact) else { return nil }
            if let address = try readWhole(entry, NameAddress.parseFast) { return .address(address) }
            return try self.parseFirst(.contact, as: Contact.self)
        }
    }

    /// Route (RFC 3261 §20.34).
    public var route: [NameAddress] {
        get throws(MessageError) { try self.parseList(.route, as: NameAddress.self) }
    }

    /// Record-Route (RFC 3261 §20.30).
    public var recordRoute: [NameAddress] {
        get throws(MessageError) { try self.parseList(.recordRoute, as: NameAddress.self) }
    }

    /// Path (RFC 3327).
    public var path: [NameAddress] {
        get throws(MessageError) { try self.parseList(.path, as: NameAddress.self) }
    }

    /// Service-Route (RFC 3608).
    public var serviceRoute: [NameAddress] {
        get throws(MessageError) { try self.parseList(.serviceRoute, as: NameAddress.self) }
    }

    /// Content-Length as written (the serializer always writes the body's real length).
    public var contentLength: Int? {
        get throws(MessageError) {
            try self.parseNumber(.contentLength, limit: UInt64(Int32.max)).map { Int($0) }
        }
    }

    /// Content-Type (RFC 3261 §20.15).
    public var contentType: MediaType? {
        get throws(MessageError) { try self.parseSingle(.contentType, as: MediaType.self) }
    }

    /// Content-Encoding tokens (RFC 3261 §20.12).
    public var contentEncoding: [String] {
        get throws(MessageError) { try self.parseList(.contentEncoding, as: TokenValue.self).map(\.value) }
    }

    /// Content-Disposition (RFC 3261 §20.11).
    public var contentDisposition: ContentDisposition? {
        get throws(MessageError) { try self.parseSingle(.contentDisposition, as: TokenWithParameters.self) }
    }

    /// Expires in seconds (RFC 3261 §20.19).
    public var expires: UInt32? {
        get throws(MessageError) { try self.parseNumber(.expires, limit: 0xFFFF_FFFF).map { UInt32($0) } }
    }

    /// Min-Expires in seconds (RFC 3261 §20.23).
    public var minExpires: UInt32? {
        get throws(MessageError) {
            try self.parseNumber(.minExpires, limit: 0xFFFF_FFFF).map { UInt32($0) }
        }
    }

    /// Allow (RFC 3261 §20.5).
    public var allow: [SIPMethod] {
        get throws(MessageError) {
            try self.parseList(.allow, as: TokenValue.self, allowEmpty: true).map {
                SIPMethod(unchecked: $0.value)
            }
        }
    }

    /// Supported option tags (RFC 3261 §20.37).
    public var supported: [String] {
        get throws(MessageError) {
            try self.parseList(.supported, as: TokenValue.self, allowEmpty: true).map(\.value)
        }
    }

    /// Require option tags (RFC 3261 §20.32).
    public var require: [String] {
        get throws(MessageError) { try self.parseList(.require, as: TokenValue.self).map(\.value) }
    }

    /// Proxy-Require option tags (RFC 3261 §20.29).
    public var proxyRequire: [String] {
        get throws(MessageError) { try self.parseList(.proxyRequire, as: TokenValue.self).map(\.value) }
    }

    /// Unsupported option tags (RFC 3261 §20.40).
    public var unsupported: [String] {
        get throws(MessageError) { try self.parseList(.unsupported, as: TokenValue.self).map(\.value) }
    }

    /// WWW-Authenticate challenges (RFC 3261 §20.44).
    public var wwwAuthenticate: [Challenge] {
        get throws(MessageError) {
            try self.parseAuth(.wwwAuthenticate).map {
                Challenge(scheme: $0.0, parameters: $0.1, token68: $0.2)
            }
        }
    }

    /// Proxy-Authenticate challenges (RFC 3261 §20.27).
    public var proxyAuthenticate: [Challenge] {
        get throws(MessageError) {
            try self.parseAuth(.proxyAuthenticate).map {
                Challenge(scheme: $0.0, parameters: $0.1, token68: $0.2)
            }
        }
    }

    /// Authorization credentials (RFC 3261 §20.7).
    public var authorization: [Credentials] {
        get throws(MessageError) {
            try self.parseAuth(.authorization).map {
                Credentials(scheme: $0.0, parameters: $0.1, token68: $0.2)
            }
        }
    }

    /// Proxy-Authorization credentials (RFC 3261 §20.28).
    public var proxyAuthorization: [Credentials] {
        get throws(MessageError) {
            try self.parseAuth(.proxyAuthorization).map {
                Credentials(scheme: $0.0, parameters: $0.1, token68: $0.2)
            }
        }
    }

    /// Authentication-Info (RFC 3261 §20.6).
    public var authenticationInfo: AuthenticationInfo? {
        get throws(MessageError) {
            guard let range = self.firstValueRange(.authenticationInfo) else { return nil }
            return try ByteScanner.scan(storage, range) {
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
        get throws(MessageError) { try self.parseNumber(.rseq, limit: 0xFFFF_FFFF).map { UInt32($0) } }
    }

    /// RAck (RFC 3262 §7.2).
    public var rack: RAck? { get throws(MessageError) { try self.parseSingle(.rack, as: RAck.self) } }

    /// Session-Expires (RFC 4028 §4).
    public var sessionExpires: SessionExpires? {
        get throws(MessageError) { try self.parseSingle(.sessionExpires, as: SessionExpires.self) }
    }

    /// Min-SE in seconds (RFC 4028 §5).
    public var minSE: UInt32? {
        get throws(MessageError) { try self.parseNumber(.minSE, limit: 0xFFFF_FFFF).map { UInt32($0) } }
    }

    /// Event (RFC 6665 §8.2.1).
    public var event: EventHeader? {
        get throws(MessageError) { try self.parseSingle(.event, as: EventHeader.self) }
    }

    /// Allow-Events packages (RFC 6665 §8.2.2).
    public var allowEvents: [String] {
        get throws(MessageError) { try self.parseList(.allowEvents, as: TokenValue.self).map(\.value) }
    }

    /// Subscription-State (RFC 6665 §8.2.3).
    public var subscriptionState: SubscriptionState? {
        get throws(MessageError) { try self.parseSingle(.subscriptionState, as: SubscriptionState.self) }
    }

    /// Refer-To (RFC 3515 §2.1).
    public var referTo: NameAddress? {
        get throws(MessageError) { try self.parseSingle(.referTo, as: NameAddress.self) }
    }

    /// Referred-By (RFC 3892).
    public var referredBy: NameAddress? {
        get throws(MessageError) { try self.parseSingle(.referredBy, as: NameAddress.self) }
    }

    /// Replaces (RFC 3891).
    public var replaces: Replaces? {
        get throws(MessageError) { try self.parseSingle(.replaces, as: Replaces.self) }
    }

    /// Reason values (RFC 3326).
    public var reason: [Reason] {
        get throws(MessageError) { try self.parseList(.reason, as: Reason.self) }
    }

    /// Retry-After (RFC 3261 §20.33).
    public var retryAfter: RetryAfter? {
        get throws(MessageError) { try self.parseSingle(.retryAfter, as: RetryAfter.self) }
    }

    /// P-Asserted-Identity values (RFC 3325).
    public var pAssertedIdentity: [NameAddress] {
        get throws(MessageError) { try self.parseList(.pAssertedIdentity, as: NameAddress.self) }
    }

    /// Accept media ranges (RFC 3261 §20.1); an empty field is allowed and means "no body".
    public var accept: [MediaType] {
        get throws(MessageError) { try self.parseList(.accept, as: MediaType.self, allowEmpty: true) }
    }

    /// User-Agent, as written (RFC 3261 §20.41).
    public var userAgent: String? { self[.userAgent] }

    /// Server, as written (RFC 3261 §20.35).
    public var server: String? { self[.server] }

    /// Subject, as written (RFC 3261 §20.36).
    public var subject: String? { self[.subject] }

    /// Date (RFC 3261 §20.17).
    public var date: SIPDate? { get throws(MessageError) { try self.parseSingle(.date, as: SIPDate.self) } }

    /// Timestamp (RFC 3261 §20.38).
    public var timestamp: Timestamp? {
        get throws(MessageError) { try self.parseSingle(.timestamp, as: Timestamp.self) }
    }

    /// Warning values (RFC 3261 §20.43).
    public var warning: [Warning] {
        get throws(MessageError) { try self.parseList(.warning, as: Warning.self) }
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
