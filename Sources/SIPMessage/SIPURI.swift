/// Where the parts of a SIP URI lie in its byte source.
@usableFromInline
struct SIPURILayout: Sendable {
    // The word-sized ranges first, absent parts as a marker range rather than optionals, the one-byte fields
    // last: 53 bytes instead of 68, which keeps URIs, requests and the addresses holding a URI at most 128 bytes,
    // so that they are copied with a few moves rather than a memcpy call.
    var whole: ByteRange
    @usableFromInline var host: ByteRange
    /// The `;...` parameter region (may be empty).
    var parameters: ByteRange
    /// The text after `?` (empty when there are no headers).
    var headers: ByteRange
    @usableFromInline var userRange: ByteRange
    private var passwordRange: ByteRange
    @usableFromInline var port: UInt16?
    var isSecure: Bool
    @usableFromInline var hostKind: SIPHost.Kind

    /// Marks an absent user or password (an empty password is present: `sip:alice:@host`).
    private static let absent = ByteRange(start: Int(UInt32.max), end: Int(UInt32.max))

    @usableFromInline var user: ByteRange? {
        @inlinable get { userRange.start == UInt32.max ? nil : userRange }
        set { userRange = newValue ?? Self.absent }
    }

    var password: ByteRange? {
        get { passwordRange.start == UInt32.max ? nil : passwordRange }
        set { passwordRange = newValue ?? Self.absent }
    }

    init(
        whole: ByteRange, isSecure: Bool, user: ByteRange?, password: ByteRange?, host: ByteRange,
        hostKind: SIPHost.Kind, port: UInt16?, parameters: ByteRange, headers: ByteRange
    ) {
        self.whole = whole
        self.host = host
        self.parameters = parameters
        self.headers = headers
        self.userRange = user ?? Self.absent
        self.passwordRange = password ?? Self.absent
        self.port = port
        self.isSecure = isSecure
        self.hostKind = hostKind
    }
}

extension SIPURILayout {
    /// The same layout for a source in which these bytes moved by `delta`.
    func shifted(by delta: Int) -> SIPURILayout {
        func move(_ r: ByteRange) -> ByteRange { ByteRange(start: Int(r.start) + delta, end: Int(r.end) + delta) }
        var copy = self
        copy.whole = move(whole)
        copy.user = user.map(move)
        copy.password = password.map(move)
        copy.host = move(host)
        copy.parameters = move(parameters)
        copy.headers = move(headers)
        return copy
    }
}

/// A `sip:` or `sips:` URI (RFC 3261 §19.1).
///
/// A parsed URI is a view of the bytes it arrived in: reading `user` or `host` makes a string, copying the
/// URI copies one reference. `user` and `password` read and write the decoded text; on the wire (and in
/// `escapedUser`) they keep the %-escapes they arrived with, which are never decoded twice (`%2541` stays
/// `%41`). Parameters and headers are kept as written. Setting a part rebuilds the URI's bytes.
public struct SIPURI: Sendable, CustomStringConvertible {
    @usableFromInline var source: [UInt8]
    @usableFromInline var layout: SIPURILayout

    @usableFromInline
    init(source: [UInt8], layout: SIPURILayout) {
        self.source = source
        self.layout = layout
    }

    /// A SIP URI. `user` is given decoded and escaped as RFC 3261 §19.1.2 requires; parameter and header
    /// names and values are taken as written, with characters the grammar does not allow %-escaped.
    public init(
        user: String? = nil, host: SIPHost, port: UInt16? = nil, isSecure: Bool = false,
        parameters: Parameters = [], headers: [Parameter] = []
    ) {
        self.init(
            Components(
                isSecure: isSecure, escapedUser: user.map { percentEncoded($0, allowed: { $0.isUserChar }) },
                escapedPassword: nil, host: host, port: port, parameters: parameters.elements, headers: headers))
    }

    /// Parses a SIP or SIPS URI.
    public init(_ string: String) throws(MessageError) {
        guard case .sip(let uri) = try URI(string) else { throw .malformedURI("not a SIP URI") }
        self = uri
    }

    // MARK: Parts

    /// `sips:` rather than `sip:`.
    public var isSecure: Bool {
        get { layout.isSecure }
        set { modify { $0.isSecure = newValue } }
    }

    /// The user part as written, %-escapes intact.
    public var escapedUser: String? {
        @inlinable get {
            // Not `layout.user.map(source.string)`: that closure copies the whole URI.
            guard let user = layout.user else { return nil }
            return source.string(user)
        }
        set { modify { $0.escapedUser = newValue } }
    }

    /// The bytes of `escapedUser`, read in place from the URI: no string is made.
    public var escapedUserBytes: SIPBytes? {
        @inlinable @inline(__always) get {
            let user = layout.userRange
            return user.start == UInt32.max ? nil : source.view(user)
        }
    }

    /// The password as written, %-escapes intact.
    public var escapedPassword: String? {
        get {
            guard let password = layout.password else { return nil }
            return source.string(password)
        }
        set { modify { $0.escapedPassword = newValue } }
    }

    /// The user part, decoded (a `%00` stays a NUL character and does not end the name).
    public var user: String? {
        get { escapedUser.map(percentDecodedString) }
        set { escapedUser = newValue.map { percentEncoded($0, allowed: { $0.isUserChar }) } }
    }

    /// The password, decoded.
    public var password: String? {
        get { escapedPassword.map(percentDecodedString) }
        set { escapedPassword = newValue.map { percentEncoded($0, allowed: { $0.isPasswordChar }) } }
    }

    public var host: SIPHost {
        @inlinable get { SIPHost(kind: layout.hostKind, source: source, span: layout.host) }
        set { modify { $0.host = newValue } }
    }

    public var port: UInt16? {
        @inlinable get { layout.port }
        set { modify { $0.port = newValue } }
    }

    /// `;name=value` URI parameters, in order, as written.
    public var parameters: Parameters {
        get { Parameters(wire: source, range: layout.parameters.range, isURI: true) }
        set { modify { $0.parameters = newValue.elements } }
    }

    /// `?name=value&...` headers, in order, as written.
    public var headers: [Parameter] {
        get {
            guard !layout.headers.isEmpty else { return [] }
            return source[layout.headers.range].split(separator: ASCII.ampersand, omittingEmptySubsequences: false).map
            {
                part in
                let pieces = part.split(separator: ASCII.equals, maxSplits: 1, omittingEmptySubsequences: false)
                return Parameter(
                    String(decoding: pieces[0], as: UTF8.self),
                    pieces.count > 1 ? String(decoding: pieces[1], as: UTF8.self) : "")
            }
        }
        set { modify { $0.headers = newValue } }
    }

    /// The `transport` parameter, in lower case.
    public var transport: String? {
        get { parameters["transport"].map { percentDecodedString($0).lowercasedASCII } }
        set { parameters["transport"] = newValue }
    }

    /// The `maddr` parameter.
    public var maddr: String? { parameters["maddr"].map(percentDecodedString) }
    /// The `ttl` parameter.
    public var ttl: Int? { parameters["ttl"].flatMap { Int($0) } }
    /// The `method` parameter.
    public var method: String? { parameters["method"].map(percentDecodedString) }
    /// The `user` parameter (`phone`, `ip`, ...), in lower case.
    public var userParameter: String? { parameters["user"].map { percentDecodedString($0).lowercasedASCII } }
    /// Whether the `lr` parameter marks a loose router (RFC 3261 §19.1.1).
    public var isLooseRouter: Bool { parameters.contains("lr") }

    public var description: String {
        String(decoding: source[layout.whole.range], as: UTF8.self)
    }

    /// How many bytes `serialize(into:)` writes.
    var serializedCount: Int { layout.whole.range.count }

    /// Writes the URI as it was received or built.
    func serialize(into buffer: inout [UInt8]) {
        buffer.append(contentsOf: source[layout.whole.range])
    }

    // MARK: Building

    /// The parts of a URI as plain values, for building and editing.
    struct Components: Equatable {
        var isSecure: Bool
        var escapedUser: String?
        var escapedPassword: String?
        var host: SIPHost
        var port: UInt16?
        var parameters: [Parameter]
        var headers: [Parameter]
    }

    var components: Components {
        Components(
            isSecure: isSecure, escapedUser: escapedUser, escapedPassword: escapedPassword, host: host, port: port,
            parameters: parameters.elements, headers: headers)
    }

    init(_ components: Components) {
        var bytes: [UInt8] = []
        let layout = SIPURI.write(components, into: &bytes)
        self.init(source: bytes, layout: layout)
    }

    mutating func modify(_ change: (inout Components) -> Void) {
        var parts = components
        change(&parts)
        self = SIPURI(parts)
    }

    /// Writes `components` into `buffer`, escaping what the grammar does not allow, and returns where each
    /// part landed.
    static func write(_ components: Components, into buffer: inout [UInt8]) -> SIPURILayout {
        let start = buffer.count
        buffer.append(components.isSecure ? "sips:" : "sip:")
        var user: ByteRange?
        var password: ByteRange?
        if let escapedUser = components.escapedUser, !escapedUser.isEmpty {
            user = buffer.appendRecording(sanitizedEscapes(escapedUser, allowed: { $0.isUserChar }))
            if let escapedPassword = components.escapedPassword {
                buffer.append(ASCII.colon)
                password = buffer.appendRecording(sanitizedEscapes(escapedPassword, allowed: { $0.isPasswordChar }))
            }
            buffer.append(ASCII.at)
        }
        if components.host.kind == .ipv6 { buffer.append(ASCII.leftBracket) }
        let host = buffer.appendRecording(components.host.text)
        if components.host.kind == .ipv6 { buffer.append(ASCII.rightBracket) }
        if let port = components.port {
            buffer.append(ASCII.colon)
            buffer.appendDecimal(port)
        }
        let parametersStart = buffer.count
        for p in components.parameters where !p.name.isEmpty {
            buffer.append(ASCII.semicolon)
            buffer.append(sanitizedEscapes(p.name, allowed: { $0.isURIParamChar }))
            if let value = p.value, !value.isEmpty {
                buffer.append(ASCII.equals)
                buffer.append(sanitizedEscapes(value, allowed: { $0.isURIParamChar }))
            }
        }
        let parameters = ByteRange(start: parametersStart, end: buffer.count)
        var headers = ByteRange(start: buffer.count, end: buffer.count)
        let named = components.headers.filter { !$0.name.isEmpty }
        if !named.isEmpty {
            buffer.append(ASCII.question)
            let headersStart = buffer.count
            for (i, h) in named.enumerated() {
                if i > 0 { buffer.append(ASCII.ampersand) }
                buffer.append(sanitizedEscapes(h.name, allowed: { $0.isURIHeaderChar }))
                buffer.append(ASCII.equals)
                buffer.append(sanitizedEscapes(h.value ?? "", allowed: { $0.isURIHeaderChar }))
            }
            headers = ByteRange(start: headersStart, end: buffer.count)
        }
        return SIPURILayout(
            whole: ByteRange(start: start, end: buffer.count), isSecure: components.isSecure, user: user,
            password: password, host: host, hostKind: components.host.kind, port: components.port,
            parameters: parameters, headers: headers)
    }
}

extension SIPURI: Hashable {
    /// Structural equality (the same parts, as written); see `isEquivalent(to:)` for RFC 3261 §19.1.4.
    public static func == (a: SIPURI, b: SIPURI) -> Bool {
        a.source[a.layout.whole.range].elementsEqual(b.source[b.layout.whole.range])
    }

    public func hash(into hasher: inout Hasher) {
        for b in source[layout.whole.range] { hasher.combine(b) }
    }
}

/// Keeps valid %HH escapes and the allowed characters; escapes everything else (including a lone '%').
func sanitizedEscapes(_ text: String, allowed: (UInt8) -> Bool) -> String {
    let bytes = Array(text.utf8)
    var clean = true
    for (i, b) in bytes.enumerated() where !allowed(b) {
        if b == ASCII.percent, i + 2 < bytes.count, bytes[i + 1].isHexDigit, bytes[i + 2].isHexDigit { continue }
        clean = false
        break
    }
    if clean { return text }
    var out: [UInt8] = []
    var i = 0
    while i < bytes.count {
        let b = bytes[i]
        if allowed(b) {
            out.append(b)
        } else if b == ASCII.percent, i + 2 < bytes.count, bytes[i + 1].isHexDigit, bytes[i + 2].isHexDigit {
            out.append(contentsOf: bytes[i...(i + 2)])
            i += 3
            continue
        } else {
            out.append(ASCII.percent)
            out.append(hexDigit(b >> 4))
            out.append(hexDigit(b & 0xF))
        }
        i += 1
    }
    return String(decoding: out, as: UTF8.self)
}
