/// Builders for the TURN attributes (RFC 8656 §18).
extension STUNAttribute {
    /// CHANNEL-NUMBER (§18.1): the number, then two reserved zero bytes.
    public static func channelNumber(_ channel: TURNChannelNumber) -> STUNAttribute {
        var value: [UInt8] = []
        value.appendBigEndian(channel.rawValue)
        value.appendBigEndian(UInt16(0))
        return STUNAttribute(type: .channelNumber, value: value)
    }

    /// LIFETIME (§18.2) in whole seconds (a Refresh with 0 deletes the allocation).
    public static func lifetime(seconds: UInt32) -> STUNAttribute {
        var value: [UInt8] = []
        value.appendBigEndian(seconds)
        return STUNAttribute(type: .lifetime, value: value)
    }

    /// XOR-PEER-ADDRESS (§18.3) for a message with `transactionID`.
    public static func xorPeerAddress(_ address: STUNTransportAddress, transactionID: STUNTransactionID)
        -> STUNAttribute
    {
        STUNAttribute(type: .xorPeerAddress, value: STUNAddressCodec.encode(address, xorWith: transactionID))
    }

    /// DATA (§18.4).
    public static func data(_ payload: [UInt8]) -> STUNAttribute { STUNAttribute(type: .data, value: payload) }

    /// XOR-RELAYED-ADDRESS (§18.5) for a message with `transactionID`.
    public static func xorRelayedAddress(_ address: STUNTransportAddress, transactionID: STUNTransactionID)
        -> STUNAttribute
    {
        STUNAttribute(type: .xorRelayedAddress, value: STUNAddressCodec.encode(address, xorWith: transactionID))
    }

    /// REQUESTED-ADDRESS-FAMILY (§18.6).
    public static func requestedAddressFamily(_ family: TURNAddressFamily) -> STUNAttribute {
        STUNAttribute(type: .requestedAddressFamily, value: [family.rawValue, 0, 0, 0])
    }

    /// EVEN-PORT (§18.7); `reserveNext` sets the R bit.
    public static func evenPort(reserveNext: Bool) -> STUNAttribute {
        STUNAttribute(type: .evenPort, value: [reserveNext ? 0x80 : 0])
    }

    /// REQUESTED-TRANSPORT (§18.8): the protocol, then three reserved zero bytes.
    public static func requestedTransport(_ transport: TURNTransportProtocol) -> STUNAttribute {
        STUNAttribute(type: .requestedTransport, value: [transport.rawValue, 0, 0, 0])
    }

    /// DONT-FRAGMENT (§18.9), empty.
    public static let dontFragment = STUNAttribute(type: .dontFragment, value: [])

    /// RESERVATION-TOKEN (§18.10).
    public static func reservationToken(_ token: UInt64) -> STUNAttribute {
        var value: [UInt8] = []
        value.appendBigEndian(token)
        return STUNAttribute(type: .reservationToken, value: value)
    }

    /// ADDITIONAL-ADDRESS-FAMILY (§18.11); RFC 8656 allows only IPv6 here.
    public static func additionalAddressFamily(_ family: TURNAddressFamily) -> STUNAttribute {
        STUNAttribute(type: .additionalAddressFamily, value: [family.rawValue, 0, 0, 0])
    }

    /// ADDRESS-ERROR-CODE (§18.12): the family that failed, the code and a UTF-8 reason phrase.
    public static func addressErrorCode(_ family: TURNAddressFamily, _ code: STUNErrorCode, reason: String)
        -> STUNAttribute
    {
        let value = [family.rawValue, 0, code.errorClass & 0x07, code.number] + Array(reason.utf8)
        return STUNAttribute(type: .addressErrorCode, value: value)
    }

    /// ICMP (§18.13): the ICMP type and code and the error data (e.g. the MTU of a "fragmentation needed").
    public static func icmp(_ icmp: TURNICMP) -> STUNAttribute {
        var value: [UInt8] = [0, 0, icmp.type, icmp.code]
        value.appendBigEndian(icmp.errorData)
        return STUNAttribute(type: .icmp, value: value)
    }
}

/// What an ICMP attribute says (RFC 8656 §18.13).
public struct TURNICMP: Hashable, Sendable {
    /// The ICMP (or ICMPv6) type.
    public var type: UInt8
    /// The ICMP code.
    public var code: UInt8
    /// The error data (the MTU for "packet too big", otherwise zero).
    public var errorData: UInt32

    /// - Parameters:
    ///   - type: the ICMP type.
    ///   - code: the ICMP code.
    ///   - errorData: the error data.
    public init(type: UInt8, code: UInt8, errorData: UInt32 = 0) {
        self.type = type
        self.code = code
        self.errorData = errorData
    }
}

/// Typed views of the TURN attributes (RFC 8656 §18): `nil` when absent or malformed.
extension STUNMessage {
    /// CHANNEL-NUMBER; `nil` also when the number is outside 0x4000...0x4FFF.
    public var channelNumber: TURNChannelNumber? {
        guard let value = self[.channelNumber], value.count == 4 else { return nil }
        return TURNChannelNumber(rawValue: value.bigEndianUInt16(at: 0))
    }

    /// LIFETIME in seconds.
    public var lifetimeSeconds: UInt32? {
        guard let value = self[.lifetime], value.count == 4 else { return nil }
        return value.bigEndianUInt32(at: 0)
    }

    /// The first XOR-PEER-ADDRESS, un-masked with this message's transaction ID.
    public var xorPeerAddress: STUNTransportAddress? { xorPeerAddresses.first }

    /// Every XOR-PEER-ADDRESS, in order (a CreatePermission may carry several).
    public var xorPeerAddresses: [STUNTransportAddress] {
        attributes.filter { $0.type == .xorPeerAddress }.compactMap {
            STUNAddressCodec.decode($0.value, xorWith: transactionID)
        }
    }

    /// DATA.
    public var data: [UInt8]? { self[.data] }

    /// The first XOR-RELAYED-ADDRESS, un-masked with this message's transaction ID.
    public var xorRelayedAddress: STUNTransportAddress? { xorRelayedAddresses.first }

    /// Every XOR-RELAYED-ADDRESS, in order (a dual-stack allocation has two).
    public var xorRelayedAddresses: [STUNTransportAddress] {
        attributes.filter { $0.type == .xorRelayedAddress }.compactMap {
            STUNAddressCodec.decode($0.value, xorWith: transactionID)
        }
    }

    /// REQUESTED-ADDRESS-FAMILY.
    public var requestedAddressFamily: TURNAddressFamily? {
        guard let value = self[.requestedAddressFamily], value.count == 4 else { return nil }
        return TURNAddressFamily(rawValue: value[0])
    }

    /// EVEN-PORT: whether the R bit (reserve the next port) is set.
    public var evenPortReservesNext: Bool? {
        guard let value = self[.evenPort], value.count == 1 else { return nil }
        return value[0] & 0x80 != 0
    }

    /// REQUESTED-TRANSPORT.
    public var requestedTransport: TURNTransportProtocol? {
        guard let value = self[.requestedTransport], value.count == 4 else { return nil }
        return TURNTransportProtocol(rawValue: value[0])
    }

    /// Whether DONT-FRAGMENT is present.
    public var hasDontFragment: Bool { self[.dontFragment] != nil }

    /// RESERVATION-TOKEN.
    public var reservationToken: UInt64? {
        guard let value = self[.reservationToken], value.count == 8 else { return nil }
        return value.bigEndianUInt64(at: 0)
    }

    /// ADDITIONAL-ADDRESS-FAMILY.
    public var additionalAddressFamily: TURNAddressFamily? {
        guard let value = self[.additionalAddressFamily], value.count == 4 else { return nil }
        return TURNAddressFamily(rawValue: value[0])
    }

    /// ADDRESS-ERROR-CODE: the family, the code and the reason phrase.
    public var addressErrorCode: (family: TURNAddressFamily, code: STUNErrorCode, reason: String)? {
        guard let value = self[.addressErrorCode], let code = ErrorCodeValue.code(of: value),
            let family = TURNAddressFamily(rawValue: value[0])
        else { return nil }
        return (family, code, String(decoding: value[4...], as: UTF8.self))
    }

    /// ICMP.
    public var icmp: TURNICMP? {
        guard let value = self[.icmp], value.count == 8 else { return nil }
        return TURNICMP(type: value[2], code: value[3], errorData: value.bigEndianUInt32(at: 4))
    }
}
