/// What a registration tells a push proxy so that it can wake this device (RFC 8599 §4): the push service,
/// the device token (`pn-prid`) and the service's extra parameter (`pn-param`, for APNs the app's topic,
/// e.g. `TEAMID.com.example.app.voip`). They go into the REGISTER's Contact as URI parameters. The token
/// is a credential: it never appears in a description, a log or a trace (`pn-prid=redacted` there).
public struct PushRegistration: Sendable, Hashable, CustomStringConvertible {
    /// A push notification service (`pn-provider`): a struct with static members, so others can be named.
    public struct Provider: Sendable, Hashable, CustomStringConvertible {
        /// The `pn-provider` value.
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// Apple Push Notification service (RFC 8599 §12).
        public static let apns = Provider("apns")
        /// Firebase Cloud Messaging (RFC 8599 §13).
        public static let fcm = Provider("fcm")
        /// WebPush (RFC 8599 §14).
        public static let webpush = Provider("webpush")

        public var description: String { rawValue }
    }

    /// The push service.
    public var provider: Provider
    /// The device token the service addresses this device by (`pn-prid`).
    public var deviceToken: String
    /// The service's extra parameter (`pn-param`), when it needs one (APNs: the topic).
    public var parameter: String?

    public init(provider: Provider, deviceToken: String, parameter: String? = nil) {
        self.provider = provider
        self.deviceToken = deviceToken
        self.parameter = parameter
    }

    /// Never shows the device token.
    public var description: String {
        "push \(provider)\(parameter.map { " param=\($0)" } ?? "") token=<redacted>"
    }

    /// The Contact URI parameters, in RFC 8599's order, each value escaped where a URI parameter needs it.
    var contactParameters: [(name: String, value: String)] {
        var parameters = [("pn-provider", Self.escaped(provider.rawValue))]
        if let parameter { parameters.append(("pn-param", Self.escaped(parameter))) }
        parameters.append(("pn-prid", Self.escaped(deviceToken)))
        return parameters
    }

    /// `text` with every byte that may not stand in a URI parameter value percent-encoded (RFC 3261 §25.1
    /// `paramchar`).
    static func escaped(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            let isPlain =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || "-_.!~*'()[]/:&+$".unicodeScalars.contains(scalar)
            if isPlain {
                out.unicodeScalars.append(scalar)
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}
