/// The Event header field (RFC 6665 §8.2.1): a package name, an `id` and other parameters.
public struct EventHeader: Sendable, Hashable, CustomStringConvertible, SIPHeaderEncodable {
    public var package: String
    public var parameters: Parameters

    public init(package: String, id: String? = nil, parameters: Parameters = []) {
        self.package = package
        self.parameters = parameters
        if let id { self.parameters["id"] = id }
    }

    public init(_ text: String) throws(MessageError) {
        self = try EventHeader.parseWhole(text, field: .event)
    }

    public var id: String? { parameters["id"] }

    public var description: String { wireForm }

    public func serialize(into buffer: inout [UInt8]) {
        buffer.append(package)
        parameters.serialize(into: &buffer)
    }
}

extension EventHeader: ScannerParsable {
    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> EventHeader {
        let value = try TokenWithParameters.parse(&scanner, field: field)
        return EventHeader(package: value.token, parameters: value.parameters)
    }
}

/// The Subscription-State header field (RFC 6665 §8.2.3).
public struct SubscriptionState: Sendable, Hashable, CustomStringConvertible, SIPHeaderEncodable {
    /// `active`, `pending`, `terminated` or an extension value.
    public var state: String
    public var parameters: Parameters

    public init(state: String, parameters: Parameters = []) {
        self.state = state
        self.parameters = parameters
    }

    public init(_ text: String) throws(MessageError) {
        self = try SubscriptionState.parseWhole(text, field: .subscriptionState)
    }

    public var isActive: Bool { state.equalsCaseInsensitive("active") }
    public var isPending: Bool { state.equalsCaseInsensitive("pending") }
    public var isTerminated: Bool { state.equalsCaseInsensitive("terminated") }
    public var expires: UInt32? { parameters["expires"].flatMap { UInt32($0) } }
    public var reason: String? { parameters["reason"] }
    public var retryAfter: UInt32? { parameters["retry-after"].flatMap { UInt32($0) } }

    public var description: String { wireForm }

    public func serialize(into buffer: inout [UInt8]) {
        buffer.append(state)
        parameters.serialize(into: &buffer)
    }
}

extension SubscriptionState: ScannerParsable {
    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> SubscriptionState {
        let value = try TokenWithParameters.parse(&scanner, field: field)
        return SubscriptionState(state: value.token, parameters: value.parameters)
    }
}

/// The Reason header field (RFC 3326): why a request (CANCEL, BYE) was sent.
public struct Reason: Sendable, Hashable, CustomStringConvertible, SIPHeaderEncodable {
    /// `SIP`, `Q.850` or another protocol token.
    public var `protocol`: String
    public var parameters: Parameters

    public init(protocol: String, cause: Int? = nil, text: String? = nil) {
        self.protocol = `protocol`
        self.parameters = []
        if let cause { parameters["cause"] = String(cause) }
        if let text { parameters.setQuoted("text", text) }
    }

    public init(_ text: String) throws(MessageError) {
        self = try Reason.parseWhole(text, field: .reason)
    }

    public var cause: Int? { parameters["cause"].flatMap { Int($0) } }
    public var text: String? { parameters.unquotedValue("text") }

    public var description: String { wireForm }

    public func serialize(into buffer: inout [UInt8]) {
        buffer.append(`protocol`)
        parameters.serialize(into: &buffer)
    }
}

extension Reason: ScannerParsable {
    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> Reason {
        let value = try TokenWithParameters.parse(&scanner, field: field)
        var reason = Reason(protocol: value.token)
        reason.parameters = value.parameters
        return reason
    }
}

/// The Replaces header field (RFC 3891 §6.1).
public struct Replaces: Sendable, Hashable, CustomStringConvertible, SIPHeaderEncodable {
    public var callID: String
    public var toTag: String
    public var fromTag: String
    public var isEarlyOnly: Bool
    public var otherParameters: Parameters

    public init(callID: String, toTag: String, fromTag: String, isEarlyOnly: Bool = false) {
        self.callID = callID
        self.toTag = toTag
        self.fromTag = fromTag
        self.isEarlyOnly = isEarlyOnly
        self.otherParameters = []
    }

    public init(_ text: String) throws(MessageError) {
        self = try Replaces.parseWhole(text, field: .replaces)
    }

    public var description: String { wireForm }

    public func serialize(into buffer: inout [UInt8]) {
        buffer.append(callID)
        buffer.append(";to-tag=")
        buffer.append(toTag)
        buffer.append(";from-tag=")
        buffer.append(fromTag)
        if isEarlyOnly { buffer.append(";early-only") }
        otherParameters.serialize(into: &buffer)
    }
}

extension Replaces: ScannerParsable {
    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> Replaces {
        let callID = scanner.string(try CallIDValue.parse(&scanner, field: field).range.range)
        var params = try scanner.parseHeaderParameters(field: field)
        guard let toTag = params["to-tag"], let fromTag = params["from-tag"] else {
            throw .malformed(field, "to-tag and from-tag are required")
        }
        let early = params.contains("early-only")
        params.remove("to-tag")
        params.remove("from-tag")
        params.remove("early-only")
        var value = Replaces(callID: callID, toTag: toTag, fromTag: fromTag, isEarlyOnly: early)
        value.otherParameters = params
        return value
    }
}

/// The Session-Expires header field (RFC 4028 §4).
public struct SessionExpires: Sendable, Hashable, CustomStringConvertible, SIPHeaderEncodable {
    public enum Refresher: String, Sendable, Hashable {
        case uac
        case uas
    }

    public var deltaSeconds: UInt32
    public var parameters: Parameters

    public init(deltaSeconds: UInt32, refresher: Refresher? = nil) {
        self.deltaSeconds = deltaSeconds
        self.parameters = []
        if let refresher { parameters["refresher"] = refresher.rawValue }
    }

    public init(_ text: String) throws(MessageError) {
        self = try SessionExpires.parseWhole(text, field: .sessionExpires)
    }

    public var refresher: Refresher? {
        get { parameters["refresher"].flatMap { Refresher(rawValue: $0.lowercasedASCII) } }
        set { parameters["refresher"] = newValue?.rawValue }
    }

    public var description: String { wireForm }

    public func serialize(into buffer: inout [UInt8]) {
        buffer.appendDecimal(deltaSeconds)
        parameters.serialize(into: &buffer)
    }
}

extension SessionExpires: ScannerParsable {
    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> SessionExpires {
        guard let digits = scanner.read(while: { $0.isDigit }),
            let value = parseDecimal(scanner.bytes, digits, limit: 0xFFFF_FFFF)
        else { throw .malformed(field, "bad delta-seconds") }
        var result = SessionExpires(deltaSeconds: UInt32(value))
        result.parameters = try scanner.parseHeaderParameters(field: field)
        return result
    }
}

/// The Retry-After header field (RFC 3261 §20.33).
public struct RetryAfter: Sendable, Hashable, CustomStringConvertible, SIPHeaderEncodable {
    public var seconds: UInt32
    public var comment: String?
    public var parameters: Parameters

    public init(seconds: UInt32, comment: String? = nil, parameters: Parameters = []) {
        self.seconds = seconds
        self.comment = comment
        self.parameters = parameters
    }

    public init(_ text: String) throws(MessageError) {
        self = try RetryAfter.parseWhole(text, field: .retryAfter)
    }

    public var duration: UInt32? { parameters["duration"].flatMap { UInt32($0) } }

    public var description: String { wireForm }

    public func serialize(into buffer: inout [UInt8]) {
        buffer.appendDecimal(seconds)
        if let comment {
            buffer.append(" (")
            buffer.append(comment)
            buffer.append(")")
        }
        parameters.serialize(into: &buffer)
    }
}

extension RetryAfter: ScannerParsable {
    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> RetryAfter {
        guard let digits = scanner.read(while: { $0.isDigit }),
            let value = parseDecimal(scanner.bytes, digits, limit: 0xFFFF_FFFF)
        else { throw .malformed(field, "bad delta-seconds") }
        var comment: String?
        let save = scanner.index
        scanner.skipLWS()
        if scanner.peek() == 0x28 {
            let start = scanner.index + 1
            var depth = 0
            while let b = scanner.peek() {
                if b == ASCII.backslash {
                    scanner.advance()
                } else if b == 0x28 {
                    depth += 1
                } else if b == 0x29 {
                    depth -= 1
                    if depth == 0 { break }
                }
                scanner.advance()
            }
            guard scanner.peek() == 0x29 else { throw .malformed(field, "unterminated comment") }
            comment = scanner.string(start..<scanner.index)
            scanner.advance()
        } else {
            scanner.index = save
        }
        let parameters = try scanner.parseHeaderParameters(field: field)
        return RetryAfter(seconds: UInt32(value), comment: comment, parameters: parameters)
    }
}

/// The Warning header field (RFC 3261 §20.43): a three-digit code, an agent and a quoted text.
public struct Warning: Sendable, Hashable, CustomStringConvertible, SIPHeaderEncodable {
    public var code: Int
    public var agent: String
    public var text: String

    public init(code: Int, agent: String, text: String) {
        self.code = code
        self.agent = agent
        self.text = text
    }

    public var description: String { wireForm }

    public func serialize(into buffer: inout [UInt8]) {
        buffer.appendDecimal(code)
        buffer.append(ASCII.space)
        buffer.append(agent)
        buffer.append(ASCII.space)
        appendQuoted(text, to: &buffer)
    }
}

extension Warning: ScannerParsable {
    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> Warning {
        guard let digits = scanner.read(while: { $0.isDigit }), digits.count == 3,
            let code = parseDecimal(scanner.bytes, digits, limit: 999)
        else { throw .malformed(field, "warn-code must have three digits") }
        scanner.skipLWS()
        guard
            let agent = scanner.read(while: {
                $0.isTokenChar || $0 == ASCII.colon || $0 == ASCII.leftBracket || $0 == ASCII.rightBracket
            })
        else { throw .malformed(field, "no warn-agent") }
        scanner.skipLWS()
        guard let text = scanner.readQuotedString() else { throw .malformed(field, "no warn-text") }
        return Warning(code: Int(code), agent: scanner.string(agent), text: unquote(scanner.bytes, text))
    }
}

/// The Timestamp header field (RFC 3261 §20.38): a decimal time and an optional delay.
public struct Timestamp: Sendable, Hashable, CustomStringConvertible, SIPHeaderEncodable {
    public var value: String
    public var delay: String?

    public init(value: String, delay: String? = nil) {
        self.value = value
        self.delay = delay
    }

    public var description: String { wireForm }

    public func serialize(into buffer: inout [UInt8]) {
        buffer.append(value)
        if let delay {
            buffer.append(ASCII.space)
            buffer.append(delay)
        }
    }
}

extension Timestamp: ScannerParsable {
    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> Timestamp {
        func decimal(_ scanner: inout ByteScanner) -> Range<Int>? {
            let start = scanner.index
            guard scanner.read(while: { $0.isDigit }) != nil else { return nil }
            if scanner.consume(ASCII.dot) { _ = scanner.read(while: { $0.isDigit }) }
            return start..<scanner.index
        }
        guard let value = decimal(&scanner) else { throw .malformed(field, "not a number") }
        scanner.skipLWS()
        let delay = decimal(&scanner)
        return Timestamp(value: scanner.string(value), delay: delay.map { scanner.string($0) })
    }
}
