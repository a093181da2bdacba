/// One header field: a name and its value, as on the wire (RFC 3261 §7.3).
public struct SIPField: Sendable, Hashable, CustomStringConvertible {
    /// The field name. Keeps the spelling it arrived with (`rawName`) and compares by canonical name:
    /// case-insensitive, with compact forms folded to their long form (`v` equals `Via`).
    public struct Name: Sendable, Hashable, CustomStringConvertible {
        /// The spelling as received or as given.
        public let rawName: String
        /// The lower-case long form; compact forms are expanded.
        public let canonicalName: String
        let id: UInt8

        /// A field name; `nil` unless `name` is a non-empty `token` (RFC 3261 §25.1).
        public init?(_ name: String) {
            guard !name.isEmpty, name.utf8.allSatisfy({ $0.isTokenChar }) else { return nil }
            self.rawName = name
            self.id = KnownHeader.classify(name)
            if let known = KnownHeader(rawValue: id) {
                self.canonicalName = known.canonicalName
            } else {
                self.canonicalName = name.lowercasedASCII
            }
        }

        init(known: KnownHeader) {
            self.rawName = known.displayName
            self.canonicalName = known.canonicalName
            self.id = known.rawValue
        }

        init(storage: [UInt8], range: Range<Int>, id: UInt8) {
            self.rawName = String(bytes: storage, range: range)
            self.id = id
            if let known = KnownHeader(rawValue: id) {
                self.canonicalName = known.canonicalName
            } else {
                self.canonicalName = rawName.lowercasedASCII
            }
        }

        var known: KnownHeader? { KnownHeader(rawValue: id) }

        public var description: String { rawName }

        public static func == (a: Name, b: Name) -> Bool {
            if a.id != 0 || b.id != 0 { return a.id == b.id }
            return a.canonicalName == b.canonicalName
        }

        public func hash(into hasher: inout Hasher) { hasher.combine(canonicalName) }
    }

    public var name: Name
    /// The value; CR, LF and NUL are replaced by spaces when the field is written, so a value can never
    /// inject another header field.
    public var value: String

    public init(name: Name, value: String) {
        self.name = name
        self.value = value
    }

    public var description: String { "\(name.rawName): \(value)" }
}

extension SIPField.Name {
    public static let accept = Self(known: .accept)
    public static let acceptContact = Self(known: .acceptContact)
    public static let acceptEncoding = Self(known: .acceptEncoding)
    public static let acceptLanguage = Self(known: .acceptLanguage)
    public static let alertInfo = Self(known: .alertInfo)
    public static let allow = Self(known: .allow)
    public static let allowEvents = Self(known: .allowEvents)
    public static let authenticationInfo = Self(known: .authenticationInfo)
    public static let authorization = Self(known: .authorization)
    public static let callID = Self(known: .callID)
    public static let callInfo = Self(known: .callInfo)
    public static let contact = Self(known: .contact)
    public static let contentDisposition = Self(known: .contentDisposition)
    public static let contentEncoding = Self(known: .contentEncoding)
    public static let contentLanguage = Self(known: .contentLanguage)
    public static let contentLength = Self(known: .contentLength)
    public static let contentType = Self(known: .contentType)
    public static let cseq = Self(known: .cseq)
    public static let date = Self(known: .date)
    public static let errorInfo = Self(known: .errorInfo)
    public static let event = Self(known: .event)
    public static let expires = Self(known: .expires)
    public static let from = Self(known: .from)
    public static let identity = Self(known: .identity)
    public static let identityInfo = Self(known: .identityInfo)
    public static let inReplyTo = Self(known: .inReplyTo)
    public static let maxForwards = Self(known: .maxForwards)
    public static let mimeVersion = Self(known: .mimeVersion)
    public static let minExpires = Self(known: .minExpires)
    public static let minSE = Self(known: .minSE)
    public static let organization = Self(known: .organization)
    public static let pAssertedIdentity = Self(known: .pAssertedIdentity)
    public static let pPreferredIdentity = Self(known: .pPreferredIdentity)
    public static let path = Self(known: .path)
    public static let priority = Self(known: .priority)
    public static let privacy = Self(known: .privacy)
    public static let proxyAuthenticate = Self(known: .proxyAuthenticate)
    public static let proxyAuthorization = Self(known: .proxyAuthorization)
    public static let proxyRequire = Self(known: .proxyRequire)
    public static let rack = Self(known: .rack)
    public static let reason = Self(known: .reason)
    public static let recordRoute = Self(known: .recordRoute)
    public static let referSub = Self(known: .referSub)
    public static let referTo = Self(known: .referTo)
    public static let referredBy = Self(known: .referredBy)
    public static let rejectContact = Self(known: .rejectContact)
    public static let replaces = Self(known: .replaces)
    public static let replyTo = Self(known: .replyTo)
    public static let requestDisposition = Self(known: .requestDisposition)
    public static let require = Self(known: .require)
    public static let retryAfter = Self(known: .retryAfter)
    public static let route = Self(known: .route)
    public static let rseq = Self(known: .rseq)
    public static let server = Self(known: .server)
    public static let serviceRoute = Self(known: .serviceRoute)
    public static let sessionExpires = Self(known: .sessionExpires)
    public static let subject = Self(known: .subject)
    public static let subscriptionState = Self(known: .subscriptionState)
    public static let supported = Self(known: .supported)
    public static let timestamp = Self(known: .timestamp)
    public static let to = Self(known: .to)
    public static let unsupported = Self(known: .unsupported)
    public static let userAgent = Self(known: .userAgent)
    public static let via = Self(known: .via)
    public static let warning = Self(known: .warning)
    public static let wwwAuthenticate = Self(known: .wwwAuthenticate)
}
