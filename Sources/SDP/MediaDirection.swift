/// The direction attributes `a=sendrecv`, `a=sendonly`, `a=recvonly` and `a=inactive` (RFC 8866 §6.7,
/// RFC 3264 §5.1, §6.1). A closed set: the four property attributes the RFC defines.
public enum MediaDirection: String, Sendable, Hashable, CaseIterable {
    case sendrecv
    case sendonly
    case recvonly
    case inactive

    /// - Parameters:
    ///   - sends: whether media is sent.
    ///   - receives: whether media is received.
    public init(sends: Bool, receives: Bool) {
        switch (sends, receives) {
        case (true, true): self = .sendrecv
        case (true, false): self = .sendonly
        case (false, true): self = .recvonly
        case (false, false): self = .inactive
        }
    }

    /// Parses an attribute name, ignoring ASCII case; `nil` for any other attribute.
    public init?(attributeName: String) {
        guard
            let direction = MediaDirection.allCases.first(where: { attributeName.equalsIgnoringASCIICase($0.rawValue) })
        else { return nil }
        self = direction
    }

    /// True for `sendrecv` and `sendonly`.
    public var sends: Bool { self == .sendrecv || self == .sendonly }

    /// True for `sendrecv` and `recvonly`.
    public var receives: Bool { self == .sendrecv || self == .recvonly }

    /// The same stream seen from the other end: `sendonly` <-> `recvonly`; `sendrecv` and `inactive` stay.
    public var reversed: MediaDirection { MediaDirection(sends: receives, receives: sends) }

    /// What both directions allow.
    public func intersection(_ other: MediaDirection) -> MediaDirection {
        MediaDirection(sends: sends && other.sends, receives: receives && other.receives)
    }

    /// The attribute that carries it.
    public var attribute: Attribute { Attribute(rawValue) }
}

/// `a=setup` (RFC 4145 §4): which end opens the connection; read now for DTLS-SRTP later (RFC 5763).
public enum SetupRole: String, SDPAttributeValue, CaseIterable {
    case active
    case passive
    case actpass
    case holdconn

    public static let attributeName = "setup"

    public init(parsingAttributeValue value: String) throws(SDPError) {
        let trimmed = String(Substring(value).trimmingSDPWhitespace())
        guard let role = SetupRole.allCases.first(where: { trimmed.equalsIgnoringASCIICase($0.rawValue) }) else {
            throw SetupRole.malformed(value, "expected active, passive, actpass or holdconn")
        }
        self = role
    }

    public var attributeValue: String { rawValue }
}
