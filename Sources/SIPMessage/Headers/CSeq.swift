/// The CSeq header field: a sequence number and the request method (RFC 3261 §20.16).
public struct CSeq: Sendable, Hashable, CustomStringConvertible, SIPHeaderEncodable {
    /// Below 2^31 (RFC 3261 §8.1.1.5).
    public var sequenceNumber: UInt32
    public var method: SIPMethod

    public init(_ sequenceNumber: UInt32, _ method: SIPMethod) {
        self.sequenceNumber = sequenceNumber
        self.method = method
    }

    public init(_ text: String) throws(MessageError) {
        self = try CSeq.parseWhole(text, field: .cseq)
    }

    /// The largest sequence number RFC 3261 allows.
    public static let maximum: UInt32 = 0x7FFF_FFFF

    public var description: String { wireForm }

    public func serialize(into buffer: inout [UInt8]) {
        buffer.appendDecimal(sequenceNumber)
        buffer.append(ASCII.space)
        buffer.append(method.rawValue)
    }
}

extension CSeq: ScannerParsable {
    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> CSeq {
        guard let digits = scanner.read(while: { $0.isDigit }) else { throw .malformed(field, "no sequence number") }
        guard let number = parseDecimal(scanner.bytes, digits, limit: UInt64(CSeq.maximum)) else {
            throw .malformed(field, "sequence number too large")
        }
        let beforeSpace = scanner.index
        scanner.skipLWS()
        guard scanner.index > beforeSpace, let method = scanner.readToken() else {
            throw .malformed(field, "no method")
        }
        return CSeq(UInt32(number), SIPMethod(unchecked: scanner.internedToken(method)))
    }
}

/// The RAck header field of PRACK (RFC 3262 §7.2).
public struct RAck: Sendable, Hashable, CustomStringConvertible, SIPHeaderEncodable {
    public var responseNumber: UInt32
    public var cseqNumber: UInt32
    public var method: SIPMethod

    public init(responseNumber: UInt32, cseqNumber: UInt32, method: SIPMethod) {
        self.responseNumber = responseNumber
        self.cseqNumber = cseqNumber
        self.method = method
    }

    public init(_ text: String) throws(MessageError) {
        self = try RAck.parseWhole(text, field: .rack)
    }

    public var description: String { wireForm }

    public func serialize(into buffer: inout [UInt8]) {
        buffer.appendDecimal(responseNumber)
        buffer.append(ASCII.space)
        buffer.appendDecimal(cseqNumber)
        buffer.append(ASCII.space)
        buffer.append(method.rawValue)
    }
}

extension RAck: ScannerParsable {
    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> RAck {
        guard let r = scanner.read(while: { $0.isDigit }), let rseq = parseDecimal(scanner.bytes, r, limit: 0xFFFF_FFFF)
        else { throw .malformed(field, "bad response number") }
        scanner.skipLWS()
        guard let c = scanner.read(while: { $0.isDigit }), let cseq = parseDecimal(scanner.bytes, c, limit: 0xFFFF_FFFF)
        else { throw .malformed(field, "bad CSeq number") }
        scanner.skipLWS()
        guard let m = scanner.readToken() else { throw .malformed(field, "no method") }
        return RAck(
            responseNumber: UInt32(rseq), cseqNumber: UInt32(cseq), method: SIPMethod(unchecked: scanner.string(m)))
    }
}

/// The Call-ID value: `word [ "@" word ]` (RFC 3261 §20.8), where it lies in the scanned bytes.
struct CallIDValue: ScannerParsable {
    var range: ByteRange

    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> CallIDValue {
        let start = scanner.index
        guard scanner.read(while: { $0.isWordChar }) != nil else { throw .malformed(field, "empty Call-ID") }
        if scanner.consume(ASCII.at) {
            guard scanner.read(while: { $0.isWordChar }) != nil else { throw .malformed(field, "empty word after '@'") }
        }
        return CallIDValue(range: ByteRange(start..<scanner.index))
    }
}

/// A comma-separated token (option tags, methods, event packages, encodings).
struct TokenValue: ScannerParsable {
    var value: String

    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> TokenValue {
        guard let token = scanner.readToken() else { throw .malformed(field, "expected a token") }
        return TokenValue(value: scanner.string(token))
    }
}
