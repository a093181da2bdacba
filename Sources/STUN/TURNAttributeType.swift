/// The attributes TURN adds to STUN (RFC 8656 §18, §19).
extension STUNAttributeType {
    /// CHANNEL-NUMBER (RFC 8656 §18.1): a channel number and two reserved bytes.
    public static let channelNumber = STUNAttributeType(rawValue: 0x000C)
    /// LIFETIME (RFC 8656 §18.2): seconds, 32 bits.
    public static let lifetime = STUNAttributeType(rawValue: 0x000D)
    /// XOR-PEER-ADDRESS (RFC 8656 §18.3): a peer's transport address, masked like XOR-MAPPED-ADDRESS.
    public static let xorPeerAddress = STUNAttributeType(rawValue: 0x0012)
    /// DATA (RFC 8656 §18.4): the application data of a Send or Data indication.
    public static let data = STUNAttributeType(rawValue: 0x0013)
    /// XOR-RELAYED-ADDRESS (RFC 8656 §18.5): the relayed transport address the server allocated.
    public static let xorRelayedAddress = STUNAttributeType(rawValue: 0x0016)
    /// REQUESTED-ADDRESS-FAMILY (RFC 8656 §18.6): the family of the relayed address asked for.
    public static let requestedAddressFamily = STUNAttributeType(rawValue: 0x0017)
    /// EVEN-PORT (RFC 8656 §18.7): ask for an even relayed port, and maybe to reserve the next one.
    public static let evenPort = STUNAttributeType(rawValue: 0x0018)
    /// REQUESTED-TRANSPORT (RFC 8656 §18.8): the protocol between server and peers (17 for UDP).
    public static let requestedTransport = STUNAttributeType(rawValue: 0x0019)
    /// DONT-FRAGMENT (RFC 8656 §18.9): set DF on the packets to the peer; empty.
    public static let dontFragment = STUNAttributeType(rawValue: 0x001A)
    /// RESERVATION-TOKEN (RFC 8656 §18.10): eight bytes naming a reserved relayed address.
    public static let reservationToken = STUNAttributeType(rawValue: 0x0022)
    /// ADDITIONAL-ADDRESS-FAMILY (RFC 8656 §18.11): ask for an IPv6 relayed address besides the IPv4 one.
    public static let additionalAddressFamily = STUNAttributeType(rawValue: 0x8000)
    /// ADDRESS-ERROR-CODE (RFC 8656 §18.12): why one family of a dual allocation failed.
    public static let addressErrorCode = STUNAttributeType(rawValue: 0x8001)
    /// ICMP (RFC 8656 §18.13): an ICMP packet the relay received from a peer, in a Data indication.
    public static let icmp = STUNAttributeType(rawValue: 0x8004)

    /// The registry names of the TURN types, merged into the module's registry.
    static let turnNames: [STUNAttributeType: String] = [
        .channelNumber: "CHANNEL-NUMBER", .lifetime: "LIFETIME", .xorPeerAddress: "XOR-PEER-ADDRESS", .data: "DATA",
        .xorRelayedAddress: "XOR-RELAYED-ADDRESS", .requestedAddressFamily: "REQUESTED-ADDRESS-FAMILY",
        .evenPort: "EVEN-PORT", .requestedTransport: "REQUESTED-TRANSPORT", .dontFragment: "DONT-FRAGMENT",
        .reservationToken: "RESERVATION-TOKEN", .additionalAddressFamily: "ADDITIONAL-ADDRESS-FAMILY",
        .addressErrorCode: "ADDRESS-ERROR-CODE", .icmp: "ICMP",
    ]
}

/// The value rules of the TURN attributes (RFC 8656 §18).
enum TURNAttributeValidation {
    /// Whether the value fits its type; `nil` for a type that is not TURN's.
    static func isValid(_ attribute: STUNAttribute) -> Bool? {
        let value = attribute.value
        switch attribute.type {
        case .channelNumber, .lifetime, .requestedTransport: return value.count == 4
        case .requestedAddressFamily, .additionalAddressFamily:
            return value.count == 4 && (value[0] == 0x01 || value[0] == 0x02)
        case .xorPeerAddress, .xorRelayedAddress: return STUNAddressCodec.decode(value, xorWith: nil) != nil
        case .data: return true
        case .evenPort: return value.count == 1
        case .dontFragment: return value.isEmpty
        case .reservationToken, .icmp: return value.count == 8
        case .addressErrorCode:
            return value.count >= 4 && value.count <= 4 + 763 && ErrorCodeValue.code(of: value) != nil
        default: return nil
        }
    }
}

/// An address family as REQUESTED-ADDRESS-FAMILY and ADDITIONAL-ADDRESS-FAMILY carry it (RFC 8656 §18.6): the
/// two families of STUN addresses, so the set is closed.
public enum TURNAddressFamily: UInt8, Hashable, Sendable {
    /// IPv4, 0x01.
    case ipv4 = 0x01
    /// IPv6, 0x02.
    case ipv6 = 0x02
}

/// The transport protocol between the server and the peers (RFC 8656 §18.8): an IANA protocol number.
public struct TURNTransportProtocol: RawRepresentable, Hashable, Sendable {
    /// The IANA protocol number.
    public let rawValue: UInt8

    /// - Parameter rawValue: the IANA protocol number.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// UDP, 17: the only one RFC 8656 defines.
    public static let udp = TURNTransportProtocol(rawValue: 17)
    /// TCP, 6 (RFC 6062).
    public static let tcp = TURNTransportProtocol(rawValue: 6)
}
