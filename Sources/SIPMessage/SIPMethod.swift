/// A request method (RFC 3261 §7.1): a case-sensitive token. Extension methods are kept as written.
public struct SIPMethod: Sendable, Hashable, RawRepresentable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    /// A method from its token; `nil` unless `rawValue` is a non-empty token.
    public init?(rawValue: String) {
        guard !rawValue.isEmpty, rawValue.utf8.allSatisfy({ $0.isTokenChar }) else { return nil }
        self.rawValue = rawValue
    }

    init(unchecked rawValue: String) { self.rawValue = rawValue }

    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    public var description: String { rawValue }

    public static let invite = SIPMethod(unchecked: "INVITE")
    public static let ack = SIPMethod(unchecked: "ACK")
    public static let bye = SIPMethod(unchecked: "BYE")
    public static let cancel = SIPMethod(unchecked: "CANCEL")
    public static let register = SIPMethod(unchecked: "REGISTER")
    public static let options = SIPMethod(unchecked: "OPTIONS")
    public static let info = SIPMethod(unchecked: "INFO")
    public static let update = SIPMethod(unchecked: "UPDATE")
    public static let prack = SIPMethod(unchecked: "PRACK")
    public static let subscribe = SIPMethod(unchecked: "SUBSCRIBE")
    public static let notify = SIPMethod(unchecked: "NOTIFY")
    public static let refer = SIPMethod(unchecked: "REFER")
    public static let message = SIPMethod(unchecked: "MESSAGE")
    public static let publish = SIPMethod(unchecked: "PUBLISH")

    /// The methods defined by RFC 3261 and the extensions Switchboard implements.
    public static let standard: [SIPMethod] = [
        .invite, .ack, .bye, .cancel, .register, .options, .info, .update, .prack, .subscribe, .notify, .refer,
        .message, .publish,
    ]

    /// Whether this is one of `standard`.
    public var isStandard: Bool { SIPMethod.standard.contains(self) }
}
