/// One Via header field value (RFC 3261 §20.42, §18.2.1; RFC 3581 for `rport`).
public struct Via: Sendable, Hashable, CustomStringConvertible, SIPHeaderEncodable {
    /// The RFC 3581 `rport` parameter: asked for (no value) or filled in by the server.
    public enum RPort: Sendable, Hashable {
        case requested
        case value(UInt16)
    }

    /// The protocol name, normally `SIP`.
    public var protocolName: String
    /// The protocol version, normally `2.0`.
    public var protocolVersion: String
    /// The transport token as written (`UDP`, `TCP`, `TLS`, `SCTP`, `WS`, ...).
    public var transport: String
    public var host: SIPHost
    public var port: UInt16?
    /// `;branch=`, `;received=`, `;rport`, ... in order, values as written.
    public var parameters: Parameters

    /// A SIP/2.0 Via.
    public init(
        transport: String, host: SIPHost, port: UInt16? = nil, branch: String? = nil, parameters: Parameters = []
    ) {
        self.protocolName = "SIP"
        self.protocolVersion = "2.0"
        self.transport = transport
        self.host = host
        self.port = port
        self.parameters = parameters
        if let branch { self.parameters["branch"] = branch }
    }

    /// Parses one via-parm.
    public init(_ text: String) throws(MessageError) {
        self = try Via.parseWhole(text, field: .via)
    }

    /// The `branch` parameter: the transaction identifier (RFC 3261 §8.1.1.7).
    public var branch: String? {
        get { parameters["branch"] }
        set { parameters["branch"] = newValue }
    }

    /// Whether the branch begins with the RFC 3261 magic cookie `z9hG4bK`.
    public var hasMagicCookie: Bool { branch?.hasPrefix(Via.magicCookie) ?? false }

    /// The RFC 3261 branch prefix.
    public static let magicCookie = "z9hG4bK"

    /// The `received` parameter (RFC 3261 §18.2.1).
    public var received: String? {
        get { parameters["received"] }
        set { parameters["received"] = newValue }
    }

    /// The `rport` parameter (RFC 3581).
    public var rport: RPort? {
        get {
            guard let i = parameters.firstIndex(named: "rport") else { return nil }
            guard let v = parameters.elements[i].value else { return .requested }
            return UInt16(v).map(RPort.value)
        }
        set {
            switch newValue {
            case nil: parameters.remove("rport")
            case .requested: parameters.set("rport", to: nil)
            case .value(let port): parameters.set("rport", to: String(port))
            }
        }
    }

    /// The `maddr` parameter.
    public var maddr: String? { parameters["maddr"] }
    /// The `ttl` parameter.
    public var ttl: Int? { parameters["ttl"].flatMap { Int($0) } }

    /// `host[:port]` as written in the Via.
    public var sentBy: String {
        if let port { return "\(host):\(port)" }
        return host.description
    }

    public var description: String { wireForm }

    public func serialize(into buffer: inout [UInt8]) {
        buffer.append(protocolName)
        buffer.append(ASCII.slash)
        buffer.append(protocolVersion)
        buffer.append(ASCII.slash)
        buffer.append(transport)
        buffer.append(ASCII.space)
        buffer.append(host.description)
        if let port {
            buffer.append(ASCII.colon)
            buffer.appendDecimal(port)
        }
        parameters.serialize(into: &buffer)
    }
}

extension Via: ScannerParsable {
    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> Via {
        guard let name = scanner.readToken(), scanner.consumeSeparator(ASCII.slash),
            let version = scanner.readToken(), scanner.consumeSeparator(ASCII.slash),
            let transport = scanner.readToken()
        else { throw .malformed(field, "bad sent-protocol") }
        scanner.skipLWS()
        guard let hostRange = scanner.readHostRange(), let host = SIPHost(scanner.bytes, hostRange) else {
            throw .malformed(field, "bad sent-by host")
        }
        var port: UInt16?
        if scanner.consumeSeparator(ASCII.colon) {
            guard let digits = scanner.read(while: \.isDigit), let p = parseDecimal(scanner.bytes, digits, limit: 65535)
            else { throw .malformed(field, "bad sent-by port") }
            port = UInt16(p)
        }
        let parameters = try scanner.parseHeaderParameters(field: field)
        var via = Via(transport: scanner.string(transport), host: host, port: port, parameters: parameters)
        via.protocolName = scanner.string(name)
        via.protocolVersion = scanner.string(version)
        if let rport = parameters["rport"] {
            guard UInt16(rport) != nil else { throw .malformed(field, "bad rport") }
        }
        if let ttl = parameters["ttl"] {
            guard let t = Int(ttl), (0...255).contains(t) else { throw .malformed(field, "bad ttl") }
        }
        if let branch = parameters["branch"], branch.utf8.first == ASCII.quote {
            throw .malformed(field, "quoted branch")
        }
        return via
    }
}
