import Foundation
import SIPMessage

/// What a VoIP push tells the provider, read from the notification's payload (`CallProvider
/// .reportPushPayload(_:)`). The push proxy writes it; Switchboard reads these keys, all optional:
///
/// | key           | value                                                                        |
/// |---------------|------------------------------------------------------------------------------|
/// | `type`        | `call` (the default) or `cancel`: the caller gave up, or another device answered |
/// | `call-id`     | the SIP Call-ID of the INVITE the proxy holds                                |
/// | `from`        | the caller's address (`sip:alice@example.com`, or a number)                  |
/// | `caller-name` | the caller's display name                                                    |
/// | `account`     | the account (its `Account.id`) the call is for; the first account otherwise  |
/// | `reason`      | with `cancel`: `answered-elsewhere`, `declined-elsewhere`, else the caller cancelled |
///
/// Unknown keys are ignored, so a proxy may add its own. PushKit hands payloads as `[AnyHashable: Any]`,
/// which is not `Sendable`: pass its string entries (`payload.dictionaryPayload` mapped to strings).
public struct PushPayload: Sendable, Hashable, CustomStringConvertible {
    /// What a push announces: a struct with static members, so more kinds can come.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The payload's `type` value.
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A call waits at the proxy for this device.
        public static let call = Kind(rawValue: "call")
        /// The call a previous push announced is over before its INVITE reached this device.
        public static let cancel = Kind(rawValue: "cancel")

        public var description: String { rawValue }
    }

    /// The keys the payload is read from.
    public enum Key {
        public static let type = "type"
        public static let callID = "call-id"
        public static let from = "from"
        public static let callerName = "caller-name"
        public static let account = "account"
        public static let reason = "reason"
    }

    /// The longest value read from a payload; longer ones are cut (push payloads are small: APNs allows 5 KB).
    public static let maximumValueLength = 1024

    /// A call, or the cancellation of one.
    public var kind: Kind
    /// The INVITE's Call-ID, when the proxy sent it: the INVITE that arrives is matched on it.
    public var callID: String?
    /// The caller, when the proxy sent it.
    public var from: Handle?
    /// The caller's display name.
    public var callerName: String?
    /// The account the call is for.
    public var account: String?
    /// With `cancel`: why the call is over (`unanswered`, `answeredElsewhere` or `declinedElsewhere`).
    public var cancelReason: CallEndedReason

    /// Reads a payload's string entries; never fails: a push must always report a call (PushKit's rule), so
    /// missing or unusable values are left out.
    public init(_ payload: [String: String]) {
        func value(_ key: String) -> String? {
            guard let text = payload[key]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            return String(text.prefix(Self.maximumValueLength))
        }
        kind = value(Key.type).map { Kind(rawValue: $0.lowercased()) } ?? .call
        callID = value(Key.callID)
        from = value(Key.from).map(Self.handle)
        callerName = value(Key.callerName)
        account = value(Key.account)
        cancelReason =
            switch value(Key.reason)?.lowercased() {
            case "answered-elsewhere": .answeredElsewhere
            case "declined-elsewhere": .declinedElsewhere
            default: .unanswered
            }
    }

    /// The caller as a handle: a SIP or tel URI as such, anything else as a generic value.
    static func handle(_ text: String) -> Handle {
        guard text.contains(":"), let uri = try? URI(text) else { return Handle(type: .generic, value: text) }
        return Handle(uri: uri)
    }

    public var description: String {
        "push \(kind) call-id=\(callID ?? "-") from=\(from?.value ?? "-")"
    }
}
