/// `a=rtcp:<port> [<nettype> <addrtype> <connection-address>]` (RFC 3605): where the other end wants RTCP
/// when it is not on the RTP port + 1.
public struct RTCPAttribute: SDPAttributeValue {
    public static let attributeName = "rtcp"

    /// The RTCP port.
    public var port: UInt16
    /// The RTCP address, when it differs from the c= line's.
    public var connection: Connection?

    /// - Parameters:
    ///   - port: the RTCP port.
    ///   - connection: the address, or `nil` to use the c= line's.
    public init(port: UInt16, connection: Connection? = nil) {
        self.port = port
        self.connection = connection
    }

    public init(parsingAttributeValue value: String) throws(SDPError) {
        guard let fields = splitFields(value), fields.count == 1 || fields.count == 4 else {
            throw RTCPAttribute.malformed(value, "expected a port, optionally with nettype, addrtype and address")
        }
        guard let port = parseDecimal(fields[0], limit: UInt64(UInt16.max)) else {
            throw SDPError(.badPort, "rtcp: port is not a number in 0...65535", line: "a=rtcp:" + value)
        }
        self.port = UInt16(port)
        self.connection = nil
        if fields.count == 4 {
            do {
                connection = try Connection(parsing: fields[1...].joined(separator: " "))
            } catch {
                throw RTCPAttribute.malformed(value, "bad address")
            }
        }
    }

    public var attributeValue: String {
        guard let connection else { return String(port) }
        var buffer: [UInt8] = []
        connection.serialize(into: &buffer)
        // Reuse the c= writer: drop its "c=" and the line end.
        return "\(port) " + String(decoding: buffer.dropFirst(2).dropLast(2), as: UTF8.self)
    }
}

/// `a=ssrc:<ssrc-id> <attribute>[:<value>]` (RFC 5576 §4.1): a source-level attribute such as `cname`.
public struct SSRCAttribute: SDPAttributeValue {
    public static let attributeName = "ssrc"

    /// The synchronization source.
    public var ssrc: UInt32
    /// The source-level attribute name (`cname`, `msid`, ...).
    public var attribute: String
    /// Its value, or `nil` for a property.
    public var value: String?

    /// - Parameters:
    ///   - ssrc: the synchronization source.
    ///   - attribute: the source attribute name.
    ///   - value: its value, or `nil`.
    public init(ssrc: UInt32, attribute: String, value: String? = nil) {
        self.ssrc = ssrc
        self.attribute = attribute
        self.value = value
    }

    public init(parsingAttributeValue text: String) throws(SDPError) {
        var scanner = SDPScanner(text)
        guard let ssrc = scanner.readNumber(limit: UInt64(UInt32.max)) else {
            throw SSRCAttribute.malformed(text, "SSRC is not a number in 0...4294967295")
        }
        guard scanner.skipWhitespace(), let name = scanner.readToken() else {
            throw SSRCAttribute.malformed(text, "expected a source attribute after the SSRC")
        }
        guard scanner.isAtEnd || scanner.peek() == ASCII.colon else {
            throw SSRCAttribute.malformed(text, "source attribute name is not a token")
        }
        self.ssrc = UInt32(ssrc)
        self.attribute = name
        self.value = scanner.consume(ASCII.colon) ? scanner.readRest() : nil
    }

    public var attributeValue: String {
        guard let value else { return "\(ssrc) \(attribute)" }
        return "\(ssrc) \(attribute):\(value)"
    }
}
