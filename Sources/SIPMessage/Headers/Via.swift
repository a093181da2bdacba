/// One Via header field value (RFC 3261 §20.42, §18.2.1; RFC 3581 for `rport`).
///
/// A parsed Via is a view of the bytes it arrived in; setting a part rebuilds it.
public struct Via: Sendable, CustomStringConvertible, SIPHeaderEncodable {
    /// The RFC 3581 `rport` parameter: asked for (no value) or filled in by the server.
    public enum RPort: Sendable, Hashable {
        case requested
        case value(UInt16)
    }

    @usableFromInline var source: [UInt8]
    var whole: ByteRange
    var protocolNameRange: ByteRange
    var protocolVersionRange: ByteRange
    var transportRange: ByteRange
    @usableFromInline var hostKind: SIPHost.Kind
    @usableFromInline var hostRange: ByteRange
    @usableFromInline var portValue: UInt16?
    var parametersRange: ByteRange
    /// Where `branch` is, when the parser recorded it.
    @usableFromInline var branchParameter: KnownParameter = .unknown

    /// A SIP/2.0 Via.
    public init(
        transport: String, host: SIPHost, port: UInt16? = nil, branch: String? = nil, parameters: Parameters = []
    ) {
        var list: [Parameter]
        if let branch, parameters.isEmpty {
            // The usual Via of a new request: no list to search.
            list = [Parameter("branch", branch)]
        } else {
            var parameters = parameters
            if let branch { parameters["branch"] = branch }
            list = parameters.elements
        }
        self.init(
            Components(
                protocolName: "SIP", protocolVersion: "2.0", transport: transport, host: host, port: port,
                parameters: list))
    }

    /// Parses one via-parm.
    public init(_ text: String) throws(MessageError) {
        self = try Via.parseWhole(text, field: .via)
    }

    /// The protocol name, normally `SIP`.
    public var protocolName: String {
        get { source.string(protocolNameRange) }
        set { modify { $0.protocolName = newValue } }
    }

    /// The protocol version, normally `2.0`.
    public var protocolVersion: String {
        get { source.string(protocolVersionRange) }
        set { modify { $0.protocolVersion = newValue } }
    }

    /// The transport token as written (`UDP`, `TCP`, `TLS`, `SCTP`, `WS`, ...).
    public var transport: String {
        get { source.string(transportRange) }
        set { modify { $0.transport = newValue } }
    }

    public var host: SIPHost {
        @inlinable get { SIPHost(kind: hostKind, source: source, span: hostRange) }
        set { modify { $0.host = newValue } }
    }

    public var port: UInt16? {
        @inlinable get { portValue }
        set { modify { $0.port = newValue } }
    }

    /// `;branch=`, `;received=`, `;rport`, ... in order, values as written.
    public var parameters: Parameters {
        get { Parameters(wire: source, range: parametersRange.range, isURI: false) }
        set { modify { $0.parameters = newValue.elements } }
    }

    /// The `branch` parameter: the transaction identifier (RFC 3261 §8.1.1.7).
    public var branch: String? {
        @inlinable get {
            switch branchParameter {
            case .value(let range): return source.string(range)
            case .absent, .flag: return nil
            case .unknown: return parameters["branch"]
            }
        }
        set { modify { $0.set("branch", newValue) } }
    }

    /// The bytes of `branch`, read in place from the message: no string is made.
    public var branchBytes: SIPBytes? {
        @inlinable @inline(__always) get {
            switch branchParameter {
            case .value(let range): return source.view(range)
            case .absent, .flag: return nil
            case .unknown: return lookedUpBranchBytes()
            }
        }
    }

    /// `branchBytes` of a Via built through the API, which has no recorded branch.
    @usableFromInline
    func lookedUpBranchBytes() -> SIPBytes? { parameters["branch"].map { SIPBytes($0.utf8) } }

    /// Whether the branch begins with the RFC 3261 magic cookie `z9hG4bK`.
    public var hasMagicCookie: Bool { branch?.hasPrefix(Via.magicCookie) ?? false }

    /// The RFC 3261 branch prefix.
    public static let magicCookie = "z9hG4bK"

    /// The `received` parameter (RFC 3261 §18.2.1).
    public var received: String? {
        get { parameters["received"] }
        set { modify { $0.set("received", newValue) } }
    }

    /// The `rport` parameter (RFC 3581).
    public var rport: RPort? {
        get {
            guard let parameter = parameters.first(named: "rport") else { return nil }
            guard let v = parameter.value else { return .requested }
            return UInt16(v).map(RPort.value)
        }
        set {
            modify { parts in
                switch newValue {
                case nil: parts.parameters.removeAll { Parameters.namesMatch($0.name, "rport") }
                case .requested: parts.set("rport", nil, flag: true)
                case .value(let port): parts.set("rport", String(port))
                }
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
        buffer.append(contentsOf: source[whole.range])
    }

    // MARK: Building

    struct Components {
        var protocolName: String
        var protocolVersion: String
        var transport: String
        var host: SIPHost
        var port: UInt16?
        var parameters: [Parameter]

        /// Sets a parameter's value (`nil` removes it unless `flag`, which keeps it without a value).
        mutating func set(_ name: String, _ value: String?, flag: Bool = false) {
            if value == nil, !flag {
                parameters.removeAll { Parameters.namesMatch($0.name, name) }
            } else if let i = parameters.firstIndex(where: { Parameters.namesMatch($0.name, name) }) {
                parameters[i].value = value
            } else {
                parameters.append(Parameter(name, value))
            }
        }
    }

    var components: Components {
        Components(
            protocolName: protocolName, protocolVersion: protocolVersion, transport: transport, host: host, port: port,
            parameters: parameters.elements)
    }

    init(
        source: [UInt8], whole: ByteRange, protocolName: ByteRange, protocolVersion: ByteRange, transport: ByteRange,
        hostKind: SIPHost.Kind, host: ByteRange, port: UInt16?, parameters: ByteRange
    ) {
        self.source = source
        self.whole = whole
        self.protocolNameRange = protocolName
        self.protocolVersionRange = protocolVersion
        self.transportRange = transport
        self.hostKind = hostKind
        self.hostRange = host
        self.portValue = port
        self.parametersRange = parameters
    }

    init(_ c: Components) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Via.estimatedSize(c))
        let name = bytes.appendTokenRecording(c.protocolName, or: "SIP")
        bytes.append(ASCII.slash)
        let version = bytes.appendTokenRecording(c.protocolVersion, or: "2.0")
        bytes.append(ASCII.slash)
        let transport = bytes.appendTokenRecording(c.transport, or: "UDP")
        bytes.append(ASCII.space)
        if c.host.kind == .ipv6 { bytes.append(ASCII.leftBracket) }
        let hostStart = bytes.count
        bytes.append(contentsOf: c.host.source[c.host.span.range])
        let host = ByteRange(start: hostStart, end: bytes.count)
        if c.host.kind == .ipv6 { bytes.append(ASCII.rightBracket) }
        if let port = c.port {
            bytes.append(ASCII.colon)
            bytes.appendDecimal(port)
        }
        let parametersStart = bytes.count
        Parameters.writeHeaderParameters(c.parameters, into: &bytes)
        self.init(
            source: bytes, whole: ByteRange(start: 0, end: bytes.count), protocolName: name, protocolVersion: version,
            transport: transport, hostKind: c.host.kind, host: host, port: c.port,
            parameters: ByteRange(start: parametersStart, end: bytes.count))
    }

    /// The bytes `init(_:)` writes when no parameter value needs quoting: enough that the usual Via is
    /// written without the buffer growing.
    static func estimatedSize(_ c: Components) -> Int {
        var n = c.protocolName.utf8.count + c.protocolVersion.utf8.count + c.transport.utf8.count + 10
        n += c.host.span.count
        for p in c.parameters { n += p.name.utf8.count + (p.value?.utf8.count ?? 0) + 2 }
        return n
    }

    mutating func modify(_ change: (inout Components) -> Void) {
        var parts = components
        change(&parts)
        self = Via(parts)
    }
}

extension Via: Hashable {
    public static func == (a: Via, b: Via) -> Bool {
        a.protocolName == b.protocolName && a.protocolVersion == b.protocolVersion && a.transport == b.transport
            && a.host == b.host && a.port == b.port && a.parameters == b.parameters
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(transport)
        hasher.combine(host)
        hasher.combine(port)
        hasher.combine(parameters)
    }
}

extension Via: ScannerParsable {
    static func parse(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> Via {
        if let via = parseFast(&scanner) { return via }
        return try parseGeneral(&scanner, field: field)
    }

    /// Reads any via-parm (`parse` tries `parseFast` first).
    static func parseGeneral(_ scanner: inout ByteScanner, field: KnownHeader?) throws(MessageError) -> Via {
        let start = scanner.index
        guard let name = scanner.readToken(), scanner.consumeSeparator(ASCII.slash),
            let version = scanner.readToken(), scanner.consumeSeparator(ASCII.slash),
            let transport = scanner.readToken()
        else { throw .malformed(field, "bad sent-protocol") }
        scanner.skipLWS()
        guard let (host, hostKind) = scanner.readHost() else { throw .malformed(field, "bad sent-by host") }
        var port: UInt16?
        if scanner.consumeSeparator(ASCII.colon) {
            guard let digits = scanner.read(while: { $0.isDigit }),
                let p = parseDecimal(scanner.bytes, digits, limit: 65535)
            else { throw .malformed(field, "bad sent-by port") }
            port = UInt16(p)
        }
        let bytes = scanner.bytes
        var known = KnownViaParameters()
        let parameters = try scanner.validateHeaderParameters(field: field) { name, value in
            known.inspect(bytes, name, value)
        }
        var via = Via(
            source: scanner.owner, whole: ByteRange(start: start, end: scanner.index), protocolName: ByteRange(name),
            protocolVersion: ByteRange(version), transport: ByteRange(transport), hostKind: hostKind, host: host,
            port: port, parameters: ByteRange(parameters))
        via.branchParameter = known.branch
        return via
    }
}

/// The Via parameters the parsers check and remember while validating a via-parm: `rport` and `ttl` are
/// numbers, `branch` a token; the first `branch`, `received` and `rport` are recorded where they are.
struct KnownViaParameters {
    var branch = KnownParameter.absent
    var received = KnownParameter.absent
    var rport = KnownParameter.absent

    /// Checks one parameter; the problem, for `MessageError.malformed`, or `nil` when it is fine.
    @inline(__always)
    mutating func inspect(_ bytes: UnsafeBufferPointer<UInt8>, _ name: Range<Int>, _ value: Range<Int>?) -> String? {
        switch packedLowercaseToken(bytes, name) {
        case ParameterName.rport:
            if let value, parseDecimal(bytes, value, limit: 65535) == nil { return "bad rport" }
            rport.record(value)
        case ParameterName.received:
            received.record(value)
        case ParameterName.ttl:
            if value.flatMap({ parseDecimal(bytes, $0, limit: 255) }) == nil { return "bad ttl" }
        case ParameterName.branch:
            if let value, value.isEmpty || bytes[value.lowerBound] == ASCII.quote { return "bad branch" }
            branch.record(value)
        default: break
        }
        return nil
    }
}
