extension SIPURI {
    /// The layout of the SIP URI that fills `bytes[start..<end]` exactly, for the usual shape only: `sip:` or
    /// `sips:`, a plain user part up to an `@` (or none), a host, a port, and URI parameters without %-escapes,
    /// nothing else. `nil` whenever the URI is of any other shape or is malformed: then `parseSIPLayout` reads it
    /// and gives the same layout, or the error. Reads with one index in a register and no scanner, which is what
    /// makes it cheaper than the general reader on every From, To, Contact and Request-URI.
    @inline(__always)
    static func fastLayout(
        _ bytes: UnsafeBufferPointer<UInt8>, owner: UnsafePointer<[UInt8]>, _ start: Int, _ end: Int
    ) -> SIPURILayout? {
        guard let (layout, stop) = fastLayout(bytes, owner: owner, start, end, inAngleBrackets: false), stop == end
        else { return nil }
        return layout
    }

    /// The layout of the SIP URI of a name-addr that starts at `start` and ends at the first `>` before `end`,
    /// with where that `>` is; as `fastLayout(bytes, owner:, start, thatPosition)` reads it, without a search
    /// for the `>` first: no character the fast grammar takes is a `>`, so the read stops there by itself.
    @inline(__always)
    static func fastLayoutBeforeGreaterThan(
        _ bytes: UnsafeBufferPointer<UInt8>, owner: UnsafePointer<[UInt8]>, _ start: Int, _ end: Int
    ) -> (SIPURILayout, greaterThan: Int)? {
        guard let (layout, stop) = fastLayout(bytes, owner: owner, start, end, inAngleBrackets: true),
            stop < end, bytes[stop] == ASCII.greaterThan
        else { return nil }
        return (layout, stop)
    }

    /// The fast read up to the first byte it does not take (`end` at most). With `inAngleBrackets`, the URI
    /// ends at the first `>` (the user part's `@` is looked for before it) and a bracketed host, whose reader
    /// could look past that `>`, is left to the general reader.
    @inline(__always)
    static func fastLayout(
        _ bytes: UnsafeBufferPointer<UInt8>, owner: UnsafePointer<[UInt8]>, _ start: Int, _ end: Int,
        inAngleBrackets: Bool
    ) -> (SIPURILayout, Int)? {
        guard start >= 0, end <= bytes.count, start &+ 5 <= end, bytes[start] | 0x20 == UInt8(ascii: "s"),
            bytes[start &+ 1] | 0x20 == UInt8(ascii: "i"), bytes[start &+ 2] | 0x20 == UInt8(ascii: "p")
        else { return nil }
        let isSecure: Bool
        var i: Int
        if bytes[start &+ 3] == ASCII.colon {
            isSecure = false
            i = start &+ 4
        } else if bytes[start &+ 3] | 0x20 == UInt8(ascii: "s"), bytes[start &+ 4] == ASCII.colon {
            isSecure = true
            i = start &+ 5
        } else {
            return nil
        }
        // userinfo: a plain user straight up to the first '@'; with no '@' in the URI, no user (as the general
        // reader decides with its search for '@'); escapes and passwords are left to it.
        var user: ByteRange?
        let userEnd = ByteScanner.skip(bytes, from: i, to: end, while: { $0.isUserChar })
        if userEnd > i, userEnd < end, bytes[userEnd] == ASCII.at {
            user = ByteRange(start: i, end: userEnd)
            i = userEnd &+ 1
        } else if userEnd < end {
            let uriEnd: Int
            if inAngleBrackets {
                guard let greaterThan = MessageParser.find(ASCII.greaterThan, in: bytes, from: userEnd, to: end)
                else { return nil }
                uriEnd = greaterThan
            } else {
                uriEnd = end
            }
            if MessageParser.find(ASCII.at, in: bytes, from: userEnd, to: uriEnd) != nil { return nil }
        }
        if inAngleBrackets, i < end, bytes[i] == ASCII.leftBracket { return nil }
        let host: ByteRange
        let hostKind: SIPHost.Kind
        if let (hostEnd, kind) = SIPHost.fastHost(bytes, from: i, to: end) {
            host = ByteRange(start: i, end: hostEnd)
            hostKind = kind
            i = hostEnd
        } else {
            var scanner = ByteScanner(bytes, owner: owner, i..<end)
            guard let (span, kind) = scanner.readHost() else { return nil }
            host = span
            hostKind = kind
            i = scanner.index
        }
        var port: UInt16?
        if i < end, bytes[i] == ASCII.colon {
            guard let (digitsEnd, value) = readDecimal(bytes, from: i &+ 1, to: end, maxDigits: 5, limit: 65535) else {
                return nil
            }
            port = UInt16(truncatingIfNeeded: value)
            i = digitsEnd
        }
        let parametersStart = i
        while i < end, bytes[i] == ASCII.semicolon {
            let nameEnd = ByteScanner.skip(bytes, from: i &+ 1, to: end, while: { $0.isURIParamChar })
            guard nameEnd > i &+ 1 else { return nil }
            i = nameEnd
            if i < end, bytes[i] == ASCII.equals {
                let valueEnd = ByteScanner.skip(bytes, from: i &+ 1, to: end, while: { $0.isURIParamChar })
                guard valueEnd > i &+ 1 else { return nil }
                i = valueEnd
            }
        }
        // Anything left ('%', '?', or a byte the grammar does not allow here) is the general reader's: the
        // callers check what stopped the read.
        let parameters = ByteRange(start: parametersStart, end: i)
        let layout = SIPURILayout(
            whole: ByteRange(start: start, end: i), isSecure: isSecure, user: user, password: nil, host: host,
            hostKind: hostKind, port: port, parameters: parameters, headers: ByteRange(start: i, end: i))
        return (layout, i)
    }
}
