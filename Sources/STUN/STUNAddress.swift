/// An IP address as STUN carries it (RFC 8489 §14.1): family 0x01 (IPv4) or 0x02 (IPv6). The set is closed.
public enum STUNIPAddress: Hashable, Sendable, CustomStringConvertible {
    /// An IPv4 address, big-endian (192.0.2.1 is 0xC000_0201).
    case v4(UInt32)
    /// An IPv6 address as two big-endian halves.
    case v6(high: UInt64, low: UInt64)

    /// The address from 4 or 16 network-order bytes; `nil` for any other count.
    public init?(bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        switch bytes.count {
        case 4: self = .v4(bytes.bigEndianUInt32(at: 0))
        case 16: self = .v6(high: bytes.bigEndianUInt64(at: 0), low: bytes.bigEndianUInt64(at: 8))
        default: return nil
        }
    }

    /// The address in network byte order (4 or 16 bytes).
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        switch self {
        case .v4(let value): out.appendBigEndian(value)
        case .v6(let high, let low):
            out.appendBigEndian(high)
            out.appendBigEndian(low)
        }
        return out
    }

    /// The family number of RFC 8489 §14.1.
    var family: UInt8 {
        switch self {
        case .v4: 0x01
        case .v6: 0x02
        }
    }

    /// Dotted quad for IPv4; for IPv6 eight groups of lower-case hex with the longest run of two or more zero
    /// groups written `::` (RFC 5952).
    public var description: String {
        switch self {
        case .v4(let value):
            return (0..<4).map { String((value >> UInt32(24 - 8 * $0)) & 0xFF) }.joined(separator: ".")
        case .v6:
            let b = bytes
            let groups = (0..<8).map { UInt16(b[2 * $0]) << 8 | UInt16(b[2 * $0 + 1]) }
            var best = (start: -1, count: 0)
            var run = (start: -1, count: 0)
            for (index, group) in groups.enumerated() {
                if group == 0 {
                    run = run.start < 0 ? (index, 1) : (run.start, run.count + 1)
                    if run.count > best.count { best = run }
                } else {
                    run = (-1, 0)
                }
            }
            let hex = groups.map { String($0, radix: 16) }
            guard best.count >= 2 else { return hex.joined(separator: ":") }
            let head = hex[..<best.start].joined(separator: ":")
            let tail = hex[(best.start + best.count)...].joined(separator: ":")
            return head + "::" + tail
        }
    }
}

/// An IP address and port: what MAPPED-ADDRESS and XOR-MAPPED-ADDRESS carry (RFC 8489 §14.1, §14.2).
public struct STUNTransportAddress: Hashable, Sendable, CustomStringConvertible {
    /// The IP address.
    public var address: STUNIPAddress
    /// The port.
    public var port: UInt16

    /// - Parameters:
    ///   - address: the IP address.
    ///   - port: the port.
    public init(address: STUNIPAddress, port: UInt16) {
        self.address = address
        self.port = port
    }

    /// `192.0.2.1:32853` or `[2001:db8::1]:32853`.
    public var description: String {
        switch address {
        case .v4: "\(address):\(port)"
        case .v6: "[\(address)]:\(port)"
        }
    }
}

/// The value layout shared by MAPPED-ADDRESS and XOR-MAPPED-ADDRESS: a reserved byte, the family, the port and
/// the address; the XOR form masks port and address with the magic cookie and transaction ID (§14.2).
enum STUNAddressCodec {
    static func encode(_ value: STUNTransportAddress, xorWith transactionID: STUNTransactionID?) -> [UInt8] {
        var out: [UInt8] = [0, value.address.family]
        var port = value.port
        var address = value.address.bytes
        if let transactionID {
            port ^= UInt16(truncatingIfNeeded: STUNMessage.magicCookie >> 16)
            let mask = maskBytes(transactionID)
            for index in address.indices { address[index] ^= mask[index] }
        }
        out.appendBigEndian(port)
        out.append(contentsOf: address)
        return out
    }

    /// The address in `value`, or `nil` if the family is unknown or the length does not fit it.
    static func decode(_ value: [UInt8], xorWith transactionID: STUNTransactionID?) -> STUNTransportAddress? {
        guard value.count >= 4 else { return nil }
        let length: Int
        switch value[1] {
        case 0x01: length = 4
        case 0x02: length = 16
        default: return nil
        }
        guard value.count == 4 + length else { return nil }
        var port = value.bigEndianUInt16(at: 2)
        var address = Array(value[4...])
        if let transactionID {
            port ^= UInt16(truncatingIfNeeded: STUNMessage.magicCookie >> 16)
            let mask = maskBytes(transactionID)
            for index in address.indices { address[index] ^= mask[index] }
        }
        guard let ip = STUNIPAddress(bytes: address) else { return nil }
        return STUNTransportAddress(address: ip, port: port)
    }

    /// The magic cookie followed by the transaction ID: 16 bytes, of which IPv4 uses the first four.
    private static func maskBytes(_ transactionID: STUNTransactionID) -> [UInt8] {
        var mask: [UInt8] = []
        mask.reserveCapacity(16)
        mask.appendBigEndian(STUNMessage.magicCookie)
        mask.append(contentsOf: transactionID.bytes)
        return mask
    }
}
