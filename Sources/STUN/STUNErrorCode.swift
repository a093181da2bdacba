/// A STUN error code (RFC 8489 §14.8), 300...699, carried by ERROR-CODE in an error response.
///
/// The registry grows (TURN and ICE add codes), so this is a struct with well-known values as static members.
public struct STUNErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code, class × 100 + number.
    public let rawValue: UInt16

    /// - Parameter rawValue: the code, class × 100 + number.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 300 Try Alternate: use the server in ALTERNATE-SERVER.
    public static let tryAlternate = STUNErrorCode(rawValue: 300)
    /// 400 Bad Request: the request was malformed.
    public static let badRequest = STUNErrorCode(rawValue: 400)
    /// 401 Unauthenticated: credentials missing or wrong.
    public static let unauthenticated = STUNErrorCode(rawValue: 401)
    /// 403 Forbidden (RFC 8656).
    public static let forbidden = STUNErrorCode(rawValue: 403)
    /// 420 Unknown Attribute: the request had comprehension-required attributes the server does not know,
    /// listed in UNKNOWN-ATTRIBUTES.
    public static let unknownAttribute = STUNErrorCode(rawValue: 420)
    /// 437 Allocation Mismatch (RFC 8656).
    public static let allocationMismatch = STUNErrorCode(rawValue: 437)
    /// 438 Stale Nonce: retry with the NONCE of this response.
    public static let staleNonce = STUNErrorCode(rawValue: 438)
    /// 440 Address Family not Supported (RFC 8656): the server does not support the family asked for.
    public static let addressFamilyNotSupported = STUNErrorCode(rawValue: 440)
    /// 441 Wrong Credentials (RFC 8656).
    public static let wrongCredentials = STUNErrorCode(rawValue: 441)
    /// 442 Unsupported Transport Protocol (RFC 8656).
    public static let unsupportedTransportProtocol = STUNErrorCode(rawValue: 442)
    /// 443 Peer Address Family Mismatch (RFC 8656): the peer's family is not the relayed address's.
    public static let peerAddressFamilyMismatch = STUNErrorCode(rawValue: 443)
    /// 486 Allocation Quota Reached (RFC 8656).
    public static let allocationQuotaReached = STUNErrorCode(rawValue: 486)
    /// 487 Role Conflict (RFC 8445 §7.3.1.1).
    public static let roleConflict = STUNErrorCode(rawValue: 487)
    /// 500 Server Error.
    public static let serverError = STUNErrorCode(rawValue: 500)
    /// 508 Insufficient Capacity (RFC 8656).
    public static let insufficientCapacity = STUNErrorCode(rawValue: 508)

    /// The hundreds digit, 3...6 on the wire.
    public var errorClass: UInt8 { UInt8(truncatingIfNeeded: rawValue / 100) }
    /// The code modulo 100.
    public var number: UInt8 { UInt8(truncatingIfNeeded: rawValue % 100) }

    public var description: String { String(rawValue) }
}
