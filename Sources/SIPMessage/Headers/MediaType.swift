/// A media type with parameters: the value of Content-Type and of each Accept entry (RFC 3261 §20.1,
/// §20.15). Type and subtype compare case-insensitively; `*` is a wildcard in Accept.
public struct MediaType: Sendable, Hashable, CustomStringConvertible, SIPHeaderEncodable {
    public var type: String
    public var subtype: String
    public var parameters: Parameters

    public init(type: String, subtype: String, parameters: Parameters = []) {
        self.type = type
        self.subtype = subtype
        self.parameters = parameters
    }

    public init(_ text: String) throws(MessageError) {
        self = try MediaType.parseWhole(text, field: .contentType)
    }

    public static let sdp = MediaType(type: "application", subtype: "sdp")
    public static let textPlain = MediaType(type: "text", subtype: "plain")
    public static let sipfrag = MediaType(type: "message", subtype: "sipfrag")
    public static let dtmfRelay = MediaType(type: "application", subtype: "dtmf-relay")
    public static let messageSummary = MediaType(type: "application", subtype: "simple-message-summary")
    public static let multipartMixed = MediaType(type: "multipart", subtype: "mixed")

    /// Whether `self` (possibly a wildcard range such as `application/*`) covers `other`; parameters are
    /// not compared.
    public func matches(_ other: MediaType) -> Bool {
        (type == "*" || type.equalsCaseInsensitive(other.type))
            && (subtype == "*" || subtype.equalsCaseInsensitive(other.subtype))
    }

    /// Same type and subtype, ignoring case and parameters.
    public func hasSameEssence(as other: MediaType) -> Bool {
        type.equalsCaseInsensitive(other.type) && subtype.equalsCaseInsensitive(other.subtype)
    }

    public var description: String { wireForm }

    public func serialize(into buffer: inout [UInt8]) {
        buffer.append(type)
        buffer.append(ASCII.slash)
        buffer.append(subtype)
        parameters.serialize(into: &buffer)
    }
}

extension MediaType: ScannerParsable {
    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> MediaType {
        guard let type = scanner.readToken(), scanner.consumeSeparator(ASCII.slash), let subtype = scanner.readToken()
        else { throw .malformed(field, "expected type/subtype") }
        let parameters = try scanner.parseHeaderParameters(field: field)
        return MediaType(type: scanner.string(type), subtype: scanner.string(subtype), parameters: parameters)
    }
}

/// A token with parameters: Content-Disposition, Event, Subscription-State, Reason and similar fields.
public struct TokenWithParameters: Sendable, Hashable, CustomStringConvertible, SIPHeaderEncodable {
    public var token: String
    public var parameters: Parameters

    public init(_ token: String, parameters: Parameters = []) {
        self.token = token
        self.parameters = parameters
    }

    public var description: String { wireForm }

    public func serialize(into buffer: inout [UInt8]) {
        buffer.append(token)
        parameters.serialize(into: &buffer)
    }
}

extension TokenWithParameters: ScannerParsable {
    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> TokenWithParameters {
        guard let token = scanner.readToken() else { throw .malformed(field, "expected a token") }
        let parameters = try scanner.parseHeaderParameters(field: field)
        return TokenWithParameters(scanner.string(token), parameters: parameters)
    }
}

/// Content-Disposition (RFC 3261 §20.11): `session`, `render`, `icon`, `alert`, ... with `handling`.
public typealias ContentDisposition = TokenWithParameters

extension TokenWithParameters {
    /// The `handling` parameter of a Content-Disposition (`optional` or `required`).
    public var handling: String? { parameters["handling"]?.lowercasedASCII }
}
