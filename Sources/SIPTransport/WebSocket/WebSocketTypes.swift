/// Which end of a WebSocket connection this is: clients mask what they send, servers do not
/// (RFC 6455 §5.1, §5.3).
public enum WebSocketRole: Sendable, Hashable {
    case client
    case server
}

/// A frame's opcode (RFC 6455 §5.2, §11.8). Opcodes 3-7 and 11-15 are reserved; compare with the static members.
public struct WebSocketOpcode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The 4-bit opcode.
    public let rawValue: UInt8

    /// An opcode from its 4 bits (the upper bits are ignored).
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x0F }

    /// A continuation of a fragmented message.
    public static let continuation = WebSocketOpcode(rawValue: 0x0)
    /// A text (UTF-8) message.
    public static let text = WebSocketOpcode(rawValue: 0x1)
    /// A binary message.
    public static let binary = WebSocketOpcode(rawValue: 0x2)
    /// The close handshake (§5.5.1).
    public static let close = WebSocketOpcode(rawValue: 0x8)
    /// A ping (§5.5.2).
    public static let ping = WebSocketOpcode(rawValue: 0x9)
    /// A pong (§5.5.3).
    public static let pong = WebSocketOpcode(rawValue: 0xA)

    /// Control opcodes have the high bit set (§5.5).
    public var isControl: Bool { rawValue & 0x8 != 0 }
    /// The opcodes RFC 6455 defines; the others need an extension.
    public var isKnown: Bool { rawValue <= 0x2 || (0x8...0xA).contains(rawValue) }

    public var description: String {
        switch rawValue {
        case 0x0: "continuation"
        case 0x1: "text"
        case 0x2: "binary"
        case 0x8: "close"
        case 0x9: "ping"
        case 0xA: "pong"
        default: "opcode-\(rawValue)"
        }
    }
}

/// A close status code (RFC 6455 §7.4 and the IANA registry); compare with the static members.
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The 16-bit code as sent.
    public let rawValue: UInt16

    /// A code from its number.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
    /// 1001: the endpoint is going away (server shutdown, page left).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: the peer broke the protocol.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: a data type this endpoint cannot accept.
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1005: a close frame without a code (never sent on the wire).
    public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
    /// 1006: the connection ended without a close frame (never sent on the wire).
    public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
    /// 1007: data inconsistent with its type, such as invalid UTF-8 in a text message.
    public static let invalidPayloadData = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message that violates this endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message too big to process.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1010: the client needed an extension the server did not negotiate.
    public static let mandatoryExtension = WebSocketCloseCode(rawValue: 1010)
    /// 1011: the server met an unexpected condition.
    public static let internalError = WebSocketCloseCode(rawValue: 1011)

    /// Whether the code may appear in a close frame (§7.4.1, §7.4.2): the defined and IANA-registered codes
    /// 1000-1003 and 1007-1014, and the 3000-4999 ranges for libraries and applications.
    public var isValidOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    public var description: String { String(rawValue) }
}

/// A whole data message: the payload of one frame or of a fragmented sequence, reassembled.
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message (valid UTF-8, RFC 6455 §5.6). RFC 7118 §5 carries SIP in these or in binary ones.
    case text(String)
    /// A binary message.
    case binary([UInt8])

    /// The opcode of the message's first frame.
    public var opcode: WebSocketOpcode {
        switch self {
        case .text: .text
        case .binary: .binary
        }
    }

    /// The payload bytes.
    public var payload: [UInt8] {
        switch self {
        case .text(let text): Array(text.utf8)
        case .binary(let bytes): bytes
        }
    }
}

/// The body of a close frame (RFC 6455 §5.5.1): a status code and an optional UTF-8 reason.
public struct WebSocketClose: Sendable, Hashable, CustomStringConvertible {
    /// The status code.
    public var code: WebSocketCloseCode
    /// Why, for humans; at most 123 bytes of UTF-8 so the frame stays a control frame.
    public var reason: String

    /// A close body.
    /// - Parameters:
    ///   - code: the status code to send.
    ///   - reason: a short UTF-8 reason; it is cut at 123 bytes (on a character boundary) when longer.
    public init(code: WebSocketCloseCode, reason: String = "") {
        self.code = code
        self.reason = WebSocketClose.truncated(reason)
    }

    /// The payload of the close frame: the code in network order, then the reason.
    public var payload: [UInt8] {
        [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)] + Array(reason.utf8)
    }

    public var description: String { reason.isEmpty ? "\(code)" : "\(code) \(reason)" }

    /// Cuts `reason` to 123 UTF-8 bytes without splitting a character.
    static func truncated(_ reason: String) -> String {
        guard reason.utf8.count > 123 else { return reason }
        var result = ""
        for character in reason {
            guard result.utf8.count + character.utf8.count <= 123 else { break }
            result.append(character)
        }
        return result
    }
}
