public import SIPMessage

/// Which pair of header fields a challenge came in (RFC 3261 §22.2, §22.3): a closed set.
public enum ChallengeKind: Sendable, Hashable, CustomStringConvertible {
    /// A UAS or registrar: 401, WWW-Authenticate, answered with Authorization.
    case www
    /// A proxy: 407, Proxy-Authenticate, answered with Proxy-Authorization.
    case proxy

    /// WWW-Authenticate or Proxy-Authenticate.
    public var challengeField: SIPField.Name { self == .www ? .wwwAuthenticate : .proxyAuthenticate }
    /// Authorization or Proxy-Authorization.
    public var credentialsField: SIPField.Name { self == .www ? .authorization : .proxyAuthorization }
    /// 401 or 407.
    public var statusCode: Int { self == .www ? 401 : 407 }

    public var description: String { self == .www ? "WWW" : "proxy" }
}
