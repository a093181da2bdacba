/// A challenge from WWW-Authenticate or Proxy-Authenticate (RFC 3261 §20.27, §20.44; RFC 7616 §3.3).
public struct Challenge: Sendable, Hashable, CustomStringConvertible, SIPHeaderEncodable {
    /// The scheme, normally `Digest`.
    public var scheme: String
    /// The auth-params, values as written (quoted strings keep their quotes).
    public var parameters: Parameters
    /// A token68 credential for schemes that use one instead of parameters.
    public var token68: String?

    public init(scheme: String, parameters: Parameters = [], token68: String? = nil) {
        self.scheme = scheme
        self.parameters = parameters
        self.token68 = token68
    }

    public var isDigest: Bool { scheme.equalsCaseInsensitive("Digest") }
    public var realm: String? { parameters.unquotedValue("realm") }
    public var nonce: String? { parameters.unquotedValue("nonce") }
    public var opaque: String? { parameters.unquotedValue("opaque") }
    public var domain: String? { parameters.unquotedValue("domain") }
    /// The algorithm; RFC 7616 defaults to MD5 when absent.
    public var algorithm: String? { parameters.unquotedValue("algorithm") }
    /// `stale=true` (RFC 7616 §3.3).
    public var isStale: Bool { parameters.unquotedValue("stale")?.equalsCaseInsensitive("true") ?? false }
    /// The offered qop values (`auth`, `auth-int`).
    public var qopOptions: [String] {
        guard let qop = parameters.unquotedValue("qop") else { return [] }
        return qop.split(separator: ",").map { String($0).trimmingLWS }.filter { !$0.isEmpty }
    }

    public var description: String { wireForm }

    public func serialize(into buffer: inout [UInt8]) {
        serializeAuth(scheme: scheme, parameters: parameters, token68: token68, into: &buffer)
    }
}

/// Credentials from Authorization or Proxy-Authorization (RFC 3261 §20.7, §20.28; RFC 7616 §3.4).
public struct Credentials: Sendable, Hashable, CustomStringConvertible, SIPHeaderEncodable {
    public var scheme: String
    public var parameters: Parameters
    public var token68: String?

    public init(scheme: String, parameters: Parameters = [], token68: String? = nil) {
        self.scheme = scheme
        self.parameters = parameters
        self.token68 = token68
    }

    public var isDigest: Bool { scheme.equalsCaseInsensitive("Digest") }
    public var username: String? { parameters.unquotedValue("username") }
    public var realm: String? { parameters.unquotedValue("realm") }
    public var nonce: String? { parameters.unquotedValue("nonce") }
    public var uri: String? { parameters.unquotedValue("uri") }
    public var response: String? { parameters.unquotedValue("response") }
    public var algorithm: String? { parameters.unquotedValue("algorithm") }
    public var cnonce: String? { parameters.unquotedValue("cnonce") }
    public var opaque: String? { parameters.unquotedValue("opaque") }
    public var qop: String? { parameters.unquotedValue("qop") }
    /// The `nc` nonce count, hexadecimal on the wire.
    public var nonceCount: UInt32? { parameters["nc"].flatMap { UInt32($0, radix: 16) } }

    public var description: String { wireForm }

    public func serialize(into buffer: inout [UInt8]) {
        serializeAuth(scheme: scheme, parameters: parameters, token68: token68, into: &buffer)
    }
}

/// The Authentication-Info header field (RFC 3261 §20.6, RFC 7616 §3.5).
public struct AuthenticationInfo: Sendable, Hashable, CustomStringConvertible, SIPHeaderEncodable {
    public var parameters: Parameters

    public init(parameters: Parameters = []) { self.parameters = parameters }

    public var nextNonce: String? { parameters.unquotedValue("nextnonce") }
    public var qop: String? { parameters.unquotedValue("qop") }
    public var responseAuth: String? { parameters.unquotedValue("rspauth") }
    public var cnonce: String? { parameters.unquotedValue("cnonce") }
    public var nonceCount: UInt32? { parameters["nc"].flatMap { UInt32($0, radix: 16) } }

    public var description: String { wireForm }

    public func serialize(into buffer: inout [UInt8]) {
        for (i, p) in parameters.elements.enumerated() {
            if i > 0 { buffer.append(", ") }
            buffer.append(p.description)
        }
    }
}

extension Parameters {
    /// Sets `name` to `value` written as a quoted-string.
    public mutating func setQuoted(_ name: String, _ value: String) {
        var bytes: [UInt8] = []
        appendQuoted(value, to: &bytes)
        set(name, to: String(decoding: bytes, as: UTF8.self))
    }
}

func serializeAuth(scheme: String, parameters: Parameters, token68: String?, into buffer: inout [UInt8]) {
    buffer.append(scheme)
    if let token68 {
        buffer.append(ASCII.space)
        buffer.append(token68)
        return
    }
    for (i, p) in parameters.elements.enumerated() {
        buffer.append(i == 0 ? " " : ", ")
        buffer.append(p.description)
    }
}

extension String {
    var trimmingLWS: String {
        let utf8 = Array(self.utf8)
        var start = 0
        var end = utf8.count
        while start < end, utf8[start].isSIPWhitespace { start += 1 }
        while end > start, utf8[end - 1].isSIPWhitespace { end -= 1 }
        return String(decoding: utf8[start..<end], as: UTF8.self)
    }
}

/// Parses the challenges or credentials of one field: `scheme auth-param *(COMMA auth-param)`, several
/// schemes in one field allowed (RFC 7235 §4.1), or `scheme token68`.
func parseAuthField(_ bytes: [UInt8], _ range: Range<Int>, field: KnownHeader?) throws(MessageError)
    -> [(scheme: String, parameters: Parameters, token68: String?)]
{
    try ByteScanner.scan(bytes, range) { (scanner) throws(MessageError) in try parseAuthField(&scanner, field: field) }
}

func parseAuthField(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError)
    -> [(scheme: String, parameters: Parameters, token68: String?)]
{
    var result: [(scheme: String, parameters: Parameters, token68: String?)] = []
    scanner.skipLWS()
    while !scanner.isAtEnd {
        while scanner.consumeSeparator(ASCII.comma) {}
        if scanner.isAtEnd { break }
        guard let scheme = scanner.readToken() else { throw .malformed(field, "expected an auth scheme") }
        var parameters = Parameters()
        var token68: String?
        scanner.skipLWS()
        params: while !scanner.isAtEnd {
            let save = scanner.index
            if let name = scanner.readToken() {
                if scanner.consumeSeparator(ASCII.equals) {
                    if let quoted = scanner.readQuotedString() {
                        parameters.append(Parameter(scanner.string(name), scanner.string(quoted)))
                    } else if let token = scanner.readToken() {
                        parameters.append(Parameter(scanner.string(name), scanner.string(token)))
                    } else if parameters.isEmpty {
                        // token68 ending in '=' padding.
                        scanner.index = save
                        token68 = try readToken68(&scanner, field: field)
                        break params
                    } else {
                        throw .malformed(field, "auth parameter without value")
                    }
                } else if parameters.isEmpty, token68 == nil {
                    scanner.index = save
                    token68 = try readToken68(&scanner, field: field)
                    break params
                } else {
                    // The name of the next scheme.
                    scanner.index = save
                    break params
                }
            } else if parameters.isEmpty, token68 == nil {
                token68 = try readToken68(&scanner, field: field)
                break params
            } else {
                throw .malformed(field, "unexpected character")
            }
            scanner.skipLWS()
            guard scanner.consumeSeparator(ASCII.comma) || scanner.isAtEnd else {
                throw .malformed(field, "expected ',' between auth parameters")
            }
            while scanner.consumeSeparator(ASCII.comma) {}
        }
        result.append((scanner.string(scheme), parameters, token68))
        scanner.skipLWS()
    }
    guard !result.isEmpty else { throw .malformed(field, "empty value") }
    return result
}

private func readToken68(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> String {
    let start = scanner.index
    _ = scanner.read(while: {
        $0.isAlphanumeric || $0 == ASCII.minus || $0 == ASCII.dot || $0 == 0x5F || $0 == 0x7E || $0 == ASCII.plus
            || $0 == ASCII.slash
    })
    _ = scanner.read(while: { $0 == ASCII.equals })
    guard scanner.index > start else { throw .malformed(field, "bad credentials") }
    let value = scanner.string(start..<scanner.index)
    scanner.skipLWS()
    guard scanner.isAtEnd || scanner.peek() == ASCII.comma else { throw .malformed(field, "bad credentials") }
    return value
}
