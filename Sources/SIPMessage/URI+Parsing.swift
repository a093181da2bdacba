extension URI {
    /// Parses the URI occupying exactly `bytes[range]`; the caller has already found where it ends.
    static func parse(_ bytes: [UInt8], _ range: Range<Int>) throws(MessageError) -> URI {
        try ByteScanner.scan(bytes, range) { (scanner) throws(MessageError) -> URI in try parse(&scanner) }
    }

    /// Parses the URI occupying the rest of the scanner's range.
    static func parse(_ scanner: inout ByteScanner) throws(MessageError) -> URI {
        if let layout = try parseSIPLayout(&scanner) { return .sip(SIPURI(source: scanner.owner, layout: layout)) }
        let bytes = scanner.bytes
        let schemeRange = try readScheme(&scanner)
        if bytesEqualCaseInsensitive(bytes, schemeRange, literal: "tel") {
            return .tel(try TelURI.parse(&scanner))
        }
        // absoluteURI: hier-part / opaque-part, made of uric characters.
        let content = scanner.remaining
        guard !content.isEmpty else { throw .malformedURI("empty URI") }
        for i in content {
            let b = bytes[i]
            guard
                b.isUnreserved || b.isReserved || b == ASCII.percent || b == ASCII.leftBracket
                    || b == ASCII.rightBracket
            else { throw .malformedURI("character not allowed in URI") }
        }
        return .other(AbsoluteURI(scheme: scanner.string(schemeRange), content: scanner.string(content)))
    }
}

extension URI {
    /// Reads `scheme ":"`.
    @inline(__always)
    static func readScheme(_ scanner: inout ByteScanner) throws(MessageError) -> Range<Int> {
        guard let first = scanner.peek(), first.isAlpha else { throw .malformedURI("no scheme") }
        guard
            let schemeRange = scanner.read(while: {
                $0.isAlphanumeric || $0 == ASCII.plus || $0 == ASCII.minus || $0 == ASCII.dot
            }),
            scanner.consume(ASCII.colon)
        else { throw .malformedURI("no scheme") }
        return schemeRange
    }

    /// Parses the rest of the scanner's range as a SIP or SIPS URI and returns its layout; returns `nil` (and
    /// leaves the position) when the URI has another scheme. Throws what `parse` would throw.
    @inline(__always)
    static func parseSIPLayout(_ scanner: inout ByteScanner) throws(MessageError) -> SIPURILayout? {
        if let layout = SIPURI.fastLayout(scanner.bytes, owner: scanner.ownerPointer, scanner.index, scanner.end) {
            scanner.index = scanner.end
            return layout
        }
        return try parseSIPLayoutGeneral(&scanner)
    }

    /// `parseSIPLayout` for a URI of any shape (it tries `SIPURI.fastLayout` first).
    static func parseSIPLayoutGeneral(_ scanner: inout ByteScanner) throws(MessageError) -> SIPURILayout? {
        let start = scanner.index
        // The usual `sip:` and `sips:`, in any case, without reading the scheme as a token first.
        let bytes = scanner.bytes
        if start + 4 <= scanner.end, bytes[start] | 0x20 == UInt8(ascii: "s"),
            bytes[start + 1] | 0x20 == UInt8(ascii: "i"),
            bytes[start + 2] | 0x20 == UInt8(ascii: "p")
        {
            if bytes[start + 3] == ASCII.colon {
                scanner.index = start + 4
                return try SIPURI.parseLayout(&scanner, isSecure: false, schemeStart: start)
            }
            if start + 5 <= scanner.end, bytes[start + 3] | 0x20 == UInt8(ascii: "s"), bytes[start + 4] == ASCII.colon {
                scanner.index = start + 5
                return try SIPURI.parseLayout(&scanner, isSecure: true, schemeStart: start)
            }
        }
        let schemeRange = try readScheme(&scanner)
        let isSecure: Bool
        switch schemeRange.count {
        case 3 where bytesEqualCaseInsensitive(scanner.bytes, schemeRange, literal: "sip"): isSecure = false
        case 4 where bytesEqualCaseInsensitive(scanner.bytes, schemeRange, literal: "sips"): isSecure = true
        default:
            scanner.index = start
            return nil
        }
        return try SIPURI.parseLayout(&scanner, isSecure: isSecure, schemeStart: schemeRange.lowerBound)
    }
}

extension SIPURI {
    static func parse(_ scanner: inout ByteScanner, isSecure: Bool) throws(MessageError) -> SIPURI {
        let layout = try parseLayout(&scanner, isSecure: isSecure, schemeStart: nil)
        return SIPURI(source: scanner.owner, layout: layout)
    }

    /// Validates a SIP URI after its `sip:`/`sips:` and records where its parts are. `schemeStart` is where
    /// the scheme began (the scanner's position minus the scheme when nil).
    static func parseLayout(_ scanner: inout ByteScanner, isSecure: Bool, schemeStart: Int?) throws(MessageError)
        -> SIPURILayout
    {
        let bytes = scanner.bytes
        let start = schemeStart ?? (scanner.index - (isSecure ? 5 : 4))
        // userinfo: the user part may hold ';', '?' and '/', so the '@' decides where it ends.
        var user: ByteRange?
        var password: ByteRange?
        // The usual `user@`: unescaped user characters (which never include '@') straight up to an '@', which is
        // then the first '@' and gives what the search below gives. Anything else (no user, a password, escapes)
        // takes that path from the same place.
        var userEnd = scanner.index
        while userEnd < scanner.end, bytes[userEnd].isUserChar { userEnd += 1 }
        if userEnd > scanner.index, userEnd < scanner.end, bytes[userEnd] == ASCII.at {
            user = ByteRange(scanner.index..<userEnd)
            scanner.index = userEnd + 1
        } else if let at = MessageParser.find(ASCII.at, in: bytes, from: scanner.index, to: scanner.end) {
            var info = scanner.subscanner(scanner.index..<at)
            guard let u = try info.readEscaped(allowed: { $0.isUserChar }) else {
                throw .malformedURI("empty user part")
            }
            user = ByteRange(u)
            if info.consume(ASCII.colon) {
                let p = try info.readEscaped(allowed: { $0.isPasswordChar })
                password = ByteRange(p ?? info.index..<info.index)
            }
            guard info.isAtEnd else { throw .malformedURI("character not allowed in user part") }
            scanner.index = at + 1
        }

        guard let (host, hostKind) = scanner.readHost() else { throw .malformedURI("bad host") }
        var port: UInt16?
        if scanner.consume(ASCII.colon) {
            guard let digits = scanner.read(while: { $0.isDigit }), digits.count <= 5,
                let value = parseDecimal(bytes, digits, limit: 65535)
            else { throw .malformedURI("bad port") }
            port = UInt16(value)
        }

        let parametersStart = scanner.index
        while scanner.consume(ASCII.semicolon) {
            guard try scanner.readEscaped(allowed: { $0.isURIParamChar }) != nil else {
                throw .malformedURI("empty parameter")
            }
            if scanner.consume(ASCII.equals) {
                guard try scanner.readEscaped(allowed: { $0.isURIParamChar }) != nil else {
                    throw .malformedURI("parameter without value after '='")
                }
            }
        }
        let parameters = ByteRange(start: parametersStart, end: scanner.index)

        var headers = ByteRange(start: scanner.index, end: scanner.index)
        if scanner.consume(ASCII.question) {
            let headersStart = scanner.index
            repeat {
                guard try scanner.readEscaped(allowed: { $0.isURIHeaderChar }) != nil, scanner.consume(ASCII.equals)
                else { throw .malformedURI("bad header") }
                _ = try scanner.readEscaped(allowed: { $0.isURIHeaderChar })
            } while scanner.consume(ASCII.ampersand)
            headers = ByteRange(start: headersStart, end: scanner.index)
        }
        guard scanner.isAtEnd else { throw .malformedURI("unexpected character") }
        return SIPURILayout(
            whole: ByteRange(start: start, end: scanner.index), isSecure: isSecure, user: user, password: password,
            host: host, hostKind: hostKind, port: port, parameters: parameters, headers: headers)
    }
}

extension TelURI {
    static func parse(_ scanner: inout ByteScanner) throws(MessageError) -> TelURI {
        let isGlobal = scanner.consume(ASCII.plus)
        let numberStart = scanner.index - (isGlobal ? 1 : 0)
        var sawDigit = false
        while let b = scanner.peek() {
            if isGlobal ? b.isDigit : (b.isHexDigit || b == ASCII.star || b == 0x23) {
                sawDigit = true
            } else if !TelURI.isVisualSeparator(b) {
                break
            }
            scanner.advance()
        }
        guard sawDigit else { throw .malformedURI("tel URI without digits") }
        let number = scanner.string(numberStart..<scanner.index)
        var parameters = Parameters()
        while scanner.consume(ASCII.semicolon) {
            guard let name = scanner.read(while: { $0.isAlphanumeric || $0 == ASCII.minus }) else {
                throw .malformedURI("empty tel parameter")
            }
            var value: String?
            if scanner.consume(ASCII.equals) {
                guard let v = try scanner.readEscaped(allowed: { $0.isURIParamChar }) else {
                    throw .malformedURI("tel parameter without value")
                }
                value = scanner.string(v)
            }
            parameters.append(Parameter(scanner.string(name), value))
        }
        guard scanner.isAtEnd else { throw .malformedURI("unexpected character in tel URI") }
        let uri = TelURI(number: number, parameters: parameters)
        if !uri.isGlobal, uri.phoneContext == nil {
            throw .malformedURI("local tel number without phone-context")
        }
        return uri
    }
}

extension SIPURI {
    /// URI equivalence per RFC 3261 §19.1.4.
    public func isEquivalent(to other: SIPURI) -> Bool {
        guard isSecure == other.isSecure else { return false }
        // userinfo is case-sensitive; escapes of unreserved characters are equal to the characters.
        guard escapedUser.map(percentNormalized) == other.escapedUser.map(percentNormalized),
            escapedPassword.map(percentNormalized) == other.escapedPassword.map(percentNormalized),
            host.isEquivalent(to: other.host),
            port == other.port
        else { return false }

        func normalizedValue(_ v: String?) -> [UInt8]? {
            v.map { percentNormalized($0).map(\.lowercasedASCII) }
        }
        // Parameters in both must match; user, ttl, method, maddr and transport must be in both or neither.
        for p in parameters {
            if let q = other.parameters.first(named: p.name) {
                guard normalizedValue(p.value) == normalizedValue(q.value) else { return false }
            }
        }
        for name in ["user", "ttl", "method", "maddr", "transport"]
        where parameters.contains(name) != other.parameters.contains(name) {
            return false
        }
        // Headers are never ignored: the same set on both sides.
        func headerSet(_ headers: [Parameter]) -> [[UInt8]] {
            headers.map { h in
                percentNormalized(h.name).map(\.lowercasedASCII) + [0] + percentNormalized(h.value ?? "")
            }.sorted { $0.lexicographicallyPrecedes($1) }
        }
        return headerSet(headers) == headerSet(other.headers)
    }
}
