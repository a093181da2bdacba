extension URI {
    /// Parses the URI occupying exactly `bytes[range]`; the caller has already found where it ends.
    static func parse(_ bytes: [UInt8], _ range: Range<Int>) throws(MessageError) -> URI {
        var scanner = ByteScanner(bytes, range)
        guard let first = scanner.peek(), first.isAlpha else { throw .malformedURI("no scheme") }
        guard
            let schemeRange = scanner.read(while: {
                $0.isAlphanumeric || $0 == ASCII.plus || $0 == ASCII.minus || $0 == ASCII.dot
            }),
            scanner.consume(ASCII.colon)
        else { throw .malformedURI("no scheme") }

        if bytesEqualCaseInsensitive(bytes, schemeRange, literal: "sip") {
            return .sip(try SIPURI.parse(&scanner, isSecure: false))
        }
        if bytesEqualCaseInsensitive(bytes, schemeRange, literal: "sips") {
            return .sip(try SIPURI.parse(&scanner, isSecure: true))
        }
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

extension SIPURI {
    static func parse(_ scanner: inout ByteScanner, isSecure: Bool) throws(MessageError) -> SIPURI {
        let bytes = scanner.bytes
        // userinfo: the user part may hold ';', '?' and '/', so the '@' decides where it ends.
        var user: String?
        var password: String?
        var at: Int?
        for i in scanner.remaining where bytes[i] == ASCII.at {
            at = i
            break
        }
        if let at {
            var info = ByteScanner(bytes, scanner.index..<at)
            guard let u = try info.readEscaped(allowed: \.isUserChar) else { throw .malformedURI("empty user part") }
            user = info.string(u)
            if info.consume(ASCII.colon) {
                let p = try info.readEscaped(allowed: \.isPasswordChar)
                password = p.map { info.string($0) } ?? ""
            }
            guard info.isAtEnd else { throw .malformedURI("character not allowed in user part") }
            scanner.index = at + 1
        }

        guard let hostRange = scanner.readHostRange(), let host = SIPHost(bytes, hostRange) else {
            throw .malformedURI("bad host")
        }
        var port: UInt16?
        if scanner.consume(ASCII.colon) {
            guard let digits = scanner.read(while: \.isDigit), digits.count <= 5,
                let value = parseDecimal(bytes, digits, limit: 65535)
            else { throw .malformedURI("bad port") }
            port = UInt16(value)
        }

        var parameters = Parameters()
        while scanner.consume(ASCII.semicolon) {
            guard let name = try scanner.readEscaped(allowed: \.isURIParamChar) else {
                throw .malformedURI("empty parameter")
            }
            var value: String?
            if scanner.consume(ASCII.equals) {
                guard let v = try scanner.readEscaped(allowed: \.isURIParamChar) else {
                    throw .malformedURI("parameter without value after '='")
                }
                value = scanner.string(v)
            }
            parameters.elements.append(Parameter(scanner.string(name), value))
        }

        var headers: [Parameter] = []
        if scanner.consume(ASCII.question) {
            repeat {
                guard let name = try scanner.readEscaped(allowed: \.isURIHeaderChar), scanner.consume(ASCII.equals)
                else { throw .malformedURI("bad header") }
                let value = try scanner.readEscaped(allowed: \.isURIHeaderChar)
                headers.append(Parameter(scanner.string(name), value.map { scanner.string($0) } ?? ""))
            } while scanner.consume(ASCII.ampersand)
        }
        guard scanner.isAtEnd else { throw .malformedURI("unexpected character") }

        var uri = SIPURI(host: host, port: port, isSecure: isSecure, parameters: parameters, headers: headers)
        uri.escapedUser = user
        uri.escapedPassword = password
        return uri
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
                guard let v = try scanner.readEscaped(allowed: \.isURIParamChar) else {
                    throw .malformedURI("tel parameter without value")
                }
                value = scanner.string(v)
            }
            parameters.elements.append(Parameter(scanner.string(name), value))
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
        for p in parameters.elements {
            if let i = other.parameters.firstIndex(named: p.name) {
                guard normalizedValue(p.value) == normalizedValue(other.parameters.elements[i].value) else {
                    return false
                }
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
