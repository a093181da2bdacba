/// A STUN method (RFC 8489 §5): the 12-bit number that says what a request, response or indication is about.
///
/// The registry grows (TURN, RFC 8656, adds six), so this is a struct with well-known values as static members.
public struct STUNMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method number, 0x000...0xFFF.
    public let rawValue: UInt16

    /// A method from its number; only the low 12 bits are kept, as the message type has room for no more.
    public init(rawValue: UInt16) { self.rawValue = rawValue & 0x0FFF }

    /// Binding (RFC 8489 §3): asks the server for the reflexive transport address it sees.
    public static let binding = STUNMethod(rawValue: 0x001)
    /// Allocate (RFC 8656 §7).
    public static let allocate = STUNMethod(rawValue: 0x003)
    /// Refresh (RFC 8656 §8).
    public static let refresh = STUNMethod(rawValue: 0x004)
    /// Send, an indication (RFC 8656 §11).
    public static let send = STUNMethod(rawValue: 0x006)
    /// Data, an indication (RFC 8656 §11).
    public static let data = STUNMethod(rawValue: 0x007)
    /// CreatePermission (RFC 8656 §10).
    public static let createPermission = STUNMethod(rawValue: 0x008)
    /// ChannelBind (RFC 8656 §12).
    public static let channelBind = STUNMethod(rawValue: 0x009)

    public var description: String {
        switch self {
        case .binding: "Binding"
        case .allocate: "Allocate"
        case .refresh: "Refresh"
        case .send: "Send"
        case .data: "Data"
        case .createPermission: "CreatePermission"
        case .channelBind: "ChannelBind"
        default: "method 0x\(String(rawValue, radix: 16))"
        }
    }
}

/// The class of a STUN message (RFC 8489 §5): two bits, so the set is closed.
public enum STUNMessageClass: UInt8, Hashable, Sendable, CaseIterable {
    /// A request, answered by a success or an error response.
    case request = 0b00
    /// An indication: no response.
    case indication = 0b01
    /// A success response.
    case successResponse = 0b10
    /// An error response; it carries ERROR-CODE.
    case errorResponse = 0b11
}

/// The 14-bit message type of RFC 8489 §5: the method's bits M0...M11 with the class bits C0 and C1 between them.
enum STUNMessageType {
    static func encode(method: STUNMethod, messageClass: STUNMessageClass) -> UInt16 {
        let m = method.rawValue
        let c = UInt16(messageClass.rawValue)
        return (m & 0x000F) | ((m & 0x0070) << 1) | ((m & 0x0F80) << 2) | ((c & 0b01) << 4) | ((c & 0b10) << 7)
    }

    static func decode(_ type: UInt16) -> (STUNMethod, STUNMessageClass) {
        let method = (type & 0x000F) | ((type >> 1) & 0x0070) | ((type >> 2) & 0x0F80)
        let c = ((type >> 4) & 0b01) | ((type >> 7) & 0b10)
        return (STUNMethod(rawValue: method), STUNMessageClass(rawValue: UInt8(c)) ?? .request)
    }
}
