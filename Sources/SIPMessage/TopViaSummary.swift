#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the transaction layer matches on in a message's top Via (RFC 3261 §17.1.3, §17.2.3): the branch and
/// the sent-by host and port, read from the field's bytes without building a `Via`; with the transport,
/// `received` and `rport` that the transport layer reads to stamp a request and to answer it (§18.2).
///
/// The read validates the first via-parm exactly as `topVia` does (sent-protocol, sent-by, every parameter,
/// `rport`, `ttl` and `branch` values, and what may follow the value), so a message has a summary if and
/// only if `topVia` returns a `Via`, and the summary's parts equal that Via's `branch`, `host`, `port`,
/// `transport`, `received` and `rport`.
public struct TopViaSummary: Sendable {
    /// The message's bytes: the strings are made when asked for.
    let source: [UInt8]
    /// The whole first Via field value the summary was read from: the summary depends on these bytes alone.
    let fieldRange: ByteRange
    let branchRange: ByteRange?
    let hostRange: ByteRange
    let transportRange: ByteRange
    let receivedParameter: KnownParameter
    let rportParameter: KnownParameter
    /// Whether the first `branch` parameter's value begins with the RFC 3261 magic cookie `z9hG4bK`
    /// (§8.1.1.7), compared as bytes.
    public let hasMagicCookie: Bool
    /// Whether the sent-by host is a hostname, an IPv4 address or an IPv6 reference.
    public let hostKind: SIPHost.Kind
    /// The sent-by port, `nil` when the Via has none.
    public let port: UInt16?

    /// The first `branch` parameter's value as written; `nil` when it is absent or has no value.
    public var branch: String? { branchRange.map { source.string($0) } }

    /// The sent-by host as written, without the brackets of an IPv6 reference.
    public var host: String { source.string(hostRange) }

    /// The transport token as written (`UDP`, `TCP`, `TLS`, ...).
    public var transport: String { source.string(transportRange) }

    /// The first `received` parameter's value as written; `nil` when it is absent or has no value.
    public var received: String? {
        if case .value(let range) = receivedParameter { return source.string(range) }
        return nil
    }

    /// Whether the Via has a `received` parameter.
    public var hasReceived: Bool {
        if case .absent = receivedParameter { return false }
        return true
    }

    /// The first `rport` parameter (RFC 3581): requested (no value) or filled.
    public var rport: Via.RPort? {
        switch rportParameter {
        case .absent, .unknown: return nil
        case .flag: return .requested
        case .value(let range):
            return source.withUnsafeBufferPointer { parseDecimal($0, range.range, limit: 65535) }.map {
                .value(UInt16($0))
            }
        }
    }

    fileprivate init(source: [UInt8], field: Range<Int>, _ bytes: UnsafeBufferPointer<UInt8>, _ parts: Parts) {
        self.source = source
        fieldRange = ByteRange(field)
        if let branch = parts.branch {
            branchRange = ByteRange(branch)
            hasMagicCookie = bytes.hasPrefix(branch, "z9hG4bK")
        } else {
            branchRange = nil
            hasMagicCookie = false
        }
        hostRange = ByteRange(parts.host)
        hostKind = parts.hostKind
        port = parts.port
        transportRange = ByteRange(parts.transport)
        receivedParameter = parts.received
        rportParameter = parts.rport
    }
}

extension TopViaSummary: Equatable {
    /// Equal parts: branch, host (as written), host kind and port.
    public static func == (a: TopViaSummary, b: TopViaSummary) -> Bool {
        a.hasMagicCookie == b.hasMagicCookie && a.hostKind == b.hostKind && a.port == b.port && a.branch == b.branch
            && a.host == b.host
    }
}

/// Where the parts of a via-parm are, before any string is made.
private struct Parts {
    var host: Range<Int>
    var hostKind: SIPHost.Kind
    var port: UInt16?
    /// The value of the first `branch` parameter, when it has one.
    var branch: Range<Int>?
    var transport: Range<Int>
    var received = KnownParameter.absent
    var rport = KnownParameter.absent

    enum Outcome {
        case read(Parts)
        /// Certainly rejected by `Via.parse` as well.
        case malformed
        /// Outside the common shape: read it with the general scanner.
        case unusual
    }

    /// The common shape, in one pass: `SIP/2.0/transport SP host[:port]` and `;name[=token]` parameters
    /// without white space inside, ending at the end or at SP/HT then a comma. Anything else (folds, white
    /// space around separators, quoted values, bracketed or unusual hosts, a malformed part) is `.unusual`,
    /// so the general reader, which is `Via.parse` step by step, decides it; `.malformed` only where that
    /// reader would reject the same bytes for the same reason (a `rport` or `ttl` out of range).
    static func readCommon(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Outcome {
        let end = min(range.upperBound, p.count)
        var i = max(0, range.lowerBound)
        // "SIP/2.0/" (one 8-byte word) then the transport token and white space.
        guard Via.startsWithSIPVersion(p, i, end) else { return .unusual }
        i += 8
        let transportStart = i
        while i < end, p[i].isTokenChar { i += 1 }
        guard i > transportStart, i < end, p[i] == ASCII.space || p[i] == ASCII.tab else { return .unusual }
        let transport = transportStart..<i
        while i < end, p[i] == ASCII.space || p[i] == ASCII.tab { i += 1 }
        // The host: a run of label characters and dots, as `ByteScanner.readHost` reads one; an IPv4 address
        // or a hostname (what `readHost` would try after both, an IPv6 address, is left to it).
        let hostStart = i
        while i < end, p[i].isHostChar { i += 1 }  // alphanumerics, "-" and "."
        let host = hostStart..<i
        guard !host.isEmpty, host.count <= 255 else { return .unusual }
        let hostKind: SIPHost.Kind
        if p[i - 1].isDigit, SIPHost.parseIPv4Word(p, host) != nil {
            hostKind = .ipv4
        } else if SIPHost.isHostname(p, host) {
            hostKind = .hostname
        } else {
            return .unusual
        }
        var port: UInt16?
        if i < end, p[i] == ASCII.colon {
            i += 1
            let digits = i
            while i < end, p[i].isDigit { i += 1 }
            guard let value = parseDecimal(p, digits..<i, limit: 65535) else { return .unusual }
            port = UInt16(value)
        }
        var branch: Range<Int>?
        var sawBranch = false
        var received = KnownParameter.absent
        var rport = KnownParameter.absent
        while i < end, p[i] == ASCII.semicolon {
            i += 1
            let nameStart = i
            while i < end, p[i].isTokenChar { i += 1 }
            let name = nameStart..<i
            // LWS after the name may come before an "=" (`consumeSeparator` skips it): not the common shape.
            guard !name.isEmpty, i == end || p[i] == ASCII.equals || p[i] == ASCII.semicolon || p[i] == ASCII.comma
            else { return .unusual }
            var value: Range<Int>?
            if i < end, p[i] == ASCII.equals {
                i += 1
                let valueStart = i
                while i < end, p[i].isGenericValueChar { i += 1 }
                guard i > valueStart else { return .unusual }
                value = valueStart..<i
            }
            switch packedLowercaseToken(p, name) {
            case ParameterName.rport:
                if let value, parseDecimal(p, value, limit: 65535) == nil { return .malformed }
                rport.record(value)
            case ParameterName.received:
                received.record(value)
            case ParameterName.ttl:
                if value.flatMap({ parseDecimal(p, $0, limit: 255) }) == nil { return .malformed }
            case ParameterName.branch:
                if !sawBranch {
                    sawBranch = true
                    branch = value
                }
            default: break
            }
        }
        // The end of the first value: the end of the field, or a comma after optional SP/HT.
        while i < end, p[i] == ASCII.space || p[i] == ASCII.tab { i += 1 }
        guard i == end || p[i] == ASCII.comma else { return .unusual }
        return .read(
            Parts(
                host: host, hostKind: hostKind, port: port, branch: branch, transport: transport, received: received,
                rport: rport))
    }

    /// Any via-parm, read as `SIPFields.parseFirst` and `Via.parse` read it, step by step with the same
    /// scanner; `nil` exactly where they throw.
    static func readGeneral(_ scanner: inout ByteScanner) -> Parts? {
        let bytes = scanner.bytes
        scanner.skipLWS()
        guard !scanner.isAtEnd, scanner.readToken() != nil, scanner.consumeSeparator(ASCII.slash),
            scanner.readToken() != nil, scanner.consumeSeparator(ASCII.slash), let transport = scanner.readToken()
        else { return nil }
        scanner.skipLWS()
        guard let (hostSpan, hostKind) = scanner.readHost() else { return nil }
        var port: UInt16?
        if scanner.consumeSeparator(ASCII.colon) {
            guard let digits = scanner.read(while: { $0.isDigit }),
                let value = parseDecimal(bytes, digits, limit: 65535)
            else { return nil }
            port = UInt16(value)
        }
        var known = KnownViaParameters()
        do {
            _ = try scanner.validateHeaderParameters(field: .via) { name, value in known.inspect(bytes, name, value) }
        } catch {
            return nil
        }
        scanner.skipLWS()
        guard scanner.isAtEnd || scanner.peek() == ASCII.comma else { return nil }
        let branchRange: Range<Int>?
        if case .value(let span) = known.branch { branchRange = span.range } else { branchRange = nil }
        return Parts(
            host: hostSpan.range, hostKind: hostKind, port: port, branch: branchRange, transport: transport,
            received: known.received, rport: known.rport)
    }
}

extension SIPFields {
    /// The top Via's branch, sent-by host and port, read without building a `Via`; `nil` when there is no Via
    /// or the top one is malformed (when `topVia` would return `nil` or throw).
    public var topViaSummary: TopViaSummary? {
        guard let entry = firstEntry(.via) else { return nil }
        let range = entry.valueRange
        let storage = self.storage
        return storage.withUnsafeBufferPointer { bytes -> TopViaSummary? in
            switch Parts.readCommon(bytes, range) {
            case .read(let parts):
                return TopViaSummary(source: storage, field: range, bytes, parts)
            case .malformed:
                return nil
            case .unusual:
                let parts = (try? ByteScanner.scan(storage, range) { Parts.readGeneral(&$0) }) ?? nil
                return parts.map { TopViaSummary(source: storage, field: range, bytes, $0) }
            }
        }
    }

    /// The top Via's summary, taking `known` (read before from this message or another) when the first Via
    /// field's bytes equal those `known` was read from, so the same bytes are not read twice: a request's
    /// summary serves its responses, whose Vias are copied from it. Reads the field otherwise.
    package func topViaSummary(reusing known: TopViaSummary?) -> TopViaSummary? {
        guard let known, let entry = firstEntry(.via) else { return topViaSummary }
        return known.wasRead(from: storage, entry.valueRange) ? known : topViaSummary
    }
}

extension TopViaSummary {
    /// Whether `bytes[range]` are the bytes this summary was read from.
    fileprivate func wasRead(from bytes: [UInt8], _ range: Range<Int>) -> Bool {
        let field = fieldRange.range
        guard range.count == field.count else { return false }
        return bytes.withUnsafeBufferPointer { a in
            source.withUnsafeBufferPointer { b in
                guard let a = a.baseAddress, let b = b.baseAddress, range.upperBound <= bytes.count,
                    field.upperBound <= source.count
                else { return range.isEmpty }
                let lhs = a + range.lowerBound
                let rhs = b + field.lowerBound
                return lhs == rhs || memcmp(lhs, rhs, range.count) == 0
            }
        }
    }
}

extension SIPHeaderFieldsContainer {
    /// The top Via's branch, sent-by host and port, read without building a `Via` (see `SIPFields`).
    public var topViaSummary: TopViaSummary? { headerFields.topViaSummary }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether `self[range]` begins with `literal`, compared as bytes.
    @inline(__always)
    fileprivate func hasPrefix(_ range: Range<Int>, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard range.count >= count else { return false }
        return bytesEqual(self, range.lowerBound..<(range.lowerBound + count), literal)
    }
}

extension ParameterName {
    /// `received`, as `packedLowercaseToken` packs it.
    static let received: UInt64 = 0x6465_7669_6563_6572
}
