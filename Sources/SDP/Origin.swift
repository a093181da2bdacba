/// The o= line (RFC 8866 §5.2): who made the description, and which version of it this is.
///
/// RFC 3264 §8 keys re-offers on it: a changed description keeps `username`, `sessionID` and the address
/// and increments `sessionVersion` by one; an unchanged one keeps the version.
public struct Origin: Sendable, Hashable {
    /// The user's login on the originating host, or `-`.
    public var username: String
    /// A numeric string that with the other fields identifies the session; kept as written.
    public var sessionID: String
    /// The version of this description; grows when the description changes.
    public var sessionVersion: UInt64
    /// `IN` for the Internet.
    public var networkType: String
    /// `IP4` or `IP6`.
    public var addressType: String
    /// The originating host's address or name.
    public var address: String

    /// - Parameters:
    ///   - username: the login, or `-` (the default).
    ///   - sessionID: the session identifier.
    ///   - sessionVersion: the version of the description.
    ///   - address: the originating address; `addressType` follows from it (`IP6` when it holds a colon).
    public init(username: String = "-", sessionID: String, sessionVersion: UInt64, address: String) {
        self.username = username
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
        self.networkType = "IN"
        self.addressType = Connection.addressType(of: address)
        self.address = address
    }

    /// Parses the value of an o= line: `<username> <sess-id> <sess-version> <nettype> <addrtype> <address>`.
    public init(parsing value: String) throws(SDPError) {
        try self.init(fields: splitFields(value), value: value)
    }

    /// The o= line from its fields (`splitFields`); `value`, the line's text, names it in errors.
    init(fields: [String]?, value: @autoclosure () -> String) throws(SDPError) {
        guard let fields, fields.count == 6 else {
            throw SDPError(.malformedOrigin, "expected 6 fields", line: "o=" + value())
        }
        guard let version = parseDecimal(fields[2]) else {
            throw SDPError(.malformedOrigin, "session version is not a number", line: "o=" + value())
        }
        username = fields[0]
        sessionID = fields[1]
        sessionVersion = version
        networkType = fields[3]
        addressType = fields[4]
        address = fields[5]
    }

    func serialize(into buffer: inout [UInt8]) {
        buffer.append("o=")
        buffer.appendField(username)
        buffer.append(ASCII.space)
        buffer.appendField(sessionID)
        buffer.append(ASCII.space)
        buffer.appendDecimal(sessionVersion)
        buffer.append(ASCII.space)
        buffer.appendField(networkType)
        buffer.append(ASCII.space)
        buffer.appendField(addressType)
        buffer.append(ASCII.space)
        buffer.appendField(address)
        buffer.appendLineEnd()
    }
}

/// Splits a line value into its space-separated fields; runs of SP/HTAB count as one separator. Returns `nil`
/// when the value holds a control byte, which no field may contain.
func splitFields(_ value: String) -> [String]? {
    let bytes = Array(value.utf8)
    return splitFields(bytes, 0..<bytes.count)
}

/// `splitFields` over `bytes[range]`.
func splitFields(_ bytes: [UInt8], _ range: Range<Int>) -> [String]? {
    var fields: [String] = []
    fields.reserveCapacity(8)  // o= has 6, m= usually fewer than 8: one allocation for this short-lived list
    var scanner = SDPScanner(bytes, range)
    scanner.skipWhitespace()
    while !scanner.isAtEnd {
        guard let field = scanner.readField() else { return nil }
        fields.append(field)
        scanner.skipWhitespace()
    }
    return fields
}

extension Array where Element == UInt8 {
    /// Appends a field of a space-separated line; white space and controls inside it are left out so that the
    /// field count cannot change, and an empty field is written as `-`.
    mutating func appendField(_ field: String) {
        if appendWhole(field, where: \.isFieldChar) { return }
        let start = count
        for b in field.utf8 where b.isFieldChar { append(b) }
        if count == start { append(ASCII.minus) }
    }
}
