/// The c= line (RFC 8866 §5.7): where media is to be sent.
///
/// For multicast IP4 the address carries a TTL and optionally a count (`224.2.1.1/127/3`); for IP6 only a
/// count. The legacy RFC 2543 hold address `0.0.0.0` is reported by `isUnspecified`.
public struct Connection: Sendable, Hashable {
    /// `IN` for the Internet.
    public var networkType: String
    /// `IP4` or `IP6` (other values are kept as written).
    public var addressType: String
    /// The address or host name, without the multicast suffixes.
    public var address: String
    /// The multicast TTL (IP4 only).
    public var ttl: UInt8?
    /// The number of multicast addresses, when given.
    public var addressCount: UInt32?

    /// - Parameters:
    ///   - address: a unicast address or host name; `addressType` follows from it (`IP6` when it holds a colon).
    public init(address: String) {
        self.networkType = "IN"
        self.addressType = Connection.addressType(of: address)
        self.address = address
        self.ttl = nil
        self.addressCount = nil
    }

    /// Parses the value of a c= line: `<nettype> <addrtype> <connection-address>`.
    public init(parsing value: String) throws(SDPError) {
        try self.init(fields: splitFields(value), value: value)
    }

    /// The c= line from its fields (`splitFields`); `value`, the line's text, names it in errors.
    init(fields: [String]?, value: @autoclosure () -> String) throws(SDPError) {
        guard let fields, fields.count == 3 else {
            throw SDPError(.malformedConnection, "expected 3 fields", line: "c=" + value())
        }
        networkType = fields[0]
        addressType = fields[1]
        ttl = nil
        addressCount = nil
        // Unicast addresses (the usual case) have no `/` suffix: no split.
        let hasSuffixes = fields[2].utf8.contains(ASCII.slash)
        let parts =
            hasSuffixes ? fields[2].split(separator: "/", omittingEmptySubsequences: false).map(String.init) : []
        address = hasSuffixes ? parts.first ?? "" : fields[2]
        let isIP4 = addressType.equalsIgnoringASCIICase("IP4")
        let isIP6 = addressType.equalsIgnoringASCIICase("IP6")
        guard isIP4 || isIP6 else {
            // Another address type: its syntax is not ours to check; keep the address whole.
            address = fields[2]
            return
        }
        guard !address.isEmpty, (hasSuffixes ? parts.count : 1) <= (isIP4 ? 3 : 2) else {
            throw SDPError(.malformedConnection, "bad address", line: "c=" + value())
        }
        var suffixes = parts.dropFirst()
        if isIP4, let ttlText = suffixes.popFirst() {
            guard let ttl = parseDecimal(ttlText, limit: 255) else {
                throw SDPError(.malformedConnection, "TTL is not a number in 0...255", line: "c=" + value())
            }
            self.ttl = UInt8(ttl)
        }
        if let countText = suffixes.popFirst() {
            guard let count = parseDecimal(countText, limit: UInt64(UInt32.max)), count > 0 else {
                throw SDPError(.malformedConnection, "address count is not a positive number", line: "c=" + value())
            }
            addressCount = UInt32(count)
        }
    }

    /// True for the unspecified address `0.0.0.0` (or `::`): RFC 2543 hold, RFC 3264 §8.4.
    public var isUnspecified: Bool {
        address == "0.0.0.0" || address == "::" || address == "0:0:0:0:0:0:0:0"
    }

    /// `IP6` for an address with a colon, `IP4` otherwise.
    static func addressType(of address: String) -> String {
        address.utf8.contains(ASCII.colon) ? "IP6" : "IP4"
    }

    func serialize(into buffer: inout [UInt8]) {
        buffer.append("c=")
        buffer.appendField(networkType)
        buffer.append(ASCII.space)
        buffer.appendField(addressType)
        buffer.append(ASCII.space)
        buffer.appendField(address)
        if let ttl {
            buffer.append(ASCII.slash)
            buffer.appendDecimal(ttl)
        }
        if let addressCount {
            if ttl == nil, addressType.equalsIgnoringASCIICase("IP4") {
                // An IP4 count needs a TTL before it; 0 is the closest to "not given".
                buffer.append("/0")
            }
            buffer.append(ASCII.slash)
            buffer.appendDecimal(addressCount)
        }
        buffer.appendLineEnd()
    }
}
